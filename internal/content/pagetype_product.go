package content

import (
	"golang.org/x/net/html"
)

// The product profile. A product page's main content is the product's
// detail block: its name, price, stock, description and specification
// rows. Product pages write much of it twice: a panel for small screens
// and one for large ones, a sticky buy box that repeats the name and
// price line, a tab's text beside the same text in an accordion. The
// page shows one copy; the text holds both, and a reader (and the
// multiset word F1 of wcxb-dev) counts the second as noise. On a page
// taken for a product (p >= profileProb), dedupBlocks keeps the first.

// dedupWords is the fewest words of a block that dedupBlocks removes
// when it repeats an earlier one: shorter blocks (a spec value, "In
// stock", a size) repeat legitimately. Chosen on wcxb-dev half A's
// product pages: 6 moved 13 pages up and none down; 4 moved 15 up and
// 1 down (a comparison grid of sheets repeating "100% long-staple
// cotton"-like rows), 2 moved 17 up and 5 down.
const dedupWords = 6

// dedupBlocks removes from n every leaf block (a block element without
// a block element inside) whose text, white space collapsed, is that
// of an earlier leaf block and holds dedupWords words or more. Leaf
// blocks are disjoint, so the texts read add up to n's text once: the
// walk is linear in n.
func dedupBlocks(n *html.Node) {
	var leaves []*html.Node
	var walk func(n *html.Node) bool // reports a block element inside n
	walk = func(n *html.Node) bool {
		has := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			inner := walk(c)
			if isBlock(c.DataAtom) {
				if !inner {
					leaves = append(leaves, c)
				}
				has = true
			} else if inner {
				has = true
			}
		}
		return has
	}
	walk(n)
	seen := make(map[string]bool)
	for _, l := range leaves {
		t := collapse(nodeText(l))
		if countWords(t) < dedupWords {
			continue
		}
		if seen[t] {
			l.Parent.RemoveChild(l)
			continue
		}
		seen[t] = true
	}
}
