// Tests of the work the pipeline leaves out (issue 20, i20-crawlA): each
// skip must give what the work would have.

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
		"li", "aside", "section", "b", "br", "img", "header", "main", "th"}
	texts := []string{"word ", "一", "二三", "$", "5", " € 3 ", "£", "9", "\n", " ", "two words", "ข",
		"¥12", "₹", "tab\there", "a,b", "\u00a0", "é", "\v", "\n\n", " \u00a0\u00a0 ", "x\u00a0"}
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
	kept, skipped, peekSkipped, peekShort := 0, 0, 0, 0
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
		artText, _, _, _ := measureTree(art, false, nil, nil)
		artWords := countWords(artText)
		al := newArtLines(artText)
		sig := signals{bodyWords: 1 + rng.Intn(40), h1: "x"}
		for w := range 5 {
			for k := range selectWeights {
				for i := range selectWeights[k] {
					selectWeights[k][i] = rng.NormFloat64() * 0.3
				}
			}
			full := candidates(root, art, art, sig, w%2 == 0, probs, false, nil, nil, nil)
			for i := range full {
				c := &full[i]
				if !c.view {
					continue
				}
				text, _, heads, controls := measureTree(c.src, true, c.strip, nil)
				if words := countWords(text); words > b.maxWords() || heads > b.heads || controls > b.controls || prices(text) > b.signs {
					t.Fatalf("%s view: %d words, %d headings, %d controls, %d prices over the bound %+v (max words %d)\n%s",
						CandidateKinds[c.kind], words, heads, controls, prices(text), *b, b.maxWords(), page)
				}
				// The view's own bounds (peekView) hold too.
				p := peekView(c.src, c.strip, nil)
				pb := p.bound(b)
				if words, lines := countWords(text), strings.Count(text, "\n")+1; words > pb.maxWords() || heads != pb.heads || controls != pb.controls || lines < 1+p.lines {
					t.Fatalf("%s view: %d words, %d lines, %d headings, %d controls; its bound %+v (max words %d), lines %d\n%q\n%s",
						CandidateKinds[c.kind], words, lines, heads, controls, pb, pb.maxWords(), 1+p.lines, text, page)
				}
				if 1+p.lines < strings.Count(text, "\n")+1 {
					peekShort++
				}
				for range 4 {
					cur := rng.Float64()
					may := viewMayWin(c, b, 1, artWords, sig.bodyWords, true, w%2 == 0, al.prose, probs, cur)
					// mayWin as candidates calls it: the compared features
					// still 0.
					f := c.f
					for _, j := range comparedFeatures {
						c.f[j] = 0
					}
					if mayWin(c, cur, text) && !may {
						t.Fatalf("%s view may win (score %v) but its bound says not\n%s", CandidateKinds[c.kind], cur, page)
					}
					mayPeek := viewMayWin(c, &pb, 1+p.lines, artWords, sig.bodyWords, true, w%2 == 0, al.prose, probs, cur)
					if mayWin(c, cur, text) && !mayPeek {
						t.Fatalf("%s view may win (score %v) but its own bound says not\n%s", CandidateKinds[c.kind], cur, page)
					}
					if may && !mayPeek {
						peekSkipped++
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
	if kept == 0 || skipped == 0 || peekSkipped == 0 {
		t.Errorf("the bound kept %d and skipped %d views, the views' own %d more: the test tries nothing", kept, skipped, peekSkipped)
	}
	t.Logf("kept %d, skipped %d, the views' own bounds %d more; %d views' lines over their bound", kept, skipped, peekSkipped, peekShort)
}

// TestViewBoundCountsHalfWords: two texts of one CJK character each
// count no word alone and one joined; the bound holds it.
func TestViewBoundCountsHalfWords(t *testing.T) {
	_, body := parseBody(t, "<html><body><span>一</span><span>二</span></body></html>")
	text, _, _, _ := measureTree(body, true, nil, nil)
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
	if !viewMayWin(c, b, 1, 0, 1, false, false, 0, [len(PageTypes)]float64{}, 2) {
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
	al.proseOf()
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

// randomShortPage writes a random short page (no attempt reaches
// minArticleChars): menus, navs, lists of links, forms and a few
// sentences, some blocks named as unlikely candidates.
func randomShortPage(rng *rand.Rand) string {
	blocks := []string{
		`<nav><a href="/a">Home</a> <a href="/b">About</a></nav>`,
		`<div class="sidebar"><p>Side words, a few of them, here.</p></div>`,
		`<div class="content"><p>A sentence of the page, with a comma, and a full stop.</p></div>`,
		`<ul><li><a href="/x">One link</a></li><li><a href="/y">Another link</a></li></ul>`,
		`<form><input name="q"><button>Search</button></form>`,
		`<div><p>Short text.</p><div><a href="/z">More</a></div></div>`,
		`<table><tr><td><a href="/p">Prev</a></td><td><a href="/n">Next</a></td></tr></table>`,
		`<p>Another paragraph that says a little more about what the page holds.</p>`,
		`<div class="comment"><p>A comment, short.</p></div>`,
		`<div class="sidebar"><p>Words of the sidebar, which says more than the rest of the page, with commas, clauses and more words.</p></div>`,
	}
	var b strings.Builder
	b.WriteString("<html><head><title>T</title></head><body>")
	for k := 1 + rng.Intn(6); k > 0; k-- {
		b.WriteString(blocks[rng.Intn(len(blocks))])
	}
	b.WriteString("</body></html>")
	return b.String()
}

// TestSkippedAttemptsChangeNothing: readableContent, which skips an
// attempt whose flag the one before never acted on, returns what every
// attempt run in turn returns, on random short pages (all four attempts
// matter there), and skips on some of them.
func TestSkippedAttemptsChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	skipped := 0
	for range 300 {
		page := randomShortPage(rng)
		root, _ := parseBody(t, page)
		var f1, f2 extractFacts
		a1, ok1 := readableContent(root, nil, "T", &f1)
		skipRepeats = false
		a2, ok2 := readableContent(root, nil, "T", &f2)
		skipRepeats = true
		// The texts' counts are the pass's work, not its facts.
		f1.tallies.done()
		f2.tallies.done()
		f1.tallies, f2.tallies = nil, nil
		f1.nodes, f2.nodes = nil, nil // the copies' arenas, the pass's too
		if ok1 != ok2 || f1 != f2 || renderString(a1) != renderString(a2) {
			t.Fatalf("%s\nskipping: %v %+v %s\nall: %v %+v %s", page, ok1, f1, renderString(a1), ok2, f2, renderString(a2))
		}
		r := &readable{body: findBody(root), title: "T", bodyLen: -1, bodyOver: -1}
		r.attempt(7)
		if !r.unlikely {
			skipped++
		}
		r.attempt(4)
		if !r.cleaned {
			skipped++
		}
	}
	if skipped == 0 {
		t.Error("no attempt skipped: the test tries nothing")
	}
}

// TestAttemptNotesWhatItActedOn: the first attempt on a page without
// unlikely candidates notes none, and one that drops a <nav> notes it;
// the cleaning notes a removed form.
func TestAttemptNotesWhatItActedOn(t *testing.T) {
	for _, c := range []struct {
		page              string
		unlikely, cleaned bool
	}{
		{`<div><p>Plain words, a sentence.</p></div>`, false, false},
		{`<nav><a href="/">Home</a></nav><div><p>Plain words, a sentence.</p></div>`, true, false},
		{`<div><p>Plain words, a sentence.</p><form><input></form></div>`, false, true},
	} {
		root, _ := parseBody(t, "<html><body>"+c.page+"</body></html>")
		r := &readable{body: findBody(root), bodyLen: -1, bodyOver: -1}
		r.attempt(flagStripUnlikely | flagWeightClasses | flagCleanConditionally)
		if r.unlikely != c.unlikely || r.cleaned != c.cleaned {
			t.Errorf("%s: unlikely %v cleaned %v, want %v %v", c.page, r.unlikely, r.cleaned, c.unlikely, c.cleaned)
		}
	}
}

func renderString(n *html.Node) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return fmt.Sprint(err)
	}
	return b.String()
}

// TestBodyTextIsTextStats: what visit sums for the body is textStats of
// the body without the dropped nodes, to the bit, on random pages with
// links of every weight, blank texts and dropped blocks.
func TestBodyTextIsTextStats(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	pieces := []string{"word", " ", "two words, ", "\n ", `<a href="/x">`, `<a href="#top">`, `<a href="/f.pdf">`, "</a>",
		"<p>", "</p>", "<div>", "</div>", `<nav>`, `</nav>`, `<div class="sidebar">`, "<span>", "</span>", "<br>", "é è"}
	for range 500 {
		var b strings.Builder
		b.WriteString("<html><body>")
		for k := rng.Intn(30); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b.WriteString("</body></html>")
		root, _ := parseBody(t, b.String())
		r := &readable{body: findBody(root), bodyLen: -1, bodyOver: -1}
		for _, flags := range []int{7, 0} {
			r.attempt(flags)
			// attempt's copy leaves the page as it was; visit again for
			// the dropped set of this attempt.
			want := textStats(r.body, r.dropped)
			if r.bodyText.length != want.length || r.bodyText.linkLen != want.linkLen {
				t.Fatalf("%s: visit %+v, textStats %+v", b.String(), r.bodyText, want)
			}
		}
	}
}

// TestCTAHintsHoldBoth: the one reading ctaParagraph makes first finds
// every social network name and every subscribe stem, alone in a text
// or inside one; a paragraph without them is passed over.
func TestCTAHintsHoldBoth(t *testing.T) {
	for _, w := range socialNames {
		for _, s := range []string{w, "see " + w + " now"} {
			if social, _ := ctaHints([]byte(s)); !social {
				t.Errorf("%q: no social network found", s)
			}
		}
	}
	var stems []string
	for _, ws := range subscribeStems.byFirst {
		stems = append(stems, ws...)
	}
	if len(stems) == 0 {
		t.Fatal("no subscribe stems")
	}
	for _, w := range stems {
		for _, s := range []string{w, "see " + w + " now"} {
			if _, subscribe := ctaHints([]byte(s)); !subscribe {
				t.Errorf("%q: no subscribe stem found", s)
			}
		}
	}
	if social, subscribe := ctaHints([]byte("an ordinary sentence, with nothing to sell")); social || subscribe {
		t.Error("an ordinary sentence holds a hint")
	}
	root, _ := parseBody(t, `<html><body><p>Follow us on Twitter and Instagram for more news.</p><p>An ordinary paragraph with nothing to sell.</p></body></html>`)
	var got []bool
	walkElements(root, func(n *html.Node) {
		if n.DataAtom == atom.P {
			got = append(got, ctaParagraph(n))
		}
	})
	if fmt.Sprint(got) != "[true false]" {
		t.Errorf("ctaParagraph %v, want [true false]", got)
	}
}

// TestCopyOverManyChunks: an article of more nodes than one chunk of
// newNode holds is copied whole, its nodes distinct.
func TestCopyOverManyChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><div class=\"content\">")
	for i := range 3 * nodeChunk {
		fmt.Fprintf(&b, "<p>Paragraph %d of the story, with a comma, and some more words to score.</p>", i)
	}
	b.WriteString("</div></body></html>")
	root, _ := parseBody(t, b.String())
	art, ok := readableContent(root, nil, "", nil)
	if !ok {
		t.Fatal("no article")
	}
	seen := map[*html.Node]bool{}
	n := 0
	walkElements(art, func(e *html.Node) {
		if seen[e] {
			t.Fatal("a node twice")
		}
		seen[e] = true
		if e.DataAtom == atom.P {
			n++
		}
	})
	if n != 3*nodeChunk || !strings.Contains(textOf(art), fmt.Sprintf("Paragraph %d of", 3*nodeChunk-1)) {
		t.Errorf("%d paragraphs copied, want %d", n, 3*nodeChunk)
	}
}

