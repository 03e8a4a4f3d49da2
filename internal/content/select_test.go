package content

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func parseBody(t *testing.T, page string) (*html.Node, *html.Node) {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	body := findBody(root)
	if body == nil {
		t.Fatal("no body")
	}
	return root, body
}

const productPage = `<html><head><title>Shop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"BreadcrumbList"},
{"@type":["Product"],"name":"Trail Runner 3","description":"A light shoe for rocky paths.",
"offers":[{"@type":"Offer","price":89.5,"priceCurrency":"EUR","availability":"https://schema.org/InStock"}]}]}</script>
</head><body>
<nav><a href="/">Home</a> <a href="/men">Men</a> <a href="/women">Women</a> <a href="/sale">Sale</a></nav>
<div class="layout">
 <div class="product">
  <h1>Trail Runner 3</h1>
  <p class="price">€89.50</p>
  <nav class="tabs"><a href="#d">Description</a> <a href="#s">Specifications</a></nav>
  <div id="d"><p>A light shoe for rocky paths, with a grippy sole and a breathable upper that dries fast after a creek crossing.</p></div>
  <table id="s"><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table>
 </div>
 <aside><h2>Others bought</h2><a href="/a">Road Runner</a> <a href="/b">Sky Runner</a></aside>
</div>
<footer class="cookie-notice"><p>We use cookies to improve the shop.</p><form><button>Accept</button></form></footer>
</body></html>`

func TestH1RegionTakesTheProductBlock(t *testing.T) {
	_, body := parseBody(t, productPage)
	r := h1Region(body)
	if r == nil {
		t.Fatal("h1Region: nil")
	}
	got := textOf(r)
	for _, want := range []string{"Trail Runner 3", "€89.50", "grippy sole", "280 g"} {
		if !strings.Contains(got, want) {
			t.Errorf("h1 region lacks %q:\n%s", want, got)
		}
	}
	// The smallest ancestor holding half the page's words outside
	// links is the product block: not the layout with its aside, and
	// without the tabs' <nav>.
	for _, unwanted := range []string{"Others bought", "Description", "cookies", "Sale"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("h1 region holds %q:\n%s", unwanted, got)
		}
	}
}

func TestH1RegionNeedsAnH1(t *testing.T) {
	_, body := parseBody(t, `<body><div><h2>T</h2><p>text</p></div></body>`)
	if r := h1Region(body); r != nil {
		t.Errorf("h1Region without <h1> = %q, want nil", textOf(r))
	}
}

