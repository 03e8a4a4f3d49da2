package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// More candidate regions for the selector, cut out of the body by
// structure alone (issue 20, branch i20-cand): the page's <main>, the
// product's detail block and the heading above a run of items. Each is
// measured in place, like the h1 region (select_view.go), without its
// landmarks (regionStrips), and copied only when it wins (regionCopy).

// regionStrips tells whether a region candidate leaves out the element
// n: the landmarks of navigation, asides and footers, but not a
// <header>, which inside a region cut around the page's title holds the
// title itself.
func regionStrips(n *html.Node, _ bool) bool { return Landmark(n, true) }

// regionCopy returns a detached copy of region without what prune
// removes and without what regionStrips leaves out, as the view measures
// it.
func regionCopy(region *html.Node) *html.Node {
	k := cloneTree(region)
	prune(k)
	var strip func(n *html.Node)
	strip = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				if regionStrips(c, true) {
					n.RemoveChild(c)
				} else {
					strip(c)
				}
			}
			c = next
		}
	}
	strip(k)
	if k.DataAtom == atom.Body {
		k.Data, k.DataAtom = "div", atom.Div
	}
	return k
}

// hiddenRegion tells whether n is marked as not shown: aria-hidden or
// the hidden attribute.
func hiddenRegion(n *html.Node) bool {
	if strings.EqualFold(strings.TrimSpace(attr(n, "aria-hidden")), "true") {
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" {
			return true
		}
	}
	return false
}

// mainRoot returns the body's first <main> element or element of role
// main that is not hidden, or nil when there is none. A page's own
// landmark of its main content: the body candidate keeps what lies
// around it outside landmarks, and the readability article may hold
// only a part of it.
func mainRoot(body *html.Node) *html.Node {
	var found *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil && found == nil; c = c.NextSibling {
			if c.Type != html.ElementNode || pruned(c) {
				continue
			}
			if (c.DataAtom == atom.Main || strings.EqualFold(strings.TrimSpace(attr(c, "role")), "main")) && !hiddenRegion(c) {
				found = c
				return
			}
			find(c)
		}
	}
	find(body)
	if found != nil && hasArticle(body) {
		return nil
	}
	return found
}

// hasArticle tells whether n holds an <article> element.
func hasArticle(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Article || hasArticle(c)) {
			return true
		}
	}
	return false
}

// firstH1 returns the first <h1> under n, or nil.
func firstH1(n *html.Node) *html.Node {
	var h1 *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil && h1 == nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				if c.DataAtom == atom.H1 {
					h1 = c
					return
				}
				find(c)
			}
		}
	}
	find(n)
	return h1
}

// commonAncestor returns the smallest element holding both a and b
// (either may be the other's ancestor), or nil when they share none.
func commonAncestor(a, b *html.Node) *html.Node {
	on := make(map[*html.Node]bool)
	for p := a; p != nil; p = p.Parent {
		on[p] = true
	}
	for p := b; p != nil; p = p.Parent {
		if on[p] {
			return p
		}
	}
	return nil
}

// detailMinWords is the length from which a block of prose can anchor
// the detail region.
const detailMinWords = 25

// longestProse returns the block element under n with the most words of
// its own outside links (the text of its inline children, not of its
// blocks), outside landmarks and what prune removes, or nil when none
// has detailMinWords words.
func longestProse(n *html.Node) *html.Node {
	var best *html.Node
	bestWords := detailMinWords - 1
	var walk func(n *html.Node, inLink bool) int
	// walk returns the words of n's inline content outside links; a
	// block child's words count for the block itself.
	walk = func(n *html.Node, inLink bool) int {
		k := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if !inLink {
					k += countWords(c.Data)
				}
			case html.ElementNode:
				if pruned(c) || regionStrips(c, true) {
					continue
				}
				w := walk(c, inLink || c.DataAtom == atom.A)
				if isBlock(c.DataAtom) {
					if w > bestWords {
						best, bestWords = c, w
					}
				} else {
					k += w
				}
			}
		}
		return k
	}
	walk(n, false)
	return best
}

// detailRoot returns the smallest element of the body that holds both
// its first <h1> and its longest block of prose (longestProse): on a
// product page, the product's name, its buying box and its description,
// without the page's other runs of products. Nil when the body has no
// <h1> or no such block, or when only the body holds both.
func detailRoot(body *html.Node) *html.Node {
	h1 := firstH1(body)
	if h1 == nil {
		return nil
	}
	prose := longestProse(body)
	if prose == nil {
		return nil
	}
	r := commonAncestor(h1, prose)
	if r == nil || r == body || r == h1 {
		return nil
	}
	return r
}

