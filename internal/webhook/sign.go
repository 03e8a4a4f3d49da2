// Package webhook signs monitor alert webhooks (internal/alert delivers
// them) and checks and generates their secrets.
//
// Every delivery carries two signatures over the same raw body (see
// DECISIONS.md "Webhooks"):
//
//   - X-Svc-Signature: lowercase hex of HMAC-SHA256(secret, body), so a
//     receiver can verify it in one line;
//   - the Standard Webhooks headers webhook-id, webhook-timestamp and
//     webhook-signature ("v1,<base64 HMAC-SHA256(key, id.timestamp.body)>"),
//     so receivers can use existing libraries and get replay protection.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names set by Sign.
const (
	HeaderSvcSignature = "X-Svc-Signature"
	HeaderID           = "webhook-id"
	HeaderTimestamp    = "webhook-timestamp"
	HeaderSignature    = "webhook-signature"
)

// secretPrefix marks a Standard Webhooks secret whose remainder is the
// base64-encoded key.
const secretPrefix = "whsec_"

// Sign returns the signature headers for one delivery attempt of body:
// X-Svc-Signature, webhook-id (= id, the delivery id), webhook-timestamp
// (ts in unix seconds) and webhook-signature.
//
// The X-Svc-Signature key is always the secret's raw bytes. The Standard
// Webhooks key is the base64-decoded remainder of a secret starting with
// "whsec_", and the secret's raw bytes otherwise. Sign fails on an empty id,
// an empty key or a "whsec_" secret that is not valid base64.
// Header names are case-insensitive in HTTP; the returned header holds them
// in canonical form (read them with Get), as net/http sends them.
func Sign(secret string, id string, ts time.Time, body []byte) (http.Header, error) {
	if id == "" {
		return nil, errors.New("webhook: sign: empty delivery id")
	}
	if secret == "" {
		return nil, errors.New("webhook: sign: empty secret")
	}
	key, err := standardKey(secret)
	if err != nil {
		return nil, fmt.Errorf("webhook: sign: %w", err)
	}
	unix := strconv.FormatInt(ts.Unix(), 10)
	h := make(http.Header, 4)
	h.Set(HeaderSvcSignature, svcSignature([]byte(secret), body))
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, unix)
	h.Set(HeaderSignature, "v1,"+standardSignature(key, id, unix, body))
	return h, nil
}

// VerifySvc reports whether sig is the X-Svc-Signature of body under secret,
// comparing in constant time. Hex digits may be in either case.
func VerifySvc(secret string, body []byte, sig string) bool {
	got, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	return hmac.Equal(got, mac([]byte(secret), body))
}

// CheckSecret reports why secret cannot sign, or nil: a "whsec_" secret
// must carry a non-empty base64 key.
func CheckSecret(secret string) error {
	_, err := standardKey(secret)
	return err
}

// NewSecret returns a fresh Standard Webhooks secret: "whsec_" and 32
// random bytes in base64.
func NewSecret() (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("webhook: new secret: %w", err)
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// standardKey returns the Standard Webhooks signing key of secret.
func standardKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("secret after %s is not valid base64: %w", secretPrefix, err)
	}
	if len(key) == 0 {
		return nil, errors.New("empty key after " + secretPrefix)
	}
	return key, nil
}

// svcSignature is the lowercase hex HMAC-SHA256 of body under key.
func svcSignature(key, body []byte) string {
	return hex.EncodeToString(mac(key, body))
}

// standardSignature is the base64 HMAC-SHA256 of "{id}.{unix}.{body}".
func standardSignature(key []byte, id, unix string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(unix))
	m.Write([]byte{'.'})
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// mac is HMAC-SHA256 of msg under key.
func mac(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