func TestBodyWithoutLandmarks(t *testing.T) {
	_, body := parseBody(t, productPage)
	got := textOf(bodyWithoutLandmarks(body))
	for _, want := range []string{"Trail Runner 3", "grippy sole", "280 g"} {
		if !strings.Contains(got, want) {
			t.Errorf("body candidate lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"Sale", "Others bought", "cookies", "Accept"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("body candidate holds %q:\n%s", unwanted, got)
		}
	}
	if findBody(body) != body || textOf(body) == got {
		t.Error("bodyWithoutLandmarks changed the page's body")
	}
}

func TestProductContentAddsWhatTheArticleLacks(t *testing.T) {
	root, body := parseBody(t, productPage)
	var desc *html.Node
	walkElements(body, func(n *html.Node) {
		if attr(n, "id") == "d" {
			desc = n
		}
	})
	art := cloneTree(desc)
	k := productContent(root, art, textOf(art))
	if k == nil {
		t.Fatal("productContent: nil")
	}
	got := textOf(k)
	for _, want := range []string{"Trail Runner 3", "89.5 EUR", "InStock", "grippy sole"} {
		if !strings.Contains(got, want) {
			t.Errorf("product candidate lacks %q:\n%s", want, got)
		}
	}
	// The JSON-LD description is the article's own text: not twice.
	if strings.Count(got, "A light shoe for rocky paths") != 1 {
		t.Errorf("description repeated:\n%s", got)
	}
	root2, _ := parseBody(t, `<body><p>no product here</p></body>`)
	if k := productContent(root2, art, textOf(art)); k != nil {
		t.Errorf("productContent without a Product = %q, want nil", textOf(k))
	}
}

func TestJSONLDProductPriceForms(t *testing.T) {
	for _, c := range []struct{ ld, price string }{
		{`{"@type":"Product","name":"a","offers":{"price":"12.00"}}`, "12.00"},
		{`{"@type":"Product","name":"a","offers":{"@type":"AggregateOffer","lowPrice":7}}`, "7"},
		{`[{"@type":"WebPage","mainEntity":{"@type":"Product","name":"a","offers":[{"price":1e3}]}}]`, "1000"},
	} {
		root, _ := parseBody(t, `<html><head><script type="application/ld+json">`+c.ld+`</script></head><body></body></html>`)
		p, ok := jsonLDProduct(root)
		if !ok || p.price != c.price {
			t.Errorf("%s: price %q (found %v), want %q", c.ld, p.price, ok, c.price)
		}
	}
}

// TestPickNeedsTheMargin checks the choice among candidates: the best
// predicted candidate replaces the current one only when it is predicted
// better by selectMargin or more.
func TestPickNeedsTheMargin(t *testing.T) {
	saved := selectWeights
	defer func() { selectWeights = saved }()
	cur, h1 := &html.Node{}, &html.Node{}
	cs := []candidate{{kind: kArticle, node: cur}, {kind: kH1, node: h1}}
	for i := range cs {
		cs[i].f[sBias] = 1
	}
	selectWeights = [numKinds][numSelectFeatures]float64{}
	selectWeights[kH1][sBias] = 2 // predicted 0.88 against 0.5
	if got := pick(cs, cur); got != 1 {
		t.Errorf("pick = %d, want the h1 region (1)", got)
	}
	selectWeights[kH1][sBias] = 0.001 // the same as the article, give or take
	if got := pick(cs, cur); got != -1 {
		t.Errorf("pick within the margin = %d, want -1 (keep the current choice)", got)
	}
}

func TestSelectableLeavesThreadsAndArticles(t *testing.T) {
	art, thread := &html.Node{}, &html.Node{}
	var probs [len(PageTypes)]float64
	probs[typeIndex(TypeProduct)] = 0.9
	probs[typeIndex(TypeArticle)] = 0.1
	if !judged(art, art, probs) {
		t.Error("a product page's article is not judged")
	}
	if judged(art, thread, probs) {
		t.Error("a profile's copy on a page not taken for items is judged (the forum thread)")
	}
	probs[typeIndex(TypeProduct)] = 0.1
	probs[typeIndex(TypeForum)] = 0.8
	if judged(art, art, probs) {
		t.Error("a page taken for a forum is judged")
	}
	probs[typeIndex(TypeForum)] = 0
	probs[typeIndex(TypeArticle)] = 0.9
	if judged(art, art, probs) {
		t.Error("a confident article is judged")
	}
	if judged(nil, nil, probs) {
		t.Error("a page without a choice is judged")
	}
}

func TestCandidatesOfAProductPage(t *testing.T) {
	cs, probs, err := Candidates([]byte(productPage), "https://shop.example/p/trail-runner-3")
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != len(PageTypes) {
		t.Fatalf("%d probabilities, want %d", len(probs), len(PageTypes))
	}
	kinds := map[string]Candidate{}
	current := 0
	for _, c := range cs {
		kinds[c.Kind] = c
		if c.Current {
			current++
		}
		if len(c.Features) != len(SelectFeatureNames) {
			t.Errorf("%s: %d features, want %d", c.Kind, len(c.Features), len(SelectFeatureNames))
		}
	}
	if current != 1 {
		t.Errorf("%d current candidates, want 1", current)
	}
	for _, k := range []string{"article", "body", "h1"} {
		if strings.TrimSpace(kinds[k].Text) == "" {
			t.Errorf("no %s candidate text", k)
		}
	}
	if !strings.Contains(kinds["h1"].Text, "€89.50") {
		t.Errorf("h1 candidate lacks the price:\n%s", kinds["h1"].Text)
	}
}

// TestSelectorKeepsTheItemRegion checks that the item profile's region,
// like the forum profile's thread, is not judged: on a page taken for a
// collection whose current choice is the profile's copy, the selector
// leaves it.
func TestSelectorKeepsTheItemRegion(t *testing.T) {
	art, region := &html.Node{}, &html.Node{}
	var probs [len(PageTypes)]float64
	probs[typeIndex(TypeCollection)] = 0.9
	probs[typeIndex(TypeArticle)] = 0.05
	if judged(art, region, probs) {
		t.Error("the item profile's region is judged")
	}
	if !judged(art, art, probs) {
		t.Error("the article of a page taken for a collection is not judged")
	}
}

// proseArticlePage is an article of three paragraphs of prose between a
// menu and a footer of links.
const proseArticlePage = `<html><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></nav>
<div id="story">
<p>The river rose overnight after three days of rain in the hills, and by morning the water had reached the steps of the old mill on the north bank of the town.</p>
<p>Volunteers filled sandbags in the market square while the fire brigade pumped water out of the cellars along the lower street, where most of the shops keep their stock.</p>
<p>The council said the bridge would stay closed until engineers had inspected its piers, which were last repaired after the floods of the winter twelve years ago.</p>
</div>
<div class="more"><a href="/a">Weather warnings for the weekend</a><br><a href="/b">Road closures</a><br><a href="/c">Contact us</a></div>
</body></html>`

// TestAddedFeatures checks the features that compare a candidate with
// the article line by line: a wider region that adds short lines of
// links to whole prose, and a narrower one that drops prose.
func TestAddedFeatures(t *testing.T) {
	_, body := parseBody(t, proseArticlePage)
	var story *html.Node
	walkElements(body, func(n *html.Node) {
		if attr(n, "id") == "story" {
			story = n
		}
	})
	art := cloneTree(story)
	artText := textOf(art)
	cs := candidates(body.Parent.Parent, art, art, signals{}, true, [len(PageTypes)]float64{}, false, nil, nil, nil)
	var wider *candidate
	for i := range cs {
		if cs[i].kind == kBody {
			wider = &cs[i]
		}
	}
	if wider == nil {
		t.Fatal("no body candidate")
	}
	f := wider.f
	// The body adds the "more" links (three short lines, all link text)
	// to the story; the menu is a landmark and goes.
	extraWords := countWords("Weather warnings for the weekend Road closures Contact us")
	if want := float64(extraWords) / float64(countWords(textOf(wider.tree()))); math.Abs(f[sExtraShare]-want) > 0.02 {
		t.Errorf("share of added words %.3f, want %.3f", f[sExtraShare], want)
	}
	if f[sExtraShort] != 1 {
		t.Errorf("share of added words in short lines %.3f, want 1", f[sExtraShort])
	}
	if f[sExtraLinks] < 0.9 {
		t.Errorf("link density of what it adds %.3f, want about 1", f[sExtraLinks])
	}
	if want := math.Log1p(float64(countWords(artText))); math.Abs(f[sArticleProse]-want) > 1e-9 {
		t.Errorf("log words of the article's prose %.3f, want %.3f (every line is prose)", f[sArticleProse], want)
	}
	if f[sDroppedProse] != 0 {
		t.Errorf("a superset drops %.3f of the prose, want 0", f[sDroppedProse])
	}
	// A candidate holding the first paragraph only drops two thirds of
	// the prose and adds nothing.
	first := cloneTree(story)
	for first.LastChild != nil && first.LastChild != first.FirstChild.NextSibling {
		first.RemoveChild(first.LastChild)
	}
	var g selectFeatures
	al := newArtLines(artText)
	text := textOf(first)
	addedFeatures(&g, text, countWords(text), textStats(first, nil), &al, textStats(art, nil))
	if g[sExtraShare] != 0 {
		t.Errorf("a subset adds %.3f of its words, want 0", g[sExtraShare])
	}
	if g[sDroppedProse] < 0.6 || g[sDroppedProse] > 0.7 {
		t.Errorf("the first paragraph drops %.3f of the prose, want about 2/3", g[sDroppedProse])
	}
}

// TestArtBagIsShared checks that the article's word counts give
// shared's figures in both directions from one overlap, for words in
// any case and script.
func TestArtBagIsShared(t *testing.T) {
	for _, c := range [][2]string{
		{"the cat sat on the mat", "The cat and the dog"},
		{"a a a b", "a b b"},
		{"", "words here"},
		{"one", ""},
		{"Straße STRASSE straße", "STRAßE straße Straße"},
		{"ÉCOLE école İstanbul istanbul", "école École i̇stanbul ÉCOLE"},
		{"A\u00a0b c\u2028D", "a B\u00a0C d"},
		{"bad \xff\xfe bytes", "BAD \ufffd\ufffd Bytes \xff\xfe"},
	} {
		bag := newArtBag(c[0])
		in, n := bag.overlap(c[1])
		if got, want := shareOf(in, bag.n), shared(c[0], c[1]); got != want {
			t.Errorf("%q in %q: %v, shared %v", c[0], c[1], got, want)
		}
		if got, want := shareOf(in, n), shared(c[1], c[0]); got != want {
			t.Errorf("%q in %q: %v, shared %v", c[1], c[0], got, want)
		}
	}
}

// viewPage has what the copies of the candidates drop: landmarks,
// boilerplate names and a form in the body, scripts, an iframe and a
// template, a <header> inside and outside an <article>, and text in
// <pre> and with other white space.
const viewPage = `<html><body>
<header class="site"><a href="/">Home</a></header>
<div class="wrap">
 <article>
  <header><h1>The  Title&nbsp;here</h1><p>By someone</p></header>
  <p>First <b>para</b>graph with a <a href="/x">link</a> and <script>var x = 1;</script>more text.</p>
  <iframe src="/ad">fallback text</iframe><template><h2>hidden</h2></template>
  <div class="share-bar"><a href="/s">Share</a></div>
  <pre>  code   line
  two</pre>
  <form><input name="q"><button>Go</button></form>
  <ul class="items"><li class="item"><a href="/1"><img src="1.jpg">One thing</a> $5</li>
  <li class="item"><a href="/2"><img src="2.jpg">Two thing</a> $6</li>
  <li class="item"><a href="/3"><img src="3.jpg">Three thing</a> $7</li>
  <li class="item"><a href="/4"><img src="4.jpg">Four thing</a> $8</li></ul>
 </article>
 <aside>Side</aside>
</div>
<footer>Foot</footer>
</body></html>`

// TestViewsMeasureAsTheirCopies checks that a candidate measured on the
// page's own tree without what its copy drops (viewDrops) reads as the
// copy: the same text, text statistics and elements.
func TestViewsMeasureAsTheirCopies(t *testing.T) {
	for _, page := range []string{viewPage, productPage, proseArticlePage} {
		_, body := parseBody(t, page)
		before := textOf(body)
		type view struct {
			name      string
			src, copy *html.Node
			strip     func(*html.Node, bool) bool
		}
		views := []view{{"body", body, bodyWithoutLandmarks(body), bodyStrips}}
		if r := h1RegionRoot(body, nil); r != nil {
			views = append(views, view{"h1", r, h1Copy(r), Landmark})
		}
		if g := itemRegionRoot(body); g != nil {
			views = append(views, view{"items", g, itemRegion(body), nil})
		}
		for _, v := range views {
			text, st, heads, controls := measureTree(v.src, true, v.strip, nil)
			if want := textOf(v.copy); text != want {
				t.Errorf("%s: view text\n%q\ncopy text\n%q", v.name, text, want)
			}
			if want := textStats(v.copy, nil); st != want {
				t.Errorf("%s: view stats %+v, copy stats %+v", v.name, st, want)
			}
			var h, k int
			walkElements(v.copy, func(n *html.Node) {
				switch n.DataAtom {
				case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
					h++
				case atom.Form, atom.Input, atom.Button, atom.Select, atom.Textarea:
					k++
				}
			})
			if heads != h || controls != k {
				t.Errorf("%s: view %d headings, %d controls; copy %d, %d", v.name, heads, controls, h, k)
			}
			// Measured as a detached tree, the copy reads the same.
			if ct, cst, ch, ck := measureTree(v.copy, false, nil, nil); ct != text || cst != st || ch != h || ck != k {
				t.Errorf("%s: the copy measures %q %+v %d %d", v.name, ct, cst, ch, ck)
			}
		}
		if textOf(body) != before {
			t.Error("measuring the views changed the page")
		}
	}
	// The page has something for each kind of drop to do.
	_, body := parseBody(t, viewPage)
	text, _, _, controls := measureTree(body, true, bodyStrips, nil)
	for _, unwanted := range []string{"Home", "Share", "Side", "Foot"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the body's view holds %q", unwanted)
		}
	}
	if controls != 0 {
		t.Errorf("the body's view holds %d form controls, want 0", controls)
	}
}

