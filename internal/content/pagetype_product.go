package content

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The product profile. A product page's main content is the product's
// detail block: its name, price, stock, description and specification
// rows. Whatever region the pipeline chose (the article, the region
// around the <h1>, the body), it often also holds the page's runs of
// other products (carousels of "similar items", "customers also
// bought", recommended accessories): cards, each a link to another
// product beside its image or price. productTrim removes those runs.

// cardFacts sums a subtree for telling a product card.
type cardFacts struct {
	words, linkWords, links, imgs, prices int
}

// productTrim removes from n every run of product cards: minItems or
// more sibling elements of one tag and first class word (itemKeyOf),
// six in ten of them cards (a link beside an image or a price) and half
// or more of the run's words in links. It returns the words removed.
func productTrim(n *html.Node) int {
	removed := 0
	var walk func(n *html.Node, inLink bool) cardFacts
	walk = func(n *html.Node, inLink bool) cardFacts {
		var f cardFacts
		type group struct {
			kids                    []*html.Node
			cards, words, linkWords int
		}
		var groups map[itemKey]*group
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				k := countWords(c.Data)
				f.words += k
				if inLink {
					f.linkWords += k
				}
				f.prices += prices(c.Data)
				continue
			case html.ElementNode:
			default:
				continue
			}
			cf := walk(c, inLink || c.DataAtom == atom.A)
			switch c.DataAtom {
			case atom.A:
				cf.links++
			case atom.Img, atom.Picture:
				cf.imgs++
			}
			f.words += cf.words
			f.linkWords += cf.linkWords
			f.links += cf.links
			f.imgs += cf.imgs
			f.prices += cf.prices
			if cf.words == 0 {
				continue
			}
			if groups == nil {
				groups = make(map[itemKey]*group)
			}
			key := itemKeyOf(c.Data, itemClass(attr(c, "class")))
			g := groups[key]
			if g == nil {
				g = &group{}
				groups[key] = g
			}
			g.kids = append(g.kids, c)
			g.words += cf.words
			g.linkWords += cf.linkWords
			if cf.links > 0 && (cf.imgs > 0 || cf.prices > 0) {
				g.cards++
			}
		}
		for _, g := range groups {
			if len(g.kids) >= minItems && g.cards*10 >= len(g.kids)*6 && 2*g.linkWords >= g.words {
				for _, k := range g.kids {
					n.RemoveChild(k)
				}
				removed += g.words
				f.words -= g.words
				f.linkWords -= g.linkWords
			}
		}
		return f
	}
	walk(n, false)
	return removed
}

// productControls removes n's controls: <select> lists, <button>s and
// the hidden text of <input>s.
func productControls(n *html.Node, tags map[atom.Atom]bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			if tags[c.DataAtom] {
				n.RemoveChild(c)
			} else {
				productControls(c, tags)
			}
		}
		c = next
	}
}

// dedupWords is the fewest words of a block that dedupBlocks removes
// when it repeats an earlier one.
var dedupWords = 6

// dedupBlocks removes from n every leaf block (a block element without
// block elements inside) whose text, white space collapsed, is that of
// an earlier leaf block and holds dedupWords words or more: the same
// panel written twice for two screen sizes, a tab's title repeated as
// its heading. The leaf blocks' texts are disjoint, so the walk reads
// each text once.
func dedupBlocks(n *html.Node) {
	seen := make(map[string]bool)
	var leaves []*html.Node
	var walk func(n *html.Node) bool // reports a block inside n
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
	for _, l := range leaves {
		t := collapse(nodeText(l))
		if countWords(t) < dedupWords {
			continue
		}
		if seen[t] {
			if l.Parent != nil {
				l.Parent.RemoveChild(l)
			}
			continue
		}
		seen[t] = true
	}
}
