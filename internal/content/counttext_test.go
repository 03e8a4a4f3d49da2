package content

import (
	"math/rand"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// countTextBytewise is countText as it was before it read eight bytes at
// a time: the reference the faster one must equal on every string.
func countTextBytewise(s string, link float64, st *stats) {
	n, space, started := 0, false, false
	for i := 0; i < len(s); {
		switch byteKinds[s[i]] {
		case byteSpace:
			space = true
			i++
			continue
		case byteOther:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if unicode.IsSpace(r) {
				space = true
				continue
			}
			switch r {
			case '\u060C', '\uFE50', '\uFE10', '\uFE11', '\u2E41', '\u2E34', '\u2E32', '\uFF0C':
				st.commas++
			}
			n++
		default:
			j := i
			for ; j < len(s) && byteKinds[s[j]] >= byteWord; j++ {
				if s[j] == ',' {
					st.commas++
				}
			}
			n += j - i
			i = j
		}
		if space && started {
			n++
		}
		space, started = false, true
	}
	if started && st.length > 0 {
		n++ // the separation from the text before
	}
	st.length += n
	st.linkLen += link * float64(n)
}

// checkCountText compares countText with the byte-wise count on s, both
// alone and after a text already counted (the separator before it).
func checkCountText(t *testing.T, s string) {
	t.Helper()
	for _, before := range []stats{{}, {length: 3, linkLen: 1, commas: 1}} {
		got, want := before, before
		countText(s, 0.3, &got)
		countTextBytewise(s, 0.3, &want)
		if got != want {
			t.Fatalf("countText(%q) after %+v = %+v, byte-wise %+v", s, before, got, want)
		}
	}
}

// countTextPieces take each path of countText's eight-byte reading:
// characters on both sides of 0x21 and 0x7f, the comma, the five ASCII
// white space bytes, '\v' and the other control characters (characters,
// which the fast path leaves to the byte-wise one), NUL, lone high
// bytes, a no-break space and an em space, non-ASCII commas, CJK, and
// runs longer than eight.
var countTextPieces = []string{"a", "!", "~", "\x7f", ",", " ", "\n", "\t", "\r", "\f", "\v", "\x01", "\x08",
	"\x0e", "\x1f", "\x00", "\xff", "é", "\u00a0", "\u2003", "\uFF0C", "\u060C", "日", "abcdefghi", "         "}

// TestCountTextEightAtATime compares countText with the byte-wise count
// on every string of up to 3 pieces after prefixes of 0-8 bytes (so that
// each piece falls on each place of the eight), on every suffix of a
// long mixed text, and on random strings of those pieces.
func TestCountTextEightAtATime(t *testing.T) {
	prefixes := []string{"", "x", "  ", "ab ", "a\nb ", "é b ", "\u00a0ab", "日本 a ", "abcdefgh", " , , , ,"}
	checked := 0
	var each func(s string, depth int)
	each = func(s string, depth int) {
		for _, p := range prefixes {
			checkCountText(t, p+s)
			checkCountText(t, p+s+p)
			checked += 2
		}
		if depth == 0 {
			return
		}
		for _, p := range countTextPieces {
			each(s+p, depth-1)
		}
	}
	each("", 3)
	long := strings.Repeat("The quick, brown fox\njumps over  the lazy dog.\t\r\n ", 40) + "Ünïcödé,  日本語テキスト，\v end"
	for i := range len(long) {
		checkCountText(t, long[i:])
		checkCountText(t, long[:i])
	}
	rng := rand.New(rand.NewSource(20))
	var b strings.Builder
	for range 200000 {
		b.Reset()
		for k := rng.Intn(24); k > 0; k-- {
			// Mostly ASCII text, as pages are, so that the fast path runs.
			if rng.Intn(3) > 0 {
				b.WriteString("lorem ipsum, dolor\n"[rng.Intn(10):][:rng.Intn(10)])
			} else {
				b.WriteString(countTextPieces[rng.Intn(len(countTextPieces))])
			}
		}
		checkCountText(t, b.String())
		checked++
	}
	t.Logf("%d strings", checked)
}

// FuzzCountText compares countText with the byte-wise count.
func FuzzCountText(f *testing.F) {
	for _, seed := range []string{"", "a b", "abcdefgh ijklmnop", "a,b,c,d,e,f,g,h,i", "a\vb\tc\rd\fe\nf g",
		"\xff\xfe a", "日本語 テスト x", "ab\u00a0cd\u2003ef        gh", "  leading and trailing  ", "\x00\x01\x1f\x7f"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCountText(t, s)
	})
}

