package mcp

import (
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	short, mid, long := strings.Repeat("a", 100), strings.Repeat("b", 5000), strings.Repeat("é", 20000)
	texts := []*string{&short, &mid, &long}
	truncate(texts, 3000)
	if short != strings.Repeat("a", 100) {
		t.Fatal("a short text was cut")
	}
	for _, s := range []string{mid, long} {
		if !strings.Contains(s, "[truncated: ") {
			t.Fatalf("no marker in %q", s[len(s)-60:])
		}
	}
	if !strings.HasSuffix(mid, "[truncated: 3550 characters left out]") {
		t.Fatalf("mid ends %q", mid[len(mid)-60:])
	}
	body := 0
	for _, s := range texts {
		body += len(strings.Split(*s, "\n\n[truncated")[0])
	}
	if body > 3000 {
		t.Fatalf("kept %d bytes of text, budget 3000", body)
	}
	if !strings.HasPrefix(long, "é") || strings.ContainsRune(strings.Split(long, "\n\n")[0], '\uFFFD') {
		t.Fatal("a cut split a character")
	}
	a := "small"
	truncate([]*string{&a}, 10)
	if a != "small" {
		t.Fatal("text under budget was changed")
	}
}