// TestCleaningPassesOverRemoved: the elements cleanConditionally judges
// are collected once, before the steps that remove asides and footers;
// a div of links inside a removed aside is not judged (nothing is
// cleaned), while the same div in the article is.
func TestCleaningPassesOverRemoved(t *testing.T) {
	prose := "<p>Plain words of the story, a sentence with a comma, and another one after it.</p>"
	for _, c := range []struct {
		article string
		cleaned bool
	}{
		{`<aside><div><a href="/a">One</a> <a href="/b">Two</a></div></aside>` + prose, false},
		{`<div><a href="/a">One</a> <a href="/b">Two</a></div>` + prose, true},
	} {
		root, _ := parseBody(t, "<html><body><div>"+c.article+"</div></body></html>")
		art := cloneTree(findBody(root).FirstChild)
		r := &readable{body: findBody(root), bodyLen: -1, bodyOver: -1, flags: flagCleanConditionally}
		r.prepare(art)
		if r.cleaned != c.cleaned || strings.Contains(textOf(art), "One") {
			t.Errorf("%s: cleaned %v (want %v), text %q", c.article, r.cleaned, c.cleaned, textOf(art))
		}
	}
}

// TestPageFeaturesBound checks that the body's bounds pageFeaturesBound
// takes from pageFeatures's walk are boundBody's, and that taking them
// leaves pageFeatures's result as it is, on random pages with JSON-LD
// scripts (which pageFeatures does not walk), scripts in SVG holding
// elements, selects, text areas and hidden inputs.
func TestPageFeaturesBound(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	extras := []string{`<script type="application/ld+json">{"name": "A $5 thing 一二 €3"}</script>`,
		`<svg><script type="application/ld+json"><h3>x</h3><a>$1</a></script></svg>`,
		`<select><option>£2</option></select>`, `<textarea>a b</textarea>`, `<input type="hidden">`,
		`<h6>six</h6>`, `<h4>four</h4>`}
	for i := range 300 {
		page := boundPage(rng)
		for k := rng.Intn(4); k > 0; k-- {
			page = strings.Replace(page, "<body>", "<body>"+extras[rng.Intn(len(extras))], 1)
		}
		if i%3 == 0 {
			page = strings.Replace(page, "</body>", extras[rng.Intn(len(extras))]+"</body>", 1)
		}
		root, body := parseBody(t, page)
		want := boundBody(body)
		var got viewBound
		f := pageFeaturesBound(root, nil, nil, "", &got, nil)
		if got != *want {
			t.Fatalf("pageFeaturesBound's bound %+v, boundBody's %+v\n%s", got, *want, page)
		}
		if g := pageFeatures(root, nil, nil, ""); g != f {
			t.Fatalf("features with the bound %v, without %v\n%s", f, g, page)
		}
	}
}