// TestSelectorCopiesOnlyTheWinner checks that candidates measures the
// regions of the body without copying them, and that the copy the
// selector returns is the winner's, detached from the page.
func TestSelectorCopiesOnlyTheWinner(t *testing.T) {
	root, body := parseBody(t, viewPage)
	art := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	art.AppendChild(line("By someone"))
	cs := candidates(root, art, art, signals{}, true, [len(PageTypes)]float64{}, false, nil, nil, nil)
	views := 0
	for i := range cs {
		c := &cs[i]
		switch c.kind {
		case kItems, kBody, kH1:
			views++
			if c.node != nil {
				t.Errorf("%s: copied before the choice", CandidateKinds[c.kind])
			}
			n := c.tree()
			if n == nil || n.Parent != nil || n == c.src {
				t.Errorf("%s: tree is not a detached copy", CandidateKinds[c.kind])
			}
			if c.tree() != n {
				t.Errorf("%s: copied twice", CandidateKinds[c.kind])
			}
		}
	}
	if views != 3 {
		t.Errorf("%d candidates of the body's regions, want 3 (items, body, h1)", views)
	}
	if findBody(root) != body || !strings.Contains(textOf(body), "Foot") {
		t.Error("the candidates changed the page")
	}
}

// TestCollapseLineIsCollapse checks collapseLine against collapse.
func TestCollapseLineIsCollapse(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\vb", "a\u00a0b",
		"\u00a0a", "a\u2028", "é è", "é  è", "bad\xffbyte", "\xc2", "a\u0085b", "line one two three"} {
		if got, want := collapseLine(s), collapse(s); got != want {
			t.Errorf("collapseLine(%q) = %q, collapse %q", s, got, want)
		}
	}
}

