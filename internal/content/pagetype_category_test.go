package content

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// categoryPage is a shop's category page: the title and an
// introduction in a row of their own, a sort bar, then a row that holds
// the grid of four cards and, after it, a column of buying advice longer
// than the grid, so that the item region is the grid alone. The
// introduction is a paragraph, or (bare) a text beside the <h1>; gap
// links of a word each stand between the row of the title and the grid.
func categoryPage(bare bool, gap int) string {
	var b strings.Builder
	b.WriteString(`<html><body><header><nav><a href="/">Home</a> <a href="/tools">Tools</a></nav></header><main><div class="category-head"><h1>Garden Tools</h1>`)
	intro := "Want a wide selection of garden tools to help green thumbs tackle every project in the backyard this season?"
	if bare {
		b.WriteString(intro)
	} else {
		b.WriteString("<p>" + intro + "</p>")
	}
	b.WriteString(`</div><div class="toolbar">` + strings.Repeat(`<a href="?sort">sort</a> `, gap) + `</div><div class="columns"><ul class="grid">`)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `<li class="card"><a href="/p/%d"><img src="/%d.jpg">Trowel%d</a><span class="price">$%d.99</span></li>`, i, i, i, i)
	}
	b.WriteString(`</ul><div class="advice">`)
	for i := 0; i < 4; i++ {
		b.WriteString("<p>Buying advice: choose a handle that fits the hand and a blade of steel that will not bend in clay soil.</p>")
	}
	b.WriteString(`</div></div></main><footer><a href="/help">Help</a></footer></body></html>`)
	return b.String()
}

// TestCategoryIntro: the item region gets the category's title and
// introduction above it, written as a paragraph or as a bare text.
func TestCategoryIntro(t *testing.T) {
	for _, bare := range []bool{false, true} {
		root, err := html.Parse(strings.NewReader(categoryPage(bare, 3)))
		if err != nil {
			t.Fatal(err)
		}
		k := itemsContent(root, nil)
		if k == nil {
			t.Fatal("no region of items found")
		}
		checkText(t, textOf(k), []string{"Garden Tools", "Want a wide selection of garden tools", "Trowel1", "$4.99"},
			[]string{"Buying advice", "sort", "Home"})
	}
}

// TestCategoryIntroGap: with more than maxIntroGap words of other text
// between the title and the grid, the introduction is not the grid's.
func TestCategoryIntroGap(t *testing.T) {
	root, err := html.Parse(strings.NewReader(categoryPage(false, maxIntroGap+1)))
	if err != nil {
		t.Fatal(err)
	}
	k := itemsContent(root, nil)
	if k == nil {
		t.Fatal("no region of items found")
	}
	checkText(t, textOf(k), []string{"Trowel1"}, []string{"Garden Tools", "Want a wide selection"})
}

// TestIntroBeforeRegionFirst: a region that holds the <h1>, or comes
// before it, has no introduction of its own.
func TestIntroBeforeRegionFirst(t *testing.T) {
	root, err := html.Parse(strings.NewReader(`<html><body><div id="r"><h1>Tools</h1><p>` + strings.Repeat("words of the intro ", 5) + `</p></div><h1>Later</h1><p>` + strings.Repeat("more words here ", 6) + `</p></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findBody(root)
	r := body.FirstChild
	if got := introBefore(body, r); got != nil {
		t.Errorf("introBefore = %d blocks, want none", len(got))
	}
}

// TestRemovePagers: the page numbers under a grid go; a wrapper named
// for its pager that holds the grid stays, and so does prose.
func TestRemovePagers(t *testing.T) {
	cards := strings.Repeat(`<li class="card"><a href="/p"><img src="/x.jpg">Lamp brass</a><span>$19.00</span></li>`, 4)
	page := `<html><body><div id="content"><div class="pager-wrap"><ul class="grid">` + cards + `</ul></div>
<nav class="pagination"><a href="?p=1">1</a> <a href="?p=2">2</a> <a href="?p=3">Next page</a></nav>
<div class="pager-note"><p>` + strings.Repeat("A long sentence of prose about these lamps and where they are made. ", 2) + `</p></div></div></body></html>`
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	n := findBody(root).FirstChild
	if !removePagers(n) {
		t.Fatal("removePagers removed nothing")
	}
	checkText(t, textOf(n), []string{"Lamp brass", "$19.00", "A long sentence of prose"}, []string{"Next page"})
}
