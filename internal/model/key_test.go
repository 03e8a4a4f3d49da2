package model

import (
	"strings"
	"testing"
)

func TestRedactKeys(t *testing.T) {
	key := NewKey()
	body := key[len(KeyPrefix):]
	shown := KeyDisplayPrefix(key) + "[redacted]"
	tests := []struct{ in, want string }{
		{"", ""},
		{"no key here", "no key here"},
		{"/api/v1/keys/" + key, "/api/v1/keys/" + shown},
		{"/api/v1/" + key + "/health", "/api/v1/" + shown + "/health"},
		{"a=" + key + "&b=" + key, "a=" + shown + "&b=" + shown},
		{`{"path":"` + key + `"}`, `{"path":"` + shown + `"}`},
		// A display prefix (what lists show) and short runs stay.
		{"mc_" + body[:9], "mc_" + body[:9]},
		{"mc_" + body[:15] + " mc_", "mc_" + body[:15] + " mc_"},
		// Part of a key is still too much of one.
		{"x" + key[:20] + "-", "x" + KeyDisplayPrefix(key) + "[redacted]-"},
		{"mc_mc_" + body, "mc_" + shown},
	}
	for _, tt := range tests {
		if got := RedactKeys(tt.in); got != tt.want {
			t.Errorf("RedactKeys(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(RedactKeys(tt.in), body[12:]) {
			t.Errorf("RedactKeys(%q) still holds the key's tail", tt.in)
		}
	}
}

func FuzzRedactKeys(f *testing.F) {
	f.Add("/api/v1/keys/" + NewKey())
	f.Add("mc_mc_mc_")
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactKeys(s)
		// Nothing key-shaped survives, and redacting twice changes nothing.
		if RedactKeys(out) != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, RedactKeys(out))
		}
		if !strings.Contains(s, KeyPrefix) && out != s {
			t.Fatalf("changed a string without a key: %q -> %q", s, out)
		}
	})
}
