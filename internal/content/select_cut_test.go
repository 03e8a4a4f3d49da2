package content

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// viewText is a view candidate's text measured in place, as candidates
// measures it.
func viewText(src *html.Node, strip func(*html.Node, bool) bool) string {
	text, _, _, _ := measureTree(src, true, strip)
	return text
}

const mainPage = `<html><body>
<header><a href="/">Shop</a> <a href="/cart">Cart</a></header>
<main aria-hidden="true"><p>A hidden copy of the menu for small screens.</p></main>
<div class="promo-banner"><p>Free shipping on every order over fifty euros this week only.</p></div>
<div role="main" class="content">
 <header class="header"><h1>Trail Runner 3</h1></header>
 <nav class="tabs"><a href="#d">Description</a> <a href="#s">Specifications</a></nav>
 <p>A light shoe for rocky paths, with a grippy sole.</p>
 <form><button>Add to cart</button></form>
 <div class="related"><a href="/a">Road Runner</a></div>
</div>
<footer><p>Shop Ltd, 1 High Street.</p></footer>
</body></html>`

func TestMainRootSkipsHiddenMain(t *testing.T) {
	_, body := parseBody(t, mainPage)
	m := mainRoot(body)
	if m == nil || attr(m, "class") != "content" {
		t.Fatalf("mainRoot: want the visible role=main element, got %v", m)
	}
	got := viewText(m, regionStrips)
	for _, want := range []string{"Trail Runner 3", "grippy sole"} {
		if !strings.Contains(got, want) {
			t.Errorf("main candidate lacks %q:\n%s", want, got)
		}
	}
	// Its tabs (a <nav>) go; its <header> (the product's title) stays.
	for _, unwanted := range []string{"Description", "Free shipping", "High Street"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("main candidate holds %q:\n%s", unwanted, got)
		}
	}
	if c := textOf(regionCopy(m)); c != got {
		t.Errorf("copy %q differs from the view %q", c, got)
	}
}

func TestMainRootNone(t *testing.T) {
	_, body := parseBody(t, `<html><body><div><h1>T</h1><p>Text.</p></div></body></html>`)
	if m := mainRoot(body); m != nil {
		t.Errorf("mainRoot on a page without <main>: %v", m)
	}
}

const detailPage = `<html><body>
<nav><a href="/">Home</a></nav>
<div class="page">
 <div class="product">
  <div class="top"><h1>Bird Feeder Pro</h1><p class="price">€199</p></div>
  <div class="about">
   <p>Our award-winning smart bird feeder, reimagined with a brand new camera for stunningly clear
   images of every visitor, a wider field of view and slow motion video of the birds in your garden.</p>
  </div>
 </div>
 <div class="others">
  <div class="card"><a href="/a"><img src="a.jpg">Solar roof</a> <span>€39</span></div>
  <div class="card"><a href="/b"><img src="b.jpg">Perch</a> <span>€19</span></div>
  <div class="card"><a href="/c"><img src="c.jpg">Wall mount</a> <span>€29</span></div>
 </div>
</div>
</body></html>`

func TestDetailRootHoldsTitleAndProse(t *testing.T) {
	_, body := parseBody(t, detailPage)
	d := detailRoot(body)
	if d == nil || attr(d, "class") != "product" {
		t.Fatalf("detailRoot: want the product block, got %v", d)
	}
	got := viewText(d, regionStrips)
	if !strings.Contains(got, "Bird Feeder Pro") || !strings.Contains(got, "slow motion") || strings.Contains(got, "Solar roof") {
		t.Errorf("detail candidate:\n%s", got)
	}
	if c := textOf(regionCopy(d)); c != got {
		t.Errorf("copy %q differs from the view %q", c, got)
	}
}

func TestDetailRootNeedsProse(t *testing.T) {
	_, body := parseBody(t, `<html><body><div><h1>T</h1><p>Too short to be a description.</p></div></body></html>`)
	if d := detailRoot(body); d != nil {
		t.Errorf("detailRoot without a block of %d words: %v", detailMinWords, d)
	}
}

func TestCardRunsTrimAndHead(t *testing.T) {
	_, body := parseBody(t, detailPage)
	art := body
	runs := cardRuns(art)
	if len(runs) != 1 || len(runs[0].items) != 3 || attr(runs[0].items[0], "class") != "card" {
		t.Fatalf("cardRuns: %+v", runs)
	}
	trim := trimDrops(art)
	got := viewText(art, trim.strip)
	if strings.Contains(got, "Perch") || !strings.Contains(got, "slow motion") {
		t.Errorf("trim candidate:\n%s", got)
	}
	if c := textOf(cloneWithout(art, trim)); c != got {
		t.Errorf("trim copy %q differs from the view %q", c, got)
	}
	words := countWords(textOf(art))
	head := headDrops(art, words)
	if head == nil {
		t.Fatal("headDrops: nil")
	}
	got = viewText(art, head.strip)
	if strings.Contains(got, "Solar roof") || !strings.Contains(got, "Bird Feeder Pro") || !strings.Contains(got, "slow motion") {
		t.Errorf("head candidate:\n%s", got)
	}
	if c := textOf(cloneWithout(art, head)); c != got {
		t.Errorf("head copy %q differs from the view %q", c, got)
	}
}

func TestHeadDropsNotAtTheStart(t *testing.T) {
	// A run of cards at the article's start is its content (a
	// collection's grid), not what follows a description.
	_, body := parseBody(t, `<html><body>
<div class="card"><a href="/a"><img src="a.jpg">Solar roof</a> <span>€39</span></div>
<div class="card"><a href="/b"><img src="b.jpg">Perch</a> <span>€19</span></div>
<div class="card"><a href="/c"><img src="c.jpg">Wall mount</a> <span>€29</span></div>
<p>A few words after the grid.</p></body></html>`)
	if d := headDrops(body, countWords(textOf(body))); d != nil {
		t.Errorf("headDrops cut at a run before %g of the words", headMinShare)
	}
	if d := trimDrops(body); len(d) != 3 {
		t.Errorf("trimDrops: %d elements, want the 3 cards", len(d))
	}
}
