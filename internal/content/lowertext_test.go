package content

import (
	"math/rand"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// lowerTextRunes is what lowerText does, written a character at a time
// with unicode's own tests: the reference the faster one must equal.
func lowerTextRunes(n *html.Node, buf []byte) []byte {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom != atom.Script {
			buf = lowerTextRunes(c, buf)
		}
		if c.Type != html.TextNode {
			continue
		}
		for _, r := range c.Data {
			if !unicode.IsSpace(r) {
				enc := string(unicode.ToLower(r)) // its UTF-8, the broken byte's U+FFFD too
				if len(buf)+len(enc) > cap(buf) {
					return buf
				}
				buf = append(buf, enc...)
			} else if len(buf) > 0 && len(buf) < cap(buf) && buf[len(buf)-1] != ' ' {
				buf = append(buf, ' ')
			}
		}
	}
	return buf
}

// lowerPieces are the kinds of text lowerText meets: ASCII kept, capital
// letters, each ASCII white space, other control bytes, no-break and
// other Unicode spaces, letters with case outside ASCII (one of them
// lower-cased to ASCII), CJK, a broken byte and long runs.
var lowerPieces = []string{"a", "Z", "Follow US", "0", ",", "@", "~", "\x7f", "\x00", "\x01", " ", "\t", "\n",
	"\v", "\f", "\r", "  ", " \n\t", "\u00a0", "\u0085", "\u2003", "\u3000", "É", "Σ", "ß", "İ", "日本",
	"\xff", "\xc3", strings.Repeat("x", 40), strings.Repeat("AbC ", 12), "Ñandú"}

// lowerTree builds a <p> holding the texts, every third inside a <span>
// and one in a <script>.
func lowerTree(texts []string) *html.Node {
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	for i, t := range texts {
		text := &html.Node{Type: html.TextNode, Data: t}
		switch i % 5 {
		case 2:
			span := &html.Node{Type: html.ElementNode, Data: "span", DataAtom: atom.Span}
			span.AppendChild(text)
			p.AppendChild(span)
		case 4:
			script := &html.Node{Type: html.ElementNode, Data: "script", DataAtom: atom.Script}
			script.AppendChild(text)
			p.AppendChild(script)
		default:
			p.AppendChild(text)
		}
	}
	return p
}

func checkLowerText(t *testing.T, texts []string) {
	t.Helper()
	n := lowerTree(texts)
	for _, size := range []int{0, 1, 2, 3, 5, 8, 13, 40, 100, 1280} {
		for _, pre := range []string{"", "x", "x "} {
			got := lowerText(n, append(make([]byte, 0, size+len(pre)), pre...))
			want := lowerTextRunes(n, append(make([]byte, 0, size+len(pre)), pre...))
			if string(got) != string(want) || cap(got) != cap(want) {
				t.Fatalf("lowerText(%q) into %d bytes after %q = %q, byte-wise %q", texts, size, pre, got, want)
			}
		}
	}
}

// TestLowerTextAsBytewise compares lowerText with the byte-wise reading
// on every sequence of up to three pieces (one text node each, and all
// in one node), and on random ones.
func TestLowerTextAsBytewise(t *testing.T) {
	var seqs [][]string
	var grow func(seq []string)
	grow = func(seq []string) {
		seqs = append(seqs, seq)
		if len(seq) == 3 {
			return
		}
		for _, p := range lowerPieces {
			grow(append(append([]string(nil), seq...), p))
		}
	}
	grow(nil)
	for _, seq := range seqs {
		checkLowerText(t, seq)
		checkLowerText(t, []string{strings.Join(seq, "")})
	}
	rng := rand.New(rand.NewSource(20))
	for range 20000 {
		seq := make([]string, 1+rng.Intn(8))
		for i := range seq {
			var b strings.Builder
			for range 1 + rng.Intn(6) {
				b.WriteString(lowerPieces[rng.Intn(len(lowerPieces))])
			}
			seq[i] = b.String()
		}
		checkLowerText(t, seq)
	}
	// The table says what unicode says on every ASCII byte.
	for c := 0; c < 0x80; c++ {
		r := rune(c)
		switch lowerKinds[c] {
		case lowerSpace:
			if !unicode.IsSpace(r) {
				t.Errorf("%q read as white space", r)
			}
		case lowerUpper:
			if unicode.ToLower(r) != r+'a'-'A' {
				t.Errorf("%q read as a capital", r)
			}
		default:
			if unicode.IsSpace(r) || unicode.ToLower(r) != r {
				t.Errorf("%q read as kept", r)
			}
		}
	}
}

func FuzzLowerText(f *testing.F) {
	f.Add("Follow us on Twitter\u00a0and FACEBOOK", 40)
	f.Fuzz(func(t *testing.T, s string, size int) {
		if size < 0 || size > 2000 {
			return
		}
		n := lowerTree(strings.SplitAfter(s, "|"))
		got := lowerText(n, make([]byte, 0, size))
		want := lowerTextRunes(n, make([]byte, 0, size))
		if string(got) != string(want) {
			t.Fatalf("lowerText(%q, %d) = %q, byte-wise %q", s, size, got, want)
		}
	})
}