// textBytewise is textWriter.text as it was before spacedRun, for text
// outside <pre>: the reference the faster one must equal.
func (t *textWriter) textBytewise(s string) {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isSpaceByte(s[j]) {
			j++
		}
		if j > i {
			if t.space && !t.bol {
				t.b.WriteByte(' ')
			}
			t.b.WriteString(s[i:j])
			t.space = false
			t.bol = false
		}
		if j < len(s) {
			t.space = true
			j++
		}
		i = j
	}
}

// checkWriterText compares textWriter.text with the byte-wise writer on s,
// from each state a writer can be in.
func checkWriterText(t *testing.T, s string) {
	t.Helper()
	for _, st := range []struct {
		b          string
		space, bol bool
	}{{"", false, false}, {"", false, true}, {"x", true, false}, {"x\n", true, true}, {"x", false, false}} {
		var got, want textWriter
		got.b.WriteString(st.b)
		want.b.WriteString(st.b)
		got.space, got.bol = st.space, st.bol
		want.space, want.bol = st.space, st.bol
		got.text(s, false)
		want.textBytewise(s)
		if g, w := got.b.String(), want.b.String(); g != w || got.space != want.space || got.bol != want.bol {
			t.Fatalf("text(%q) from %+v = %q %v %v, byte-wise %q %v %v", s, st,
				g, got.space, got.bol, w, want.space, want.bol)
		}
	}
}

// TestTextEightAtATime compares textWriter.text with the byte-wise
// writer on the strings TestCountTextEightAtATime uses: every string of
// up to 3 pieces after prefixes, the suffixes and prefixes of a long
// text, random strings (double spaces, single ones at the eight bytes'
// ends, white space other than ' ', control and high bytes).
func TestTextEightAtATime(t *testing.T) {
	prefixes := []string{"", "x", " ", "ab ", "a\nb ", "é b c", "abcdefg ", "abcdefgh", " a b c d e f g h"}
	checked := 0
	var each func(s string, depth int)
	each = func(s string, depth int) {
		for _, p := range prefixes {
			checkWriterText(t, p+s)
			checkWriterText(t, p+s+p)
			checked += 2
		}
		if depth == 0 {
			return
		}
		for _, p := range countTextPieces {
			each(s+p, depth-1)
		}
	}
	each("", 3)
	long := strings.Repeat("The quick, brown fox\njumps over  the lazy dog.\t\r\n a b c d e f g h i ", 20) + "Ünïcödé,  日本語テキスト，\v end "
	for i := range len(long) {
		checkWriterText(t, long[i:])
		checkWriterText(t, long[:i])
	}
	rng := rand.New(rand.NewSource(20))
	var b strings.Builder
	for range 100000 {
		b.Reset()
		for k := rng.Intn(24); k > 0; k-- {
			if rng.Intn(3) > 0 {
				b.WriteString("lorem ipsum, dolor  sit\n"[rng.Intn(12):][:rng.Intn(12)])
			} else {
				b.WriteString(countTextPieces[rng.Intn(len(countTextPieces))])
			}
		}
		checkWriterText(t, b.String())
		checked++
	}
	t.Logf("%d strings", checked)
}

// FuzzText compares textWriter.text with the byte-wise writer.
func FuzzText(f *testing.F) {
	for _, seed := range []string{"", "a b", "abcdefg hijklmno p", "a  b", "abcdefg  hijklmn", "a\vb\tc\rd\fe\nf g",
		"\xff\xfe a", "日本語 テスト x", " a b c d e f g h i j k ", "abcdefgh "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkWriterText(t, s)
	})
}

// TestTextBufGivesBack checks textBuf: String returns what was written,
// leaves the buffer empty, and a buffer taken back from the pool holds
// nothing of the text before it.
func TestTextBufGivesBack(t *testing.T) {
	var a textBuf
	if a.String() != "" || a.Len() != 0 {
		t.Fatal("an unused buffer is not empty")
	}
	for i := range 50 {
		want := strings.Repeat("word ", i*37) + "end"
		var b textBuf
		for _, w := range strings.SplitAfter(want, " ") {
			b.WriteString(w)
		}
		_ = b.WriteByte('!')
		if got := b.String(); got != want+"!" {
			t.Fatalf("text %d: got %d bytes, want %d", i, len(got), len(want)+1)
		}
		if b.Len() != 0 || b.String() != "" {
			t.Fatalf("text %d: the buffer holds %d bytes after String", i, b.Len())
		}
	}
	// A text taken earlier is not changed by later writes to reused buffers.
	var x, y textBuf
	x.WriteString("first text")
	first := x.String()
	y.WriteString("second")
	_ = y.String()
	if first != "first text" {
		t.Fatalf("earlier text changed to %q", first)
	}
	// A buffer over maxTextBuf is not kept.
	var big textBuf
	big.WriteString(strings.Repeat("x", maxTextBuf+1))
	if s := big.String(); len(s) != maxTextBuf+1 {
		t.Fatalf("big text: %d bytes", len(s))
	}
}
