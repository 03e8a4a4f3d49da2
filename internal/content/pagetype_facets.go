package content

import (
	"os"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Facets, filters and pagers in the main content of a collection or
// listing page: the controls that narrow or page through the items
// (a column of brands and price ranges with their counts, "Refine by
// Size", page numbers) sit inside the region that holds the items, and
// the references leave them out.

// i6 switches (experiment; removed before the merge).
var i6Facet = os.Getenv("I6_FACET")

// maxFacetDepth bounds removeFacets' descent.
const maxFacetDepth = 256

// removeFacets removes from n, a collection's or listing's main content,
// every element that names itself a facet, filter or refinement in its
// class or id and reads as a list of controls: short lines, fewer words
// than half of n's. It reports whether it removed any.
func removeFacets(n *html.Node) bool {
	if i6Facet == "" || i6Facet == "0" {
		return false
	}
	total := countWords(nodeText(n))
	if total == 0 {
		return false
	}
	removed := false
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth >= maxFacetDepth {
			return
		}
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if facetNamed(c) && isFacetBlock(c, total) {
				p.RemoveChild(c)
				removed = true
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return removed
}

// facetNamed tells whether n's class or id holds a word naming a
// facet, a filter or a refinement of the items.
func facetNamed(n *html.Node) bool {
	for _, key := range [...]string{"class", "id"} {
		v := attr(n, key)
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		if i6Facet != "ponly" && (strings.Contains(v, "facet") || strings.Contains(v, "filter") || strings.Contains(v, "refinement")) {
			return true
		}
		if strings.Contains(i6Facet, "p") && (strings.Contains(v, "pagination") || strings.Contains(v, "pager")) {
			return true
		}
	}
	return false
}

// isFacetBlock tells whether n, of a content of total words, reads as a
// block of controls: under half the content's words, not prose.
func isFacetBlock(n *html.Node, total int) bool {
	if n.DataAtom == atom.Body || n.DataAtom == atom.Main {
		return false
	}
	text := nodeText(n)
	words := countWords(text)
	if words == 0 {
		return true
	}
	if 2*words > total {
		return false
	}
	if readsAsProse(text, words) {
		return false
	}
	// A wrapper named for its filters that holds the grid itself
	// ("plp-tablet-filters" around the results) is not a facet.
	if g, items := itemRun(n); g != nil && 2*items >= words {
		return false
	}
	return true
}

// i6Intro switches the category intro (experiment).
var i6Intro = os.Getenv("I6_INTRO")

// Bounds of the walk from a page's <h1> to its item region.
const (
	maxIntroSteps = 4096
	minIntroWords = 15
)

// introBefore returns the page's first <h1> and the blocks of prose
// that follow it before the item region (a category's title and its
// introduction, which the region leaves out when they sit in another
// column or row above the grid), or nil when the <h1> lies inside the
// region or after it, or when more than maxGap words of other text
// stand between them and the region.
func introBefore(body, region *html.Node) []*html.Node {
	if i6Intro == "" || i6Intro == "0" {
		return nil
	}
	maxGap := 150
	var h1 *html.Node
	steps := 0
	for d := range body.Descendants() {
		steps++
		if steps > 1<<20 {
			return nil
		}
		if d == region {
			introWhy = "region first"
			return nil // the region comes first (or holds the <h1>)
		}
		if d.DataAtom == atom.H1 && d.Type == html.ElementNode && !inChrome(d, body) {
			h1 = d
			break
		}
	}
	if h1 == nil || countWords(nodeText(h1)) == 0 {
		introWhy = "no h1"
		return nil
	}
	out := []*html.Node{h1}
	gap := 0
	steps = 0
	// Walk the nodes after h1 in document order until the region.
	n := h1
	next := func(n *html.Node, into bool) *html.Node {
		if into && n.FirstChild != nil {
			return n.FirstChild
		}
		for n != nil && n != body {
			if n.NextSibling != nil {
				return n.NextSibling
			}
			n = n.Parent
		}
		return nil
	}
	n = next(n, false)
	for n != nil && n != region {
		steps++
		if steps > maxIntroSteps {
			return nil
		}
		if n.Type == html.TextNode {
			if k := countWords(n.Data); k >= minIntroWords {
				out = append(out, n)
				n = next(n, false)
				continue
			}
			gap += countWords(n.Data)
			if gap > maxGap {
				introWhy = "gap"
				return nil
			}
			n = next(n, false)
			continue
		}
		if n.Type != html.ElementNode {
			n = next(n, false)
			continue
		}
		if contains(n, region) {
			n = next(n, true)
			continue
		}
		switch n.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Button, atom.Select,
			atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
			n = next(n, false)
			continue
		}
		if introBlock(n) {
			out = append(out, n)
			n = next(n, false)
			continue
		}
		n = next(n, true)
	}
	if n == nil {
		return nil
	}
	if len(out) == 1 && !strings.Contains(i6Intro, "h") {
		return nil
	}
	return out
}

var introWhy string

// introBlock tells whether n is a block of prose: minIntroWords words or
// more, nearly none in links, no block of its own inside.
func introBlock(n *html.Node) bool {
	if n.DataAtom != atom.P && n.DataAtom != atom.Div && n.DataAtom != atom.Section {
		return false
	}
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d != n {
			switch d.DataAtom {
			case atom.Div, atom.Section, atom.P, atom.Ul, atom.Ol, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4:
				if n.DataAtom != atom.P {
					return false
				}
			}
		}
	}
	text := nodeText(n)
	words := countWords(text)
	if words < minIntroWords {
		return false
	}
	st := textStats(n, nil)
	return st.length > 0 && st.linkLen < 0.2*float64(st.length)
}

