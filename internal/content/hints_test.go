package content

import (
	"strings"
	"testing"
	"unicode"
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
		if got := h.inBytes([]byte(s)); got != want {
			t.Errorf("inBytes(%q) = %v, want %v", s, got, want)
		}
	}
	b := []byte("a long paragraph that says nothing of note, twice: a long paragraph")
	if n := testing.AllocsPerRun(100, func() { h.inBytes(b) }); n != 0 {
		t.Errorf("inBytes allocates %v times, want 0", n)
	}
}

// TestCountText checks countText against a rune-by-rune count: white
// space collapsed and trimmed, a separator before a text that follows
// another, commas of any script.
func TestCountText(t *testing.T) {
	ref := func(s string, st *stats) {
		n := len([]rune(strings.Join(strings.Fields(s), " ")))
		if n > 0 && st.length > 0 {
			n++
		}
		st.length += n
		st.commas += strings.Count(s, ",") + strings.Count(s, "\u060C") + strings.Count(s, "\uFF0C")
	}
	texts := []string{"", "  ", "a", " a, b ", "x\u00a0y,\tz\n\n", "日本語、テスト，終わり", "a\u2003b", "\u060Cab  ,c", "\xffa b"}
	var got, want stats
	for _, s := range texts {
		countText(s, 0, &got)
		ref(s, &want)
		if got != want {
			t.Fatalf("after %q: got %+v, want %+v", s, got, want)
		}
	}
}

// TestCountWords checks countWords against a rune-by-rune count: words
// separated by white space, two CJK ideographs a word.
func TestCountWords(t *testing.T) {
	ref := func(s string) int {
		n, cjk, in := 0, 0, false
		for _, r := range s {
			switch {
			case unicode.IsSpace(r):
				in = false
			case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai):
				cjk++
			default:
				if !in {
					n++
				}
				in = true
			}
		}
		return n + cjk/2
	}
	for _, s := range []string{"", " ", "a", "a b", " a  b ", "a\u00a0b", "x日本語y z", "日本語 テスト", "é,é\tè\n", "\xff\xfe a"} {
		if got, want := countWords(s), ref(s); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
	}
}
