package content

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// boundPage writes a random page of nested blocks, links, headings,
// controls, landmarks and texts with CJK characters, currency signs
// and white space.
func boundPage(rng *rand.Rand) string {
	tags := []string{"div", "p", "span", "a", "h1", "h2", "h5", "nav", "footer", "article", "pre", "td", "form",
		"li", "aside", "section", "b"}
	texts := []string{"word ", "一", "二三", "$", "5", " € 3 ", "£", "9", "\n", " ", "two words", "ข",
		"¥12", "₹", "tab\there", "a,b", "\u00a0", "é"}
	var b strings.Builder
	b.WriteString("<html><body>")
	var node func(depth int)
	node = func(depth int) {
		for k := rng.Intn(4); k >= 0; k-- {
			if depth > 6 || rng.Intn(3) == 0 {
				b.WriteString(texts[rng.Intn(len(texts))])
				continue
			}
			switch rng.Intn(12) {
			case 0:
				b.WriteString("<input>")
				continue
			case 1:
				b.WriteString("<button>Go</button>")
				continue
			}
			tag := tags[rng.Intn(len(tags))]
			switch tag {
			case "a":
				fmt.Fprintf(&b, `<a href="/x%d">`, rng.Intn(5))
			case "div":
				fmt.Fprintf(&b, `<div class="%s">`, []string{"", "share", "menu", "content", "post-meta"}[rng.Intn(5)])
			default:
				b.WriteString("<" + tag + ">")
			}
			node(depth + 1)
			b.WriteString("</" + tag + ">")
		}
	}
	node(0)
	b.WriteString("</body></html>")
	return b.String()
}

// TestViewBoundHolds checks on random pages that what boundBody takes
// of the body bounds what each view measures, and that viewMayWin keeps
// every view mayWin keeps once measured, for random weights.
func TestViewBoundHolds(t *testing.T) {
	saved := selectWeights
	defer func() { selectWeights = saved }()
	rng := rand.New(rand.NewSource(1))
	var probs [len(PageTypes)]float64
	probs[typeIndex(TypeProduct)] = 0.6
	probs[typeIndex(TypeListing)] = 0.4
	kept, skipped := 0, 0
	for range 400 {
		page := boundPage(rng)
		root, body := parseBody(t, page)
		b := boundBody(body)
		if b.broken {
			t.Fatalf("valid text reads as broken: %q", page)
		}
		art := cloneTree(body)
		art.Data = "div"
		// A random half of the body's blocks is the article.
		for c := art.FirstChild; c != nil; {
			next := c.NextSibling
			if rng.Intn(2) == 0 {
				art.RemoveChild(c)
			}
			c = next
		}
		artText, _, _, _ := measureTree(art, false, nil)
		artWords := countWords(artText)
		al := newArtLines(artText)
		sig := signals{bodyWords: 1 + rng.Intn(40), h1: "x"}
		for w := range 5 {
			for k := range selectWeights {
				for i := range selectWeights[k] {
					selectWeights[k][i] = rng.NormFloat64() * 0.3
				}
			}
			full := candidates(root, art, art, sig, w%2 == 0, probs, false, nil)
			for i := range full {
				c := &full[i]
				if !c.view {
					continue
				}
				text, _, heads, controls := measureTree(c.src, true, c.strip)
				if words := countWords(text); words > b.maxWords() || heads > b.heads || controls > b.controls || prices(text) > b.signs {
					t.Fatalf("%s view: %d words, %d headings, %d controls, %d prices over the bound %+v (max words %d)\n%s",
						CandidateKinds[c.kind], words, heads, controls, prices(text), *b, b.maxWords(), page)
				}
				for range 4 {
					cur := rng.Float64()
					may := viewMayWin(c, b, artWords, sig.bodyWords, true, w%2 == 0, al.prose, probs, cur)
					// mayWin as candidates calls it: the compared features
					// still 0.
					f := c.f
					for _, j := range comparedFeatures {
						c.f[j] = 0
					}
					if mayWin(c, cur, text) && !may {
						t.Fatalf("%s view may win (score %v) but its bound says not\n%s", CandidateKinds[c.kind], cur, page)
					}
					c.f = f
					if may {
						kept++
					} else {
						skipped++
					}
				}
			}
		}
	}
	if kept == 0 || skipped == 0 {
		t.Errorf("the bound kept %d and skipped %d views: the test tries nothing", kept, skipped)
	}
}

