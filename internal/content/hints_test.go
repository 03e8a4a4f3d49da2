package content

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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

// countWordsBytewise is countWords as it was before it read eight bytes
// at a time: the reference the faster one must equal on every string.
func countWordsBytewise(s string) int {
	n, cjk := 0, 0
	in := false
	for i := 0; i < len(s); {
		switch byteKinds[s[i]] {
		case byteSpace:
			in = false
			i++
			continue
		case byteWord:
			if !in {
				n++
			}
			in = true
			for i++; i < len(s) && byteKinds[s[i]] == byteWord; i++ {
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(r) {
			in = false
			continue
		}
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
			cjk++
			continue
		}
		if !in {
			n++
		}
		in = true
	}
	return n + cjk/2
}

// TestCountWordsEightAtATime compares countWords with the byte-wise
// count on every string of up to 6 pieces over bytes that take each of
// its paths (word bytes on both sides of 0x21, the five ASCII spaces,
// '\v' and other control characters, which are word bytes, NUL, high
// bytes alone, a no-break space, CJK), each piece also repeated so that
// runs cross the eight-byte boundaries, after prefixes of 0-7 bytes.
func TestCountWordsEightAtATime(t *testing.T) {
	pieces := []string{"a", "!", "~", " ", "\n", "\t", "\r", "\f", "\v", "\x01", "\x00", "\x7f", "\xff",
		"é", "\u00a0", "日", "\u2003", "abcdefghi", "         "}
	prefixes := []string{"", "x", "  ", "ab ", "a\nb ", "é b ", "\u00a0ab", "日本 a "}
	checked := 0
	var each func(s string, depth int)
	each = func(s string, depth int) {
		for _, p := range prefixes {
			if got, want := countWords(p+s), countWordsBytewise(p+s); got != want {
				t.Fatalf("countWords(%q) = %d, byte-wise %d", p+s, got, want)
			}
			checked++
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			each(s+p, depth-1)
		}
	}
	each("", 4)
	long := strings.Repeat("The quick brown fox\njumps over  the lazy dog. ", 40) + "Ünïcödé  日本語テキスト \t end"
	for i := range len(long) {
		if got, want := countWords(long[i:]), countWordsBytewise(long[i:]); got != want {
			t.Fatalf("countWords(long[%d:]) = %d, byte-wise %d", i, got, want)
		}
	}
	t.Logf("%d strings", checked)
}

// FuzzCountWords compares countWords with the byte-wise count.
func FuzzCountWords(f *testing.F) {
	for _, seed := range []string{"", "a b", "abcdefgh ijklmnop", "a\vb\tc\rd\fe\nf g", "\xff\xfe a", "日本語 テスト x", "ab\u00a0cd\u2003ef        gh"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := countWords(s), countWordsBytewise(s); got != want {
			t.Fatalf("countWords(%q) = %d, byte-wise %d", s, got, want)
		}
	})
}
