package secretbox

import (
	"errors"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	b, err := New("a-long-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Seal("whsec_c2VjcmV0", "ws-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s, "c2VjcmV0") || !strings.HasPrefix(s, prefix) {
		t.Fatalf("sealed value shows the secret or lacks its format: %q", s)
	}
	if got, err := b.Open(s, "ws-1"); err != nil || got != "whsec_c2VjcmV0" {
		t.Fatalf("open = %q, %v", got, err)
	}
	if s2, _ := b.Seal("whsec_c2VjcmV0", "ws-1"); s2 == s {
		t.Error("two seals of one secret are equal: the nonce is not random")
	}
	if _, err := b.Open(s, "ws-2"); !errors.Is(err, ErrWrongKey) {
		t.Errorf("opened under another workspace: %v", err)
	}
	other, _ := New("another-operator-key-0123456789")
	if _, err := other.Open(s, "ws-1"); !errors.Is(err, ErrWrongKey) {
		t.Errorf("opened under another key: %v", err)
	}
	tampered := s[:len(s)-2] + "AA"
	if _, err := b.Open(tampered, "ws-1"); !errors.Is(err, ErrWrongKey) {
		t.Errorf("opened a tampered value: %v", err)
	}
	none, _ := New("")
	if _, err := none.Seal("x", "ws-1"); !errors.Is(err, ErrNoKey) {
		t.Errorf("sealed without a key: %v", err)
	}
	if _, err := New("short"); err == nil {
		t.Error("a 5-character key was accepted")
	}
}