// TestViewBoundCountsHalfWords: two texts of one CJK character each
// count no word alone and one joined; the bound holds it.
func TestViewBoundCountsHalfWords(t *testing.T) {
	_, body := parseBody(t, "<html><body><span>一</span><span>二</span></body></html>")
	text, _, _, _ := measureTree(body, true, nil)
	b := boundBody(body)
	if w := countWords(text); w != 1 || b.words != 0 || b.maxWords() < w {
		t.Errorf("text %q: %d words, bound %+v max %d", text, w, *b, b.maxWords())
	}
}

// TestViewBoundBroken: a text ending inside a character lets every view
// win.
func TestViewBoundBroken(t *testing.T) {
	body := &html.Node{Type: html.ElementNode, Data: "body"}
	body.AppendChild(&html.Node{Type: html.TextNode, Data: "price \xe2\x82"})
	body.AppendChild(&html.Node{Type: html.TextNode, Data: "\xac 5"})
	b := boundBody(body)
	if !b.broken {
		t.Fatalf("bound %+v: not broken", *b)
	}
	c := &candidate{kind: kBody, view: true}
	if !viewMayWin(c, b, 0, 1, false, false, 0, [len(PageTypes)]float64{}, 2) {
		t.Error("a broken text's view cannot win")
	}
}

// TestBoundBodyDeep: a page nested 20,000 elements deep is walked.
func TestBoundBodyDeep(t *testing.T) {
	body := &html.Node{Type: html.ElementNode, Data: "body"}
	n := body
	for range 20000 {
		k := &html.Node{Type: html.ElementNode, Data: "h2", DataAtom: atom.H2}
		n.AppendChild(k)
		n = k
	}
	n.AppendChild(&html.Node{Type: html.TextNode, Data: "$1 一"})
	if b := boundBody(body); b.heads != 20000 || b.words != 1 || b.signs != 1 || b.high != 1 {
		t.Errorf("bound %+v", *b)
	}
}

// TestArtLinesProse checks newArtLines's prose lines against their
// definition: each line collapsed, then its words counted; a vertical
// tab splits words only once collapsed.
func TestArtLinesProse(t *testing.T) {
	long := strings.Repeat("word ", 19)
	text := strings.Join([]string{
		long + "end",                   // 20 words
		long,                           // 19
		strings.Repeat("a\vb ", 10),    // 10 words raw, 20 collapsed
		"  " + long + "\u00a0tail  ",   // 20, trimmed when collapsed
		strings.Repeat("一", 40) + " x", // 20 + 1
		"",
	}, "\n")
	al := newArtLines(text)
	var lines []string
	var words []int
	prose := 0
	for l := range strings.SplitSeq(text, "\n") {
		l = collapse(l)
		if w := countWords(l); w >= proseLineWords {
			lines, words, prose = append(lines, l), append(words, w), prose+w
		}
	}
	if al.prose != prose || strings.Join(al.proseLines, "|") != strings.Join(lines, "|") || fmt.Sprint(al.proseWords) != fmt.Sprint(words) {
		t.Errorf("prose %d %q %v, want %d %q %v", al.prose, al.proseLines, al.proseWords, prose, lines, words)
	}
	if all := al.all(); len(all) != 6 || !all[collapse(long)] || !all[""] {
		t.Errorf("all lines: %v", all)
	}
}