// TestArtLinesWords checks newArtLines's word counts, the text's and
// its prose lines', against countWords on random texts of lines with
// CJK characters, vertical tabs, other white space and broken bytes.
func TestArtLinesWords(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	parts := []string{"word", " ", "\n", "一", "二三", "\v", "\u00a0", "é", "\xe4\xb8", "\xc3", "a,b", "\t", "ข", "$5",
		strings.Repeat("long line of words ", 6)}
	for range 3000 {
		var b strings.Builder
		for k := rng.Intn(40); k >= 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		text := b.String()
		al := newArtLines(text)
		prose := 0
		for l := range strings.SplitSeq(text, "\n") {
			if w := countWords(collapse(l)); w >= proseLineWords {
				prose += w
			}
		}
		if al.words != countWords(text) || al.prose != prose {
			t.Fatalf("%q: words %d prose %d, want %d %d", text, al.words, al.prose, countWords(text), prose)
		}
	}
}

// TestBodyStripsReadsOnce compares bodyStrips, which reads a class or id
// value once, with its definition (Landmark, a form, BoilerplateName of
// the class or the id) on elements with random tags, roles and names
// made of the boilerplate and header words and others.
func TestBodyStripsReadsOnce(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	words := []string{"nav", "Header", "masthead", "share", "menu", "content", "post", "headerBar", "mastheadX",
		"footer", "x", "", "ad", "HEADER", "main", "sidebar"}
	seps := []string{" ", "-", "_", "", "1"}
	name := func() string {
		var b strings.Builder
		for k := rng.Intn(4); k > 0; k-- {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteString(seps[rng.Intn(len(seps))])
		}
		return b.String()
	}
	tags := []atom.Atom{atom.Div, atom.Header, atom.Nav, atom.Form, atom.Section, atom.Span}
	strips := 0
	for range 20000 {
		a := tags[rng.Intn(len(tags))]
		n := &html.Node{Type: html.ElementNode, Data: a.String(), DataAtom: a}
		if rng.Intn(2) == 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "class", Val: name()})
		}
		if rng.Intn(3) == 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "id", Val: name()})
		}
		if rng.Intn(8) == 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "role", Val: []string{"navigation", "main", "banner"}[rng.Intn(3)]})
		}
		for _, in := range []bool{false, true} {
			want := Landmark(n, in) || n.DataAtom == atom.Form ||
				BoilerplateName(attr(n, "class"), in) || BoilerplateName(attr(n, "id"), in)
			if got := bodyStrips(n, in); got != want {
				t.Fatalf("%v (in article %v): bodyStrips %v, want %v", n.Attr, in, got, want)
			}
			if want {
				strips++
			}
		}
	}
	if strips == 0 || strips == 40000 {
		t.Errorf("%d of 40000 strip: the test tries nothing", strips)
	}
}
