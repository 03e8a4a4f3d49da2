package content

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// sectionsPage is a news section front: two headed sections, each a
// grid of teasers whose classes differ from item to item (WordPress's
// post-NNN and category classes), beside a sidebar of prose and above
// a footer.
func sectionsPage() string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Technology</title></head><body>
<header><nav><a href="/">Home</a> <a href="/tech">Tech</a> <a href="/science">Science</a></nav></header>
<div class="layout"><main class="content">`)
	for s, name := range []string{"Personal Tech", "Artificial Intelligence"} {
		fmt.Fprintf(&b, `<section class="section"><h2>%s</h2><div class="grid">`, name)
		for i := 1; i <= 4; i++ {
			fmt.Fprintf(&b, `<article class="post-%d%d post category-c%d"><a href="/story/%d-%d"><h3>Story%d%d headline</h3></a>
<p>A short summary of story %d%d, a few words on what happened and why it matters.</p></article>`, s, i, i, s, i, s, i, s, i)
		}
		b.WriteString(`</div></section>`)
	}
	b.WriteString(`</main><div class="sidebar">`)
	for range 2 {
		b.WriteString(`<p>Our newsroom covers technology from five cities, with reporters who have followed
the industry for decades, and editors who check every claim before it is published on the site.</p>`)
	}
	b.WriteString(`</div></div>
<footer><a href="/help">Help</a> <a href="/about">About us</a></footer></body></html>`)
	return b.String()
}

func TestItemsContentKeepsEverySection(t *testing.T) {
	root, err := html.Parse(strings.NewReader(sectionsPage()))
	if err != nil {
		t.Fatal(err)
	}
	k := itemsContent(root, nil)
	if k == nil {
		t.Fatal("no region of items found")
	}
	text := textOf(k)
	for _, want := range []string{"Personal Tech", "Artificial Intelligence", "Story01 headline", "Story14 headline",
		"Story11 headline", "summary of story 13"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"newsroom", "About us", "Science"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("text keeps %q:\n%s", unwanted, text)
		}
	}
}

// TestItemsContentTakesTeaserArticle: the readability article is the
// teasers' summaries, prose without links; they are items, so the
// region replaces them. Prose from outside the items stays.
func TestItemsContentTakesTeaserArticle(t *testing.T) {
	root, err := html.Parse(strings.NewReader(sectionsPage()))
	if err != nil {
		t.Fatal(err)
	}
	art, _ := html.Parse(strings.NewReader(`<div><p>A short summary of story 01, a few words on what happened and why it matters.