// TestH1Match checks h1Match.in against
// strings.Contains(collapse(text), h1).
func TestH1Match(t *testing.T) {
	texts := []string{"", "The Title here\nBy someone", "The  Title\u00a0here", "xThe Title herex",
		"The\nTitle here", "Title here The", "a\vb c", "a\vb\nc", "a b\u00a0c", "a\u00a0b c", "x a b cx"}
	subs := []string{"The Title here", "Title", "he Title her", "a\vb c", "b c", "c", "a b c", "a\u00a0b c"}
	for _, text := range texts {
		for _, sub := range subs {
			sub = collapse(sub)
			m := newH1Match(sub)
			if got, want := m.in(text), strings.Contains(collapse(text), sub); got != want {
				t.Errorf("h1Match(%q).in(%q) = %v, want %v", sub, text, got, want)
			}
		}
	}
}

// TestWordRunsCountAsTheirText checks that joining the runs of texts
// counts the words of the texts written one after the other, and that a
// text ending inside a character says so.
func TestWordRunsCountAsTheirText(t *testing.T) {
	parts := []string{"", " ", "a", "word", "two words", " lead", "trail ", "中文", "字", "日本語の", "ab中",
		"中cd", "\u00a0", "x\u00a0y", "\v", "é", "end.", "\t\n", "한국어", "ไทย"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				r := textRun(a)
				r.join(textRun(b))
				r.join(textRun(c))
				if got, want := r.words(), countWords(a+b+c); got != want || r.broken {
					t.Errorf("%q + %q + %q: %d words (broken %v), countWords %d", a, b, c, got, r.broken, want)
				}
			}
		}
	}
	if r := textRun("caf\xc3"); !r.broken {
		t.Error("a text ending in half a character is not broken")
	}
}

