package content

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// listingPage is a page of posts: an intro and four items, each a
// linked title and a short teaser, which the conditional cleaning takes
// one by one for link-dense widgets.
func listingPage() string {
	var b strings.Builder
	b.WriteString(`<html><body><div id="main"><h1>All posts</h1>
<p>Every post of the journal, newest first, from the field notes of the winter survey to the letters our readers sent us, with a short summary of each one, so that you may choose what to read next.</p>
<p>The archive also keeps the older essays, sorted by the season they were written in and by the place they describe, from the coast to the high valleys.</p>
<p>Each entry below links to the full text; the teasers were written by the editors, who read every post before it went out, and who answer the letters that reach them through the year, in the order they arrive.</p>
`)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `<div class="tile tile-%d"><h3><a href="/posts/%d">Field notes number %d from the survey</a></h3><p>Teaser %d.</p></div>`, i, i, i, i)
	}
	b.WriteString(`</div></body></html>`)
	return b.String()
}

// TestListingSparesItemRuns: on a page taken for a listing, the
// readability pass keeps the divs of a run of items that its
// conditional cleaning removes on other pages.
func TestListingSparesItemRuns(t *testing.T) {
	for _, listing := range []bool{false, true} {
		root, _ := parseBody(t, listingPage())
		facts := extractFacts{listing: listing}
		art, _ := readableContent(root, nil, "All posts", &facts)
		if art == nil {
			t.Fatalf("listing %v: no article", listing)
		}
		text := textOf(art)
		if !strings.Contains(text, "Every post of the journal") {
			t.Fatalf("listing %v: intro missing: %q", listing, text)
		}
		items := strings.Count(text, "Field notes number")
		if listing && items != 4 {
			t.Errorf("listing: %d of 4 items kept: %q", items, text)
		}
		if !listing && items != 0 {
			// The page must exercise the cleaning: without the rule
			// the items go.
			t.Errorf("not a listing: %d items kept, the cleaning should drop them: %q", items, text)
		}
	}
}

// TestInItemRun: a run is minItems siblings of one tag and first class
// word (digits aside), found among at most maxRunLook element siblings
// on each side, so a parent of many children costs a bounded walk per
// div.
func TestInItemRun(t *testing.T) {
	div := func(class string) *html.Node {
		n := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		if class != "" {
			n.Attr = []html.Attribute{{Key: "class", Val: class}}
		}
		return n
	}
	parent := div("")
	add := func(n *html.Node) *html.Node { parent.AppendChild(n); return n }
	a := add(div("card card-1"))
	add(div("card card-2"))
	if inItemRun(a) {
		t.Error("two cards make a run")
	}
	add(div("card featured"))
	if !inItemRun(a) {
		t.Error("three cards are not a run")
	}
	if inItemRun(add(div("teaser"))) {
		t.Error("a lone teaser is in a run")
	}

	// Matches beyond maxRunLook other siblings are not looked for.
	parent = div("")
	b := add(div("row"))
	for range maxRunLook {
		add(div("other"))
	}
	add(div("row"))
	add(div("row"))
	if inItemRun(b) {
		t.Error("siblings past maxRunLook were read")
	}
	// A hostile parent of many children stays bounded per call.
	parent = div("")
	for range 100000 {
		add(div("x"))
	}
	c := add(div("y"))
	if inItemRun(c) {
		t.Error("a lone y is in a run")
	}
}
