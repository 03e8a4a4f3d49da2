package content

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// lowerTextBytewise is lowerText as it was before lowerKinds, a byte or
// a character at a time: the reference the faster one must equal.
func lowerTextBytewise(n *html.Node, buf []byte) []byte {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s := c.Data
			for i := 0; i < len(s); {
				// ASCII, most of the text, is read a byte at a time
				// (unicode.IsSpace and unicode.ToLower agree with
				// this on it).
				r := rune(s[i])
				if r < utf8.RuneSelf {
					i++
					if isUpper(s[i-1]) {
						r += 'a' - 'A'
					}
				} else {
					var size int
					r, size = utf8.DecodeRuneInString(s[i:])
					i += size
				}
				if unicode.IsSpace(r) {
					if len(buf) > 0 && buf[len(buf)-1] != ' ' && len(buf) < cap(buf) {
						buf = append(buf, ' ')
					}
					continue
				}
				if r < utf8.RuneSelf {
					if len(buf) == cap(buf) {
						return buf
					}
					buf = append(buf, byte(r))
					continue
				}
				r = unicode.ToLower(r)
				if len(buf)+utf8.RuneLen(r) > cap(buf) {
					return buf
				}
				buf = utf8.AppendRune(buf, r)
			}
		case html.ElementNode:
			if c.DataAtom != atom.Script {
				buf = lowerTextBytewise(c, buf)
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
			want := lowerTextBytewise(n, append(make([]byte, 0, size+len(pre)), pre...))
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
	for c := 0; c < utf8.RuneSelf; c++ {
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
		want := lowerTextBytewise(n, make([]byte, 0, size))
		if string(got) != string(want) {
			t.Fatalf("lowerText(%q, %d) = %q, byte-wise %q", s, size, got, want)
		}
	})
}

// labelPieces are the kinds of text the label tests trim and cut: letters,
// each byte and character of the cutsets, other punctuation, no-break
// space, the ellipsis, characters near them, broken bytes.
var labelPieces = []string{"a", "Z", "mehr", " ", "\t", "\n", ":", "!", ".", "?", "…", "»", "«", "›", "‹", "\"", "'",
	"„", "“", "”", "-", "–", "—", "|", ">", "*", "(", ")", "[", "]", ",", "\u00a0", "\u2026x", "\u2027", "é",
	"\xe2", "\xe2\x80", "\xff", "日"}

// TestLabelTrimAsBytes compares trimSet.trimLeft with bytes.TrimLeft and
// firstWordEnd with bytes.IndexAny on every sequence of up to three
// pieces and on random ones.
func TestLabelTrimAsBytes(t *testing.T) {
	check := func(s string) {
		t.Helper()
		b := []byte(s)
		for _, set := range []*trimSet{labelTrimSet, labelStartTrim} {
			if got, want := set.trimLeft(b), bytes.TrimLeft(b, set.cutset); string(got) != string(want) {
				t.Fatalf("trimLeft(%q) by %q = %q, bytes.TrimLeft %q", s, set.cutset, got, want)
			}
		}
		if got, want := firstWordEnd(b), bytes.IndexAny(b, " :!.?…\u00a0"); got != want {
			t.Fatalf("firstWordEnd(%q) = %d, bytes.IndexAny %d", s, got, want)
		}
	}
	check("")
	for _, a := range labelPieces {
		for _, b := range labelPieces {
			for _, c := range labelPieces {
				check(a + b + c)
			}
		}
	}
	rng := rand.New(rand.NewSource(20))
	for range 100000 {
		var s strings.Builder
		for range 1 + rng.Intn(10) {
			s.WriteString(labelPieces[rng.Intn(len(labelPieces))])
		}
		check(s.String())
	}
}