// TestItemRegionClimbsAsBefore checks itemRegionRoot's climb without
// writing texts against the climb that writes them.
func TestItemRegionClimbsAsBefore(t *testing.T) {
	page := `<html><body><div id="outer"><h2>Shoes</h2><p>Our range of shoes for every path.</p><div id="mid"><ul class="grid">` +
		strings.Repeat(`<li class="item"><a href="/p"><img src="p.jpg">Trail shoe</a> <span>$89</span></li>`, 12) +
		`</ul></div></div><div class="side">` + strings.Repeat("Long sidebar prose goes on and on here. ", 30) + `</div></body></html>`
	_, body := parseBody(t, page)
	grid, _ := itemRun(body)
	if grid == nil {
		t.Fatal("no run of items")
	}
	got, want := itemRegionRoot(body), climbItems(body, grid)
	if got != want {
		t.Errorf("itemRegionRoot = <%s id=%q>, climbing with texts <%s id=%q>", got.Data, attr(got, "id"), want.Data, attr(want, "id"))
	}
	if attr(got, "id") != "outer" {
		t.Errorf("itemRegionRoot = <%s id=%q>, want the div around the heading", got.Data, attr(got, "id"))
	}
}

// TestItemRunsHandedOver checks that the item profile and the selector
// sharing one itemRuns get the region each gets on its own, with one
// walk of the body.
func TestItemRunsHandedOver(t *testing.T) {
	page := `<html><body><div id="outer"><h2>Shoes</h2><p>Our range of shoes for every path.</p><div id="mid"><ul class="grid">` +
		strings.Repeat(`<li class="item"><a href="/p"><img src="p.jpg">Trail shoe</a> <span>$89</span></li>`, 12) +
		`</ul></div></div><div class="side">` + strings.Repeat("Long sidebar prose goes on and on here. ", 30) + `</div></body></html>`
	root, body := parseBody(t, page)
	var runs itemRuns
	shared := itemsContentOf(root, nil, &runs)
	alone := itemsContent(root, nil)
	if shared == nil || alone == nil || textOf(shared) != textOf(alone) {
		t.Fatalf("itemsContent with runs %v, alone %v", shared != nil, alone != nil)
	}
	if runs.body != body || runs.grid == nil {
		t.Fatal("the profile's walk was not kept")
	}
	side := body.LastChild
	runs.grid = side // what the selector now reads comes from runs
	if got := itemRegionRootOf(body, &runs); got != side {
		t.Errorf("itemRegionRootOf walked again: <%s id=%q>", got.Data, attr(got, "id"))
	}
	if got := itemRegionRoot(body); attr(got, "id") != "outer" {
		t.Errorf("itemRegionRoot = <%s id=%q>, want the div around the heading", got.Data, attr(got, "id"))
	}
}