// contains tells whether n is a or an ancestor of a.
func contains(n, a *html.Node) bool {
	for ; a != nil; a = a.Parent {
		if a == n {
			return true
		}
	}
	return false
}

// inChrome tells whether n sits in a <nav>, <header>, <footer> or
// <aside> under body.
func inChrome(n, body *html.Node) bool {
	for p := n.Parent; p != nil && p != body; p = p.Parent {
		switch p.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside:
			return true
		}
	}
	return false
}

// joinIntro returns the item region's copy k with copies of the intro
// blocks before it, in one <div>.
func joinIntro(intro []*html.Node, k *html.Node) *html.Node {
	if len(intro) == 0 {
		return k
	}
	w := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, b := range intro {
		if b.Type == html.TextNode {
			p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
			p.AppendChild(&html.Node{Type: html.TextNode, Data: b.Data})
			w.AppendChild(p)
			continue
		}
		c := cloneTree(b)
		prune(c)
		w.AppendChild(c)
	}
	w.AppendChild(k)
	return w
}

var i6Join = os.Getenv("I6_JOIN") == "1"

// introText returns the text of the intro blocks, a line each.
func introText(intro []*html.Node) string {
	var b strings.Builder
	for _, n := range intro {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		} else {
			b.WriteString(nodeText(n))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var i6Join2 = os.Getenv("I6_JOIN") == "2"

// joinSlack is how many words besides the items and the article the
// element that joins them may hold.
const joinSlack = 150

// joinArticle returns the smallest element of body that holds both the
// item region r and the place of the article art (a detached copy; its
// first line of eight words or more, found as a text of the body), when
// that element holds little besides the two: at most joinSlack words
// more than the region and the article. Else nil.
func joinArticle(body, r, art *html.Node, artWords int) *html.Node {
	var first string
	for d := range art.Descendants() {
		if d.Type == html.TextNode && countWords(d.Data) >= 8 {
			first = strings.TrimSpace(d.Data)
			break
		}
	}
	if first == "" {
		return nil
	}
	var at *html.Node
	for d := range body.Descendants() {
		if d.Type == html.TextNode && strings.TrimSpace(d.Data) == first {
			at = d
			break
		}
	}
	if at == nil || contains(r, at) {
		return nil
	}
	l := r.Parent
	for ; l != nil && l != body && !contains(l, at); l = l.Parent {
	}
	if l == nil || l == body {
		return nil
	}
	rw := countWords(nodeText(r))
	if countWords(nodeText(l)) > rw+artWords+joinSlack {
		return nil
	}
	return l
}

var i6Counts = os.Getenv("I6_COUNTS") == "1"

// maxFacetValueWords is the most words a facet's value holds with its
// count ("Sapphire Tech (12)").
const maxFacetValueWords = 8

// removeCountLists removes from n every element whose children are
// mostly facet values: minItems or more children, six in ten of those
// with words, of at most maxFacetValueWords words each ending in a count
// in parentheses ("Canon (48)"), when it holds under half of n's words.
// It reports whether it removed any.
func removeCountLists(n *html.Node) bool {
	if !i6Counts {
		return false
	}
	total := countWords(nodeText(n))
	removed := false
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth >= maxFacetDepth {
			return
		}
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if countList(c) && 2*countWords(nodeText(c)) <= total {
				p.RemoveChild(c)
				removed = true
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return removed
}

// countList tells whether n's children are mostly facet values with
// their counts (removeCountLists).
func countList(n *html.Node) bool {
	kids, counted := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		t := strings.TrimSpace(nodeText(c))
		if t == "" {
			continue
		}
		kids++
		if countWords(t) <= maxFacetValueWords && endsInCount(t) {
			counted++
		}
	}
	return counted >= minItems && counted*10 >= kids*6
}

// endsInCount tells whether t ends in a number in parentheses: "(12)",
// "(1,204)".
func endsInCount(t string) bool {
	if !strings.HasSuffix(t, ")") {
		return false
	}
	i := strings.LastIndexByte(t, '(')
	if i < 0 {
		return false
	}
	num := strings.TrimSpace(t[i+1 : len(t)-1])
	if num == "" {
		return false
	}
	for _, r := range num {
		if (r < '0' || r > '9') && r != ',' && r != '.' {
			return false
		}
	}
	return true
}

var i6Strip = os.Getenv("I6_STRIP") == "1"

// stripRegion removes from the item region's copy k the page's
// landmarks and the elements named for its frame (stripBoilerplate),
// unless that leaves fewer than half of the items' words.
func stripRegion(k *html.Node, items int) *html.Node {
	s := cloneTree(k)
	stripBoilerplate(s)
	if 2*countWords(nodeText(s)) < items {
		return k
	}
	return s
}
