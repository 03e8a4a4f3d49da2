package content

import (
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// withinTexts are the pieces the tests below make texts of: ASCII words
// and runs of white space, control characters, commas, multi-byte
// characters and white space, CJK.
var withinTexts = []string{"word", " ", "   \n ", "a, b", "€", "日本語のテキスト", "\u00a0", "\u2003", "\x01", "\v", "x",
	"\t", "ab,cd", "é", strings.Repeat("x ", 40), strings.Repeat("long", 30), ""}

func withinText(rng *rand.Rand) string {
	var b strings.Builder
	for k := rng.Intn(40); k > 0; k-- {
		b.WriteString(withinTexts[rng.Intn(len(withinTexts))])
	}
	return b.String()
}

// TestCountLength: countLength is countText's length of a text alone
// when within room, and tells over only when that length is over room.
func TestCountLength(t *testing.T) {
	rng := rand.New(rand.NewSource(20))
	for range 20000 {
		s := withinText(rng)
		var st stats
		countText(s, 0, &st)
		for _, room := range []int{0, 1, 7, 15, 30, 100, 300, 1 << 30} {
			n, over := countLength(s, room)
			if over && (st.length <= room || n <= room || n > st.length) || !over && n != st.length {
				t.Fatalf("%q room %d: countLength %d %v, countText %d", s, room, n, over, st.length)
			}
		}
		// A prefix cut anywhere, a character's bytes split too.
		if len(s) > 0 {
			p := s[:rng.Intn(len(s))]
			var pst stats
			countText(p, 0, &pst)
			if n, over := countLength(p, 1<<30); over || n != pst.length {
				t.Fatalf("%q: countLength %d, countText %d", p, n, pst.length)
			}
		}
	}
}

// textWithinCounted is textWithin as it was, with countText: the
// reference for TestTextWithin.
func textWithinCounted(n *html.Node, limit int) int {
	var st stats
	var add func(n *html.Node) bool
	add = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if s := c.Data; len(s) > 4*(limit+1) {
					var pre stats
					countText(s[:4*(limit+1)], 0, &pre)
					if st.length+pre.length > limit {
						return false
					}
				}
				countText(c.Data, 0, &st)
			case html.ElementNode:
				if c.DataAtom != atom.Script && !add(c) {
					return false
				}
			}
			if st.length > limit {
				return false
			}
		}
		return true
	}
	if !add(n) {
		return -1
	}
	return st.length
}

// TestTextWithin: textWithin, which stops counting a text once over its
// limit, gives what it gave when it counted each text to its end, on
// generated trees (scripts, long and multi-byte texts, white space).
func TestTextWithin(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	var grow func(n *html.Node, depth int)
	grow = func(n *html.Node, depth int) {
		for k := rng.Intn(5); k > 0; k-- {
			if depth < 4 && rng.Intn(3) == 0 {
				e := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
				if rng.Intn(6) == 0 {
					e.Data, e.DataAtom = "script", atom.Script
				}
				n.AppendChild(e)
				grow(e, depth+1)
				continue
			}
			n.AppendChild(&html.Node{Type: html.TextNode, Data: withinText(rng)})
		}
	}
	for range 5000 {
		root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		grow(root, 0)
		for _, limit := range []int{0, 10, 30, 80, 100, 200, 300} {
			if got, want := textWithin(root, limit), textWithinCounted(root, limit); got != want {
				t.Fatalf("limit %d: textWithin %d, want %d", limit, got, want)
			}
		}
	}
}

// TestTallies: tallies give countText's counts of every text, whether
// recorded, recorded earlier than the last found, changed or never
// recorded, and count(s) is countText(s) on any stats; a look-up passes
// over a bounded number of entries.
func TestTallies(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for range 2000 {
		var tl tallies
		texts := make([]string, rng.Intn(40))
		for i := range texts {
			texts[i] = withinText(rng)
			if len(texts[i]) >= tallyMin && rng.Intn(4) > 0 {
				var st stats
				countText(texts[i], 0, &st)
				tl.add(texts[i], st.length, st.commas)
			}
		}
		for walk := range 3 {
			tl.rewind()
			var got, want stats
			for range len(texts) {
				var s string
				switch k := rng.Intn(10); {
				case k < 6 && len(texts) > 0:
					s = texts[rng.Intn(len(texts))] // maybe out of order
				case k < 8:
					s = withinText(rng) // not recorded
				default:
					s = strings.Repeat(" x,", 10+walk) // equal content, another string
				}
				link := []float64{0, 0.3, 1}[rng.Intn(3)]
				tl.count(s, link, &got)
				countText(s, link, &want)
				if got != want {
					t.Fatalf("%q: tallies %+v, countText %+v", s, got, want)
				}
			}
			if tl.passed > 4*len(tl.list)+64+len(tl.list) {
				t.Fatalf("look-ups passed %d entries of %d", tl.passed, len(tl.list))
			}
		}
	}
	// A nil tallies counts.
	var nt *tallies
	var got, want stats
	s := strings.Repeat("word, ", 20)
	nt.count(s, 1, &got)
	countText(s, 1, &want)
	if got != want {
		t.Fatalf("nil tallies %+v, countText %+v", got, want)
	}
}

// TestTextCountsFind: find gives countWords of every text, whether in
// the list, before the last found, or not there at all, and a walk's
// look-ups pass over a bounded number of texts.
func TestTextCountsFind(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	for range 2000 {
		var tc textCounts
		texts := make([]string, rng.Intn(40))
		for i := range texts {
			texts[i] = withinText(rng)
			if rng.Intn(4) > 0 {
				tc.list = append(tc.list, textCount{texts[i], countWords(texts[i])})
			}
		}
		for range 3 {
			tc.rewind()
			for range len(texts) {
				var s string
				if rng.Intn(3) > 0 && len(texts) > 0 {
					s = texts[rng.Intn(len(texts))]
				} else {
					s = withinText(rng)
				}
				if got, want := tc.find(s), countWords(s); got != want {
					t.Fatalf("%q: find %d, countWords %d", s, got, want)
				}
			}
			if tc.passed > 4*len(tc.list)+64 {
				t.Fatalf("look-ups passed %d texts of %d", tc.passed, len(tc.list))
			}
		}
	}
	var nt *textCounts
	if s := "a few words, and more of them"; nt.find(s) != countWords(s) {
		t.Fatal("nil textCounts")
	}
}