// TestMeasureIsTextOfAndTextStats checks measureTree on a tree as it is
// against textOf, textStats and walkElements, on markup whose text the
// three read differently: styles, scripts (one in SVG holding elements),
// iframes, line breaks, table cells and <pre>.
func TestMeasureIsTextOfAndTextStats(t *testing.T) {
	for _, page := range []string{viewPage, productPage, proseArticlePage,
		`<html><head><title>T</title><style>p{}</style></head><body><p>a<br>b<style>x{}</style><noscript>ns</noscript></p>` +
			`<svg><script><h1>in svg</h1><input></script><title>t</title></svg><table><tr><td>c</td><td>d</td></tr></table>` +
			`<a href="#x">in-page</a><a href="/doc.pdf">doc</a><pre> a  b </pre><img alt="i">x<iframe>raw</iframe></body></html>`} {
		root, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		text, st, heads, controls := measureTree(root, false, nil, nil)
		var h, k int
		walkElements(root, func(n *html.Node) {
			switch n.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				h++
			case atom.Form, atom.Input, atom.Button, atom.Select, atom.Textarea:
				k++
			}
		})
		if want := textOf(root); text != want {
			t.Errorf("text\n%q\ntextOf\n%q", text, want)
		}
		if want := textStats(root, nil); st != want {
			t.Errorf("stats %+v, textStats %+v", st, want)
		}
		if heads != h || controls != k {
			t.Errorf("%d headings, %d controls; walkElements %d, %d", heads, controls, h, k)
		}
	}
}

// TestBoundSkipsOnlyLosers checks candidates' bound: a candidate is left
// unmeasured only when even the best comparisons with the article would
// not make it win, and pick returns the same with the bound and without.
func TestBoundSkipsOnlyLosers(t *testing.T) {
	saved := selectWeights
	defer func() { selectWeights = saved }()
	root, body := parseBody(t, viewPage)
	var story *html.Node
	walkElements(body, func(n *html.Node) {
		if n.DataAtom == atom.Article {
			story = n
		}
	})
	art := cloneTree(story)
	var probs [len(PageTypes)]float64
	probs[typeIndex(TypeProduct)] = 1
	selectWeights = [numKinds][numSelectFeatures]float64{}
	selectWeights[kArticle][sBias] = 1 // 0.73
	// The h1 region scores 0.5 by its other features; covering the
	// article (weight 2) could lift it to 0.88, over the article's 0.73
	// plus the margin: it is measured. The body's weight (0.5) lifts it
	// to 0.62 at most, the items' bias keeps them down: both skipped.
	selectWeights[kH1][sArticleCovered] = 2
	selectWeights[kBody][sArticleCovered] = 0.5
	selectWeights[kItems][sBias] = -5
	bounded := candidates(root, art, art, signals{}, true, probs, true, nil, nil, nil)
	full := candidates(root, art, art, signals{}, true, probs, false, nil, nil, nil)
	skipped := map[string]bool{}
	for _, c := range bounded {
		skipped[CandidateKinds[c.kind]] = c.skip
	}
	if skipped["article"] || skipped["h1"] || !skipped["body"] || !skipped["items"] {
		t.Errorf("skipped %v, want body and items only", skipped)
	}
	// The bound leaves the item region unlooked-for: the lists may differ
	// by that entry, so candidates are matched by kind.
	byKind := map[int]*candidate{}
	for i := range bounded {
		byKind[bounded[i].kind] = &bounded[i]
	}
	for i := range full {
		if full[i].skip {
			t.Errorf("%s skipped without the bound", CandidateKinds[full[i].kind])
		}
		if b := byKind[full[i].kind]; b == nil || !b.skip && b.f != full[i].f {
			t.Errorf("%s: features differ with the bound", CandidateKinds[full[i].kind])
		}
	}
	if a, b := pickedKind(bounded, art), pickedKind(full, art); a != b {
		t.Errorf("pick with the bound %d, without %d", a, b)
	}
	// With the real weights on the test pages the bound changes nothing.
	selectWeights = saved
	for _, page := range []string{viewPage, productPage, proseArticlePage} {
		root, body := parseBody(t, page)
		art := cloneTree(body.FirstChild.NextSibling)
		if a, b := pickedKind(candidates(root, art, art, signals{}, true, probs, true, nil, nil, nil), art),
			pickedKind(candidates(root, art, art, signals{}, true, probs, false, nil, nil, nil), art); a != b {
			t.Errorf("pick with the bound %d, without %d", a, b)
		}
	}
}

