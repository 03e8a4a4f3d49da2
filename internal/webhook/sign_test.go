package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The Standard Webhooks spec's published test vector (also in the reference
// library's own tests).
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorUnix   = 1614265330
	vectorBody   = `{"test": 2432232314}`
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignStandardWebhooksVector(t *testing.T) {
	h, err := Sign(vectorSecret, vectorID, time.Unix(vectorUnix, 0), []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get(HeaderSignature); got != vectorSig {
		t.Errorf("webhook-signature = %q, want %q", got, vectorSig)
	}
	if got := h.Get(HeaderID); got != vectorID {
		t.Errorf("webhook-id = %q, want %q", got, vectorID)
	}
	if got := h.Get(HeaderTimestamp); got != strconv.Itoa(vectorUnix) {
		t.Errorf("webhook-timestamp = %q, want %d", got, vectorUnix)
	}
	if len(h) != 4 {
		t.Errorf("got %d headers, want 4: %v", len(h), h)
	}
}

// TestSignVerifiesWithReferenceLibrary checks a fresh signature (current
// timestamp, so the library's replay window applies) with the reference
// library, for a whsec_ secret and for a raw one.
func TestSignVerifiesWithReferenceLibrary(t *testing.T) {
	body := []byte(`{"delivery_id":"0b8f5c3e-7d3a-4c1e-9f44-2a1d6b7e9c10","outcome":"changed"}`)
	id := "0b8f5c3e-7d3a-4c1e-9f44-2a1d6b7e9c10"
	rawKey := []byte("k3y-bytes-\x00\xff-not-text")
	cases := []struct {
		name   string
		secret string
		lib    func() (*standardwebhooks.Webhook, error)
	}{
		{"whsec", "whsec_" + base64.StdEncoding.EncodeToString(rawKey), func() (*standardwebhooks.Webhook, error) {
			return standardwebhooks.NewWebhook("whsec_" + base64.StdEncoding.EncodeToString(rawKey))
		}},
		{"raw", "plain shared secret", func() (*standardwebhooks.Webhook, error) {
			return standardwebhooks.NewWebhookRaw([]byte("plain shared secret"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wh, err := tc.lib()
			if err != nil {
				t.Fatal(err)
			}
			h, err := Sign(tc.secret, id, time.Now(), body)
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.Verify(body, h); err != nil {
				t.Fatalf("reference library rejects our signature: %v", err)
			}
			tampered := append([]byte(nil), body...)
			tampered[len(tampered)-2] ^= 1
			if err := wh.Verify(tampered, h); err == nil {
				t.Error("reference library accepts a tampered body")
			}
			other := h.Clone()
			other.Set(HeaderID, id+"x")
			if err := wh.Verify(body, other); err == nil {
				t.Error("reference library accepts a changed webhook-id")
			}
		})
	}
}

// TestSignRawSecretIsNotDecoded shows a secret without whsec_ is used as raw
// bytes even when it happens to be valid base64.
func TestSignRawSecretIsNotDecoded(t *testing.T) {
	secret := "c2VjcmV0" // valid base64, but no whsec_ prefix
	ts := time.Unix(1700000000, 0)
	body := []byte("{}")
	h, err := Sign(secret, "d1", ts, body)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("d1.1700000000.{}"))
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	if got := h.Get(HeaderSignature); got != want {
		t.Errorf("webhook-signature = %q, want %q", got, want)
	}
}

func TestSvcSignature(t *testing.T) {
	secret := "s3cr3t"
	body := []byte(`{"monitor_id":"m1","score":0.93}`)
	h, err := Sign(secret, "d1", time.Unix(1, 0), body)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	want := hex.EncodeToString(m.Sum(nil))
	got := h.Get(HeaderSvcSignature)
	if got != want {
		t.Fatalf("X-Svc-Signature = %q, want %q", got, want)
	}
	if got != strings.ToLower(got) {
		t.Errorf("X-Svc-Signature %q is not lowercase", got)
	}
	if !VerifySvc(secret, body, got) {
		t.Error("VerifySvc rejects a valid signature")
	}
	if !VerifySvc(secret, body, strings.ToUpper(got)) {
		t.Error("VerifySvc rejects upper-case hex of a valid signature")
	}
	tampered := append([]byte(nil), body...)
	tampered[0] = '['
	for name, ok := range map[string]bool{
		"tampered body": VerifySvc(secret, tampered, got),
		"wrong secret":  VerifySvc(secret+"x", body, got),
		"truncated sig": VerifySvc(secret, body, got[:len(got)-2]),
		"not hex":       VerifySvc(secret, body, "zz"+got[2:]),
		"empty sig":     VerifySvc(secret, body, ""),
	} {
		if ok {
			t.Errorf("VerifySvc accepts %s", name)
		}
	}
}

// TestSvcSignatureWhsecUsesWholeSecret: X-Svc-Signature keys on the secret
// string as stored, prefix included, whatever the Standard Webhooks key is.
func TestSvcSignatureWhsecUsesWholeSecret(t *testing.T) {
	body := []byte("x")
	h, err := Sign(vectorSecret, "d1", time.Unix(1, 0), body)
	if err != nil {
		t.Fatal(err)
	}
	if !VerifySvc(vectorSecret, body, h.Get(HeaderSvcSignature)) {
		t.Error("X-Svc-Signature does not verify with the whole whsec_ secret")
	}
}

func TestSignErrors(t *testing.T) {
	ts := time.Unix(1, 0)
	for name, tc := range map[string]struct{ secret, id string }{
		"invalid base64": {"whsec_not*base64!", "d1"},
		"empty whsec":    {"whsec_", "d1"},
		"empty secret":   {"", "d1"},
		"empty id":       {"s", ""},
	} {
		t.Run(name, func(t *testing.T) {
			h, err := Sign(tc.secret, tc.id, ts, []byte("{}"))
			if err == nil {
				t.Fatalf("Sign succeeded with headers %v", h)
			}
		})
	}
}

// ExampleVerifySvc shows a receiver checking X-Svc-Signature.
func ExampleVerifySvc() {
	body := []byte(`{"event":"monitor.changed"}`)
	h, err := Sign("my-secret", "delivery-1", time.Now(), body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(VerifySvc("my-secret", body, h.Get("X-Svc-Signature")))
	fmt.Println(VerifySvc("my-secret", []byte(`{"event":"forged"}`), h.Get("X-Svc-Signature")))
	// Output:
	// true
	// false
}

// TestSecrets: a whsec_ secret must carry a base64 key; NewSecret makes
// whsec_ and 32 random bytes, which sign.
func TestSecrets(t *testing.T) {
	for _, bad := range []string{"whsec_!!!notbase64!!!xx", "whsec_", "whsec_YWJj!"} {
		if CheckSecret(bad) == nil {
			t.Errorf("CheckSecret(%q) accepted", bad)
		}
	}
	for _, good := range []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "a-plain-secret-0123456789"} {
		if err := CheckSecret(good); err != nil {
			t.Errorf("CheckSecret(%q): %v", good, err)
		}
	}
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSecret()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "whsec_"))
	if !strings.HasPrefix(a, "whsec_") || err != nil || len(key) != 32 || a == b {
		t.Fatalf("NewSecret: %q, %q (%v)", a, b, err)
	}
	if _, err := Sign(a, "msg_1", time.Unix(1700000000, 0), []byte(`{}`)); err != nil {
		t.Errorf("a new secret does not sign: %v", err)
	}
}
