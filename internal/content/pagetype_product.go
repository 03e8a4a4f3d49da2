package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main content of a product page. A product's detail block holds its
// name (the page's <h1>), its price and buy box, its description and its
// specification tables, often in separate columns and tabs; the
// readability pass keeps the longest of these (the description, or the
// specifications) and may lose the name and the rest. When the article
// lacks the product's name, the profile takes the smallest element
// holding both the <h1> and the article; either way it removes what
// sits beside a product without describing it: menus, page headers and
// footers, forms and controls, and runs of product cards
// (recommendations, "customers also viewed").

// productProb is the least product probability for the profile, above
// the other profiles' profileProb: on wcxb-dev half A, an article the
// classifier called a product at 0.42 lost precision to its <h1>'s
// block (chosen on half A, as profileProb was).
const productProb = 0.45

// productContent returns the product's detail block under body as a
// cleaned copy, or nil to keep the readability article art.
func productContent(body, art *html.Node) *html.Node {
	if art == nil {
		return nil
	}
	if h1 := productName(body); h1 != nil && !strings.Contains(collapse(textOf(art)), collapse(nodeText(h1))) {
		if k := productRegion(body, art, h1); k != nil {
			return k
		}
	}
	k := cloneTree(art)
	dropBesideProduct(k)
	if countWords(textOf(k)) == 0 {
		return nil
	}
	return k
}

// productRegion returns a cleaned copy of the smallest element of body
// holding both the product's name h1 and the element that holds the
// article art, or nil when that element is the page's frame (the body,
// or an element holding the page's header or footer) or adds no words
// to the article.
func productRegion(body, art, h1 *html.Node) *html.Node {
	region := commonAncestor(h1, coveringNode(body, art))
	if region == nil || region == body || hasLayout(region) {
		return nil
	}
	k := cloneTree(region)
	prune(k)
	dropBesideProduct(k)
	if countWords(textOf(k)) <= countWords(textOf(art)) {
		return nil
	}
	return k
}

// productName returns the first <h1> with words under body outside a
// header, a menu or a footer (a site's logo is often an <h1> there).
func productName(body *html.Node) *html.Node {
	var found *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && found == nil; c = c.NextSibling {
			if c.Type != html.ElementNode || layoutElement(c) {
				continue
			}
			if c.DataAtom == atom.H1 && countWords(nodeText(c)) > 0 {
				found = c
				return
			}
			walk(c)
		}
	}
	walk(body)
	return found
}

// layoutElement reports whether n is part of the page's frame rather
// than of its content: a header, a menu, a footer or a side column, by
// tag or by ARIA role.
func layoutElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Header, atom.Nav, atom.Footer, atom.Aside:
		return true
	}
	switch attr(n, "role") {
	case "banner", "navigation", "contentinfo", "complementary":
		return true
	}
	return false
}

// control reports whether n is a form or one of its controls: a buy
// box's quantity and buttons, a review form; their labels and options
// are not the product's description.
func control(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Form, atom.Textarea, atom.Select, atom.Button:
		return true
	}
	return false
}

// hasLayout reports whether n holds a page header or footer, which
// makes it the page's frame rather than a product's block.
func hasLayout(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.Header || c.DataAtom == atom.Footer {
			return true
		}
		switch attr(c, "role") {
		case "banner", "contentinfo":
			return true
		}
		if hasLayout(c) {
			return true
		}
	}
	return false
}

// commonAncestor returns the deepest node holding both a and b.
func commonAncestor(a, b *html.Node) *html.Node {
	seen := make(map[*html.Node]bool)
	for n := a; n != nil; n = n.Parent {
		seen[n] = true
	}
	for n := b; n != nil; n = n.Parent {
		if seen[n] {
			return n
		}
	}
	return nil
}

// dropBesideProduct removes from n the page's frame (menus, headers,
// footers, side columns), forms and controls, and runs of product
// cards: at least three siblings of the same tag and first class, most
// of them cards (productCard).
func dropBesideProduct(n *html.Node) {
	type group struct {
		nodes []*html.Node
		cards int
	}
	var groups map[string]*group
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type != html.ElementNode:
		case layoutElement(c) || control(c):
			n.RemoveChild(c)
		default:
			dropBesideProduct(c)
			if groups == nil {
				groups = make(map[string]*group)
			}
			key := c.Data + "." + firstClass(c)
			g := groups[key]
			if g == nil {
				g = &group{}
				groups[key] = g
			}
			g.nodes = append(g.nodes, c)
			if productCard(c) {
				g.cards++
			}
		}
		c = next
	}
	for _, g := range groups {
		if len(g.nodes) >= 3 && g.cards*10 >= len(g.nodes)*6 {
			for _, c := range g.nodes {
				n.RemoveChild(c)
			}
		}
	}
}

// firstClass returns the first class name of n: a run's cards share it,
// while their later classes often name each item (WooCommerce's
// "product post-123").
func firstClass(n *html.Node) string {
	c := strings.Fields(attr(n, "class"))
	if len(c) == 0 {
		return ""
	}
	return c[0]
}

// productCard reports whether n reads as a teaser of another product:
// at least two words, half of them or more in links, and an image or a
// price. A block of the product's own (a feature with an image and a
// "learn more" link) is mostly unlinked words.
func productCard(n *html.Node) bool {
	var imgs, price, words, linkWords int
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				k := countWords(c.Data)
				words += k
				if inLink {
					linkWords += k
				}
				price += prices(c.Data)
			case html.ElementNode:
				if c.DataAtom == atom.Img || c.DataAtom == atom.Picture {
					imgs++
				}
				walk(c, inLink || c.DataAtom == atom.A)
			}
		}
	}
	walk(n, false)
	return (imgs > 0 || price > 0) && words >= 2 && linkWords*2 >= words
}