// pickedKind is the kind of the candidate pick takes from cs, or -1.
func pickedKind(cs []candidate, cur *html.Node) int {
	if i := pick(cs, cur); i >= 0 {
		return cs[i].kind
	}
	return -1
}

// TestViewsAreNotTheMissingArticle checks that on a page without an
// article (cur nil) no candidate reads as the current choice: a view's
// node is nil until it is copied.
func TestViewsAreNotTheMissingArticle(t *testing.T) {
	root, _ := parseBody(t, viewPage)
	cs := candidates(root, nil, nil, signals{}, false, [len(PageTypes)]float64{}, false, nil, nil, nil)
	if len(cs) == 0 {
		t.Fatal("no candidates")
	}
	for _, c := range cs {
		if c.f[sCurrent] != 0 {
			t.Errorf("%s reads as the current choice on a page without one", CandidateKinds[c.kind])
		}
	}
}

// TestProductDescriptionFromThePage: a JSON-LD description that the
// chosen content lacks is taken from the page's own element when the page
// holds it (there its lines stay apart), and otherwise as the JSON-LD
// text with its character references decoded.
func TestProductDescriptionFromThePage(t *testing.T) {
	const ld = `<script type="application/ld+json">{"@type":"Product","name":"Arrival Tee",` +
		`"description":"A light tee for hard sessions, made to move with you.\n- Slim fit- Light material- Crew neck- Model is 6&apos;0&quot; and wears size M"}</script>`
	art := `<div id="art"><h1>Arrival Tee</h1><p>Reviews: the fabric holds up after many washes and the cut stays true.</p></div>`
	sheet := `<div class="sheet"><div class="sheet-content"><p><strong>A light tee for hard sessions, made to move with you.</strong></p>` +
		`<p>- Slim fit<br>- Light material<br>- Crew neck<br>- Model is 6'0" and wears size M</p></div></div>`
	for _, c := range []struct {
		name, body string
		want       []string
		notWant    string
	}{
		{"page element", art + sheet, []string{"- Slim fit\n", "- Crew neck\n", `6'0"`}, "fit- Light"},
		{"JSON-LD only", art, []string{"Slim fit- Light material", `Model is 6'0" and wears`}, "&apos;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, body := parseBody(t, `<html><head>`+ld+`</head><body>`+c.body+`</body></html>`)
			var a *html.Node
			walkElements(body, func(n *html.Node) {
				if attr(n, "id") == "art" {
					a = n
				}
			})
			k := productContent(root, cloneTree(a), textOf(a))
			if k == nil {
				t.Fatal("productContent: nil")
			}
			doc := &Document{}
			render(doc, k, Options{OnlyMainContent: true})
			for _, w := range c.want {
				if !strings.Contains(doc.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, doc.Text)
				}
			}
			if strings.Contains(doc.Text, c.notWant) || strings.Contains(doc.Markdown, c.notWant) {
				t.Errorf("output holds %q:\n%s", c.notWant, doc.Markdown)
			}
		})
	}
}
