package model

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// KeyPrefix starts every API key (spec 2.1).
const KeyPrefix = "mc_"

const (
	keyBodyLen    = 40
	keyPrefixLen  = 12
	base62        = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	maxKeyLength  = 128
	unbiasedLimit = 248 // 4*62: bytes at or above it are redrawn so every character is equally likely
)

// NewKey returns a fresh key: `mc_` and 40 base62 characters from crypto/rand.
func NewKey() string {
	var b strings.Builder
	b.Grow(len(KeyPrefix) + keyBodyLen)
	b.WriteString(KeyPrefix)
	buf := make([]byte, 64)
	for n := 0; n < keyBodyLen; {
		rand.Read(buf)
		for _, c := range buf {
			if c >= unbiasedLimit {
				continue
			}
			b.WriteByte(base62[c%62])
			if n++; n == keyBodyLen {
				break
			}
		}
	}
	return b.String()
}

// HashKey returns the lowercase hex SHA-256 of a key: the only form stored.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyDisplayPrefix is the part of a key shown in lists and usage filters.
func KeyDisplayPrefix(key string) string {
	if len(key) < keyPrefixLen {
		return key
	}
	return key[:keyPrefixLen]
}

// WellFormedKey reports whether s could be a key at all: the `mc_` prefix
// is checked before any lookup (spec 5.3), and absurd lengths never reach
// the database.
func WellFormedKey(s string) bool {
	if !strings.HasPrefix(s, KeyPrefix) || len(s) <= len(KeyPrefix) || len(s) > maxKeyLength {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		if strings.IndexByte(base62, s[i]) < 0 {
			return false
		}
	}
	return true
}

// keyShapeMin is the number of base62 characters after `mc_` from which a
// run is treated as a key (or enough of one to matter) and redacted: more
// than the display prefix reveals.
const keyShapeMin = 16

// RedactKeys replaces every key-shaped run in s (`mc_` and at least 16 base62
// characters) with its display prefix and "[redacted]", so that a key sent
// where it does not belong (a URL path, a query, a search) never reaches a
// log line or a stored row whole. Strings without `mc_` are returned as
// they are, without copying.
func RedactKeys(s string) string {
	var b strings.Builder
	rest, from := s, 0 // rest[from:] is still to be scanned
	for {
		i := strings.Index(rest[from:], KeyPrefix)
		if i < 0 {
			break
		}
		start := from + i + len(KeyPrefix)
		end := start
		for end < len(rest) && isBase62(rest[end]) {
			end++
		}
		if end-start < keyShapeMin {
			from = start // a key may start inside this run ("mc_mc_…")
			continue
		}
		b.WriteString(rest[:start+keyPrefixLen-len(KeyPrefix)])
		b.WriteString("[redacted]")
		rest, from = rest[end:], 0
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

func isBase62(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}
