package content

import (
	"strings"
	"testing"
)

// TestHintsIn checks the one-pass matcher against a strings.Contains per
// hint, on hints of one byte, at the string's ends and overlapping.
func TestHintsIn(t *testing.T) {
	list := []string{"-ad-", "ad-break", "com-", "comment", ":", "xs", "header"}
	h := newHints(list...)
	for _, s := range []string{"", "a", "-ad", "-ad-", "x-ad-y", "ad-brea", "ad-break", "co", "comm", "com-x",
		"sm:flex", "xs", "x", "boxs", "subheader", "head", "headers", "ccomment", "c-o-m"} {
		want := false
		for _, w := range list {
			want = want || strings.Contains(s, w)
		}
		if got := h.in(s); got != want {
			t.Errorf("in(%q) = %v, want %v", s, got, want)
		}
	}
}