// cardRun is a run of repeated items (itemRun's test: minItems siblings
// or more of one tag and first class word, six in ten of them holding a
// link beside an image, a heading, a price or words of their own).
type cardRun struct {
	items  []*html.Node
	before int // words of the tree before its first item
}

// cardRuns returns the runs of cards under n in the order of their
// first items, outermost runs only.
func cardRuns(n *html.Node) []cardRun {
	type facts struct{ words, linkWords, links, imgs, heads, prices int }
	var runs []cardRun
	seen := 0 // words so far in document order
	var walk func(n *html.Node, inLink, inRun bool) facts
	walk = func(n *html.Node, inLink, inRun bool) facts {
		var f facts
		type group struct {
			items []*html.Node
			good  int
			start int
		}
		var groups map[string]*group
		var order []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				k := countWords(c.Data)
				seen += k
				f.words += k
				if inLink {
					f.linkWords += k
				}
				f.prices += prices(c.Data)
				continue
			}
			if c.Type != html.ElementNode || pruned(c) {
				continue
			}
			start := seen
			cf := walk(c, inLink || c.DataAtom == atom.A, inRun)
			switch c.DataAtom {
			case atom.A:
				cf.links++
			case atom.Img, atom.Picture:
				cf.imgs++
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				cf.heads++
			}
			f.words += cf.words
			f.linkWords += cf.linkWords
			f.links += cf.links
			f.imgs += cf.imgs
			f.heads += cf.heads
			f.prices += cf.prices
			if cf.words == 0 || inRun {
				continue
			}
			if groups == nil {
				groups = make(map[string]*group)
			}
			key := c.Data + "." + itemClass(attr(c, "class"))
			g := groups[key]
			if g == nil {
				g = &group{start: start}
				groups[key] = g
				order = append(order, key)
			}
			g.items = append(g.items, c)
			if cf.links > 0 && (cf.imgs > 0 || cf.heads > 0 || cf.prices > 0 || cf.words-cf.linkWords >= 4) {
				g.good++
			}
		}
		for _, k := range order {
			g := groups[k]
			if len(g.items) >= minItems && g.good*10 >= len(g.items)*6 {
				runs = append(runs, cardRun{items: g.items, before: g.start})
			}
		}
		return f
	}
	walk(n, false, false)
	// Inner runs were found first; keep the outermost, in document order.
	in := make(map[*html.Node]bool)
	for _, r := range runs {
		for _, it := range r.items {
			in[it] = true
		}
	}
	out := runs[:0]
	for _, r := range runs {
		inner := false
		for p := r.items[0].Parent; p != nil && p != n; p = p.Parent {
			if in[p] {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, r)
		}
	}
	sortRuns(out)
	return out
}

// sortRuns orders runs by the words before their first items.
func sortRuns(rs []cardRun) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].before < rs[j-1].before; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// dropSet is a candidate cut out of another tree by leaving elements
// out.
type dropSet map[*html.Node]bool

func (d dropSet) strip(n *html.Node, _ bool) bool { return d[n] }

// trimDrops returns the items of every run of cards in art, or nil when
// it has none: the article without its carousels of other products,
// related posts and add-ons.
func trimDrops(art *html.Node) dropSet {
	runs := cardRuns(art)
	if len(runs) == 0 {
		return nil
	}
	d := make(dropSet)
	for _, r := range runs {
		for _, it := range r.items {
			d[it] = true
		}
	}
	return d
}

// headMinShare is the least share of the article's words before a run
// of cards for headDrops to cut there.
const headMinShare = 0.2

// headDrops returns the elements of art from its first run of cards
// that follows headMinShare of its words or more to its end (the run's
// first item, and every element after it at each level up to art), or
// nil when there is no such run: a product page's description before
// its add-ons, reviews and "customers also bought".
func headDrops(art *html.Node, artWords int) dropSet {
	for _, r := range cardRuns(art) {
		if float64(r.before) < headMinShare*float64(artWords) {
			continue
		}
		d := make(dropSet)
		first := r.items[0]
		for c := first; c != nil && c != art; c = c.Parent {
			s := c.NextSibling
			if c == first {
				s = c
			}
			for ; s != nil; s = s.NextSibling {
				if s.Type == html.ElementNode {
					d[s] = true
				}
			}
		}
		return d
	}
	return nil
}

// cloneWithout returns a copy of n without the elements of d.
func cloneWithout(n *html.Node, d dropSet) *html.Node {
	k := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
	k.Attr = append([]html.Attribute(nil), n.Attr...)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && d[c] {
			continue
		}
		k.AppendChild(cloneWithout(c, d))
	}
	return k
}
