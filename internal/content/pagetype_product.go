package content

import (
	"strings"

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

// Platform profiles. A shop built on a commerce platform writes its
// product page in the platform's own markup, whatever the site's theme,
// so a profile that reads that markup carries over to every shop of the
// platform. WooCommerce (WordPress) writes the single product as one
// element of class "type-product" holding the summary (class
// "entry-summary": name, price, short description, the cart form and
// the SKU and category line) and the tabs (class "woocommerce-tabs":
// the description, the attributes, the reviews), followed by related
// products and up-sells in sections of their own.

// wooDrop names, by class, the parts of WooCommerce's product element
// that are not the product: the image gallery, the tab list (the panels
// keep their own headings), and the runs of other products.
var wooDrop = [...]string{"woocommerce-product-gallery", "wc-tabs", "woocommerce-Tabs-panel--reviews", "woocommerce-Reviews", "related", "upsells", "up-sells", "cross-sells"}

// wooProduct returns a copy of the WooCommerce product element of the
// tree under body, without the parts wooDrop names and the cart form
// (its quantity box and button; the variation choices are in it too),
// or nil when the page has none. The product element is the first
// element of class "type-product" that holds an element of class
// "entry-summary": product cards in a grid are of class "type-product"
// too, but hold no summary.
func wooProduct(body *html.Node) (product, summary *html.Node) {
	var found *html.Node
	var walk func(n *html.Node, inProduct *html.Node)
	walk = func(n *html.Node, inProduct *html.Node) {
		for c := n.FirstChild; c != nil && found == nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			p := inProduct
			if p == nil && hasClassToken(c, "type-product") {
				p = c
			}
			if p != nil && hasClassToken(c, "entry-summary") {
				found, summary = p, c
				return
			}
			walk(c, p)
		}
	}
	walk(body, nil)
	if found == nil {
		return nil, nil
	}
	out := cloneTree(found)
	var drop func(n *html.Node)
	drop = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && wooDropped(c) {
				n.RemoveChild(c)
			} else {
				drop(c)
			}
			c = next
		}
	}
	drop(out)
	prune(out)
	return out, summary
}

// wooDropped tells whether n is a part of WooCommerce's product element
// that wooProduct leaves out.
func wooDropped(n *html.Node) bool {
	if n.Data == "form" && hasClassToken(n, "cart") {
		return true
	}
	for _, c := range wooDrop {
		if hasClassToken(n, c) {
			return true
		}
	}
	return false
}

// hasClassToken tells whether one of n's classes is c.
func hasClassToken(n *html.Node, c string) bool {
	v := attr(n, "class")
	for len(v) > 0 {
		i := strings.IndexAny(v, " \t\n\r\f")
		tok := v
		if i >= 0 {
			tok, v = v[:i], v[i+1:]
		} else {
			v = ""
		}
		if tok == c {
			return true
		}
	}
	return false
}

// platformProduct returns the product of a page built on a platform
// whose product markup a profile reads, when the article art (the
// readability pass's choice, may be nil) lies elsewhere: it holds under
// half of the words of the product's summary (its name, price and short
// description), or half of its text is in links (a menu). An article of
// prose that holds the summary is the product with what the theme
// writes beside it (a description outside the platform's element) and
// stays.
func platformProduct(root, art *html.Node) *html.Node {
	body := findBody(root)
	if body == nil {
		return nil
	}
	w, summary := wooProduct(body)
	if w == nil {
		return nil
	}
	if art == nil {
		return w
	}
	if st := textStats(art, nil); st.linkLen >= 0.5*float64(st.length) {
		return w // a menu, not the product
	}
	if wordShare(nodeText(summary), textOf(art)) >= 0.5 {
		return nil
	}
	return w
}

// wordShare returns the share of a's words (lowered, a multiset) that b
// holds; 1 when a has none.
func wordShare(a, b string) float64 {
	aw := strings.Fields(strings.ToLower(a))
	if len(aw) == 0 {
		return 1
	}
	have := make(map[string]int)
	for _, w := range strings.Fields(strings.ToLower(b)) {
		have[w]++
	}
	n := 0
	for _, w := range aw {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return float64(n) / float64(len(aw))
}