A short summary of story 02, a few words on what happened and why it matters.
A short summary of story 03, a few words on what happened and why it matters.
A short summary of story 04, a few words on what happened and why it matters.</p></div>`))
	if k := itemsContent(root, findBody(art)); k == nil || !strings.Contains(textOf(k), "Story14 headline") {
		t.Errorf("the teasers' prose kept as the article; want the region of items")
	}
	prose, _ := html.Parse(strings.NewReader(`<div><p>` + strings.Repeat("The council voted on Tuesday to close the old bridge for repairs until spring. ", 5) + `</p></div>`))
	if k := itemsContent(root, findBody(prose)); k != nil {
		t.Errorf("prose outside the items replaced by the region:\n%s", textOf(k))
	}
}

// TestListingFeatures: the classifier sees a paginated list of results
// (rel=next) and its runs of items, whose classes differ per item, with
// a title link and a snippet each.
func TestListingFeatures(t *testing.T) {
	root, err := html.Parse(strings.NewReader(sectionsPage() + `<a rel="next" href="/tech?page=2">Next</a>`))
	if err != nil {
		t.Fatal(err)
	}
	f := pageFeatures(root, nil, nil, "")
	if f[fRelNext] != 1 {
		t.Errorf("rel_next %v, want 1", f[fRelNext])
	}
	// Features are on a log scale: log1p(2) runs, log1p(4) items.
	if f[fRuns] < 1 || f[fRunSnippets] < 1.6 {
		t.Errorf("runs %v, run_snippets %v: want two runs of four snippets", f[fRuns], f[fRunSnippets])
	}
}

// TestItemsContentTakesCardColumn: an article without links made of
// short blocks (a carousel's names and prices, the page's featured
// products) is not prose: the region of items replaces it, while the
// same words as paragraphs of prose keep the article.
func TestItemsContentTakesCardColumn(t *testing.T) {
	root, err := html.Parse(strings.NewReader(sectionsPage()))
	if err != nil {
		t.Fatal(err)
	}
	var cards, prose strings.Builder
	cards.WriteString(`<div>`)
	prose.WriteString(`<div>`)
	for i := range 12 {
		fmt.Fprintf(&cards, `<div class="card"><h4>Walnut desk model %d</h4><span>$ %d99</span></div>`, i, i+3)
		if i%4 == 0 {
			prose.WriteString(`<p>`)
		}
		fmt.Fprintf(&prose, `Walnut desk model %d sells for %d99 dollars. `, i, i+3)
		if i%4 == 3 {
			prose.WriteString(`</p>`)
		}
	}
	cards.WriteString(`</div>`)
	prose.WriteString(`</div>`)
	art, _ := html.Parse(strings.NewReader(cards.String()))
	if k := itemsContent(root, findBody(art)); k == nil || !strings.Contains(textOf(k), "Story14 headline") {
		t.Errorf("a column of card names and prices kept as the article; want the region of items")
	}
	art, _ = html.Parse(strings.NewReader(prose.String()))
	if k := itemsContent(root, findBody(art)); k != nil {
		t.Errorf("paragraphs of prose replaced by the region:\n%s", textOf(k))
	}
}

// TestItemsContentDropsControls: a grid of product cards keeps each
// card's name and price, not its buttons and quantity box.
func TestItemsContentDropsControls(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><div class="page"><h1>Desks</h1><ul class="products">`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li class="product"><a href="/p/%d"><img src="/i/%d.jpg" alt=""></a><a href="/p/%d">Walnut desk model %d</a>
<span class="price">$%d99</span><input type="number" value="1"><button type="submit">Add to cart</button></li>`, i, i, i, i, i+3)
	}
	b.WriteString(`</ul></div></body></html>`)
	k := regionOf(t, b.String())
	text := textOf(k)
	if !strings.Contains(text, "Walnut desk model 5") || !strings.Contains(text, "$899") {
		t.Errorf("text lacks the items:\n%s", text)
	}
	if strings.Contains(text, "Add to cart") {
		t.Errorf("text keeps the buttons:\n%s", text)
	}
}

// regionOf returns itemsContent's region of page (no article), failing
// t when it finds none.
func regionOf(t *testing.T, page string) *html.Node {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	k := itemsContent(root, nil)
	if k == nil {
		t.Fatal("no region of items found")
	}
	return k
}

// TestItemsContentKeepsGridInForm: a grid inside a <form> (the form
// that posts the items to compare) stays in the markdown, which drops
// forms whole.
func TestItemsContentKeepsGridInForm(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><header><nav><a href="/">Home</a></nav></header><main><h1>Desks</h1><form action="/compare"><ul class="products">`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li class="product"><a href="/p/%d"><img src="/i/%d.jpg" alt=""></a><a href="/p/%d">Walnut desk model %d</a>
<span class="price">$%d99</span></li>`, i, i, i, i, i+3)
	}
	b.WriteString(`</ul></form></main><footer>Help</footer></body></html>`)
	k := regionOf(t, b.String())
	if md := toMarkdown(k); !strings.Contains(md, "Walnut desk model 5") || !strings.Contains(md, "$899") {
		t.Errorf("markdown lacks the items:\n%s", md)
	}
}

// TestItemsContentSetsPartsApart: a card's brand and name in sibling
// elements with nothing between them (the style sheet lays them out
// apart) come out as two words in the region's text and markdown; a
// drop capital stays part of its word.
func TestItemsContentSetsPartsApart(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><h1>Running shoes</h1><ul class="products">`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li class="product"><a href="/p/%d"><span class="brand"><span>HOKA</span></span><span class="name">Clifton %d Road-Running Shoes</span></a>`+
			`<div class="tags"><a href="/t/1">Indie</a><a href="/t/2">Singleplayer</a></div><span class="price">$%d99</span></li>`, i, i, i+3)
	}
	b.WriteString(`</ul><p class="note"><span class="cap">B</span><span>rooks too</span></p></main></body></html>`)
	k := regionOf(t, b.String())
	text, md := textOf(k), toMarkdown(k)
	if !strings.Contains(text, "HOKA Clifton 5") || !strings.Contains(text, "Indie Singleplayer") || !strings.Contains(text, "Brooks too") {
		t.Errorf("text:\n%s", text)
	}
	if !strings.Contains(md, "HOKA Clifton 5") || !strings.Contains(md, "[Indie](/t/1) [Singleplayer]") || strings.Contains(md, "B rooks") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestItemCandidateCopiedAsProfile: the selector's item candidate is
// copied as the item profile copies its region: a grid inside a <form>
// stays in the markdown, controls go, a card's parts are set apart.
func TestItemCandidateCopiedAsProfile(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><form action="/compare"><ul class="products">`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li class="product"><a href="/p/%d"><span>HOKA</span><span>Clifton %d</span></a><span class="price">$%d99</span><button>Compare</button></li>`, i, i, i+3)
	}
	b.WriteString(`</ul></form></main></body></html>`)
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	src := itemRegionRoot(findBody(root))
	if src == nil {
		t.Fatal("no region of items found")
	}
	c := candidate{kind: kItems, src: src, view: true}
	md := toMarkdown(c.tree())
	if !strings.Contains(md, "HOKA Clifton 5") || strings.Contains(md, "Compare") {
		t.Errorf("markdown of the item candidate:\n%s", md)
	}
}

// TestSetApartPartsBounded: setApartParts on a nesting deeper than
// maxPartDepth and on long runs of empty elements (edgeRune's bound)
// returns, and sets apart only what it reaches.
func TestSetApartPartsBounded(t *testing.T) {
	el := func(tag string) *html.Node { return &html.Node{Type: html.ElementNode, Data: tag} }
	txt := func(s string) *html.Node { return &html.Node{Type: html.TextNode, Data: s} }
	root := el("div")
	// A nesting far deeper than the parser builds, its innermost pair
	// out of reach.
	deep := root
	for range 5000 {
		c := el("span")
		deep.AppendChild(c)
		deep = c
	}
	deep.AppendChild(el("b"))
	deep.FirstChild.AppendChild(txt("deep"))
	deep.AppendChild(el("b"))
	deep.LastChild.AppendChild(txt("Down"))
	// A word, then more empty elements than edgeRune reads, then a
	// capital: out of reach too.
	b := el("b")
	b.AppendChild(txt("x"))
	root.AppendChild(b)
	wide := el("i")
	for range 20000 {
		wide.AppendChild(el("i"))
	}
	wide.AppendChild(txt("Far"))
	root.AppendChild(wide)
	// Many pairs within reach.
	for range 2000 {
		for _, w := range []string{"a", "Z"} {
			s := el("span")
			s.AppendChild(txt(w))
			root.AppendChild(s)
		}
	}
	done := make(chan struct{})
	go func() {
		setApartParts(root, 0)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("setApartParts did not return")
	}
	text := nodeText(root)
	if !strings.Contains(text, "deepDown") || !strings.Contains(text, "xFar") {
		t.Errorf("parts beyond the bounds were set apart: %q", text[:40])
	}
	if strings.Contains(text, "aZ") || !strings.Contains(text, "a Za Z") {
		t.Errorf("the parts within reach were not set apart: %q", text[len(text)-40:])
	}
}

// TestItemClassAsFields: itemClass's byte loop gives what it gave with
// strings.FieldsSeq (itemClassFields) on random class values.
func TestItemClassAsFields(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	parts := []string{"a", "post", "-98088", "x1", "Card", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\u00a0", "\u0085", "é", "9", "_", "\u2003"}
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(8) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		if got, want := itemClass(s), itemClassFields(s); got != want {
			t.Fatalf("itemClass(%q) = %q, want %q", s, got, want)
		}
	}
}
