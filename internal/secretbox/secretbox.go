// Package secretbox keeps secrets (webhook signing secrets) encrypted at
// rest with AES-256-GCM under a key derived from the operator's
// WEBACQ_SECRET_KEY. A sealed value names its format, so the scheme can
// change without guessing.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// prefix marks a value sealed by this version.
const prefix = "gcm1:"

// ErrNoKey is returned when no key is configured.
var ErrNoKey = errors.New("secretbox: WEBACQ_SECRET_KEY is not set")

// ErrWrongKey is returned when a sealed value does not open under the key:
// another key sealed it, or it was altered.
var ErrWrongKey = errors.New("secretbox: the value does not open with WEBACQ_SECRET_KEY (another key sealed it, or it was altered)")

// Box seals and opens secrets. The zero Box has no key.
type Box struct{ aead cipher.AEAD }

// New derives the cipher key from the operator's key (any string of at
// least 16 characters; a random 32-byte value, base64, is best). An empty
// key gives a Box without a key, which refuses to seal or open.
func New(key string) (*Box, error) {
	if key == "" {
		return &Box{}, nil
	}
	if len(key) < 16 {
		return nil, errors.New("config: WEBACQ_SECRET_KEY must be at least 16 characters (e.g. `openssl rand -base64 32`)")
	}
	sum := sha256.Sum256([]byte("webacq secretbox v1\x00" + key))
	block, err := aes.NewCipher(sum[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// HasKey reports whether a key is configured.
func (b *Box) HasKey() bool { return b != nil && b.aead != nil }

// Seal encrypts plain; context binds the value to where it is kept (the
// workspace id), so a sealed value copied to another row does not open.
func (b *Box) Seal(plain, context string) (string, error) {
	if !b.HasKey() {
		return "", ErrNoKey
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := b.aead.Seal(nonce, nonce, []byte(plain), []byte(context))
	return prefix + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open decrypts a value Seal made with the same context.
func (b *Box) Open(sealed, context string) (string, error) {
	if !b.HasKey() {
		return "", ErrNoKey
	}
	raw, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return "", ErrWrongKey
	}
	data, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(data) < b.aead.NonceSize() {
		return "", ErrWrongKey
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, data[:n], data[n:], []byte(context))
	if err != nil {
		return "", ErrWrongKey
	}
	return string(plain), nil
}
