package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Carousels on product pages (issue 20, prec). WAI-ARIA's carousel
// pattern marks a rotating set of slides with
// aria-roledescription="carousel". On a product page the carousels that
// hold text are rows of other products' cards ("People who viewed this
// item also viewed", "Similar items", "Customers also bought"): on
// wcxb-dev half A their words in our text were 1,285 that the
// references leave out against 1 that they hold (Amazon, eBay). The
// product's own picture gallery is a carousel too; it holds no links to
// other pages and stays. Articles and service pages write their own
// content as carousels (slides of features, quotes), so the rule is the
// product profile's.

// carouselsOn switches the rule on. It is off: measured once on both
// halves, B kept 57 % of A's product gain (bench/content/README.md, prec).
var carouselsOn = false

// maxCarouselDepth bounds removeCarousels' descent.
const maxCarouselDepth = 256

// carouselLinks is the fewest links to other pages that make a carousel
// a row of cards rather than a picture gallery.
const carouselLinks = 2

// removeCarousels removes from n, a product page's main content, every
// ARIA carousel that holds carouselLinks links or more and under half of
// n's words. It reports whether it removed any.
func removeCarousels(n *html.Node) bool {
	total := -1
	removed := false
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth >= maxCarouselDepth {
			return
		}
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if ariaCarousel(c) && linksAtLeast(c, carouselLinks) {
				if total < 0 {
					total = countWords(nodeText(n))
				}
				if 2*countWords(nodeText(c)) < total {
					p.RemoveChild(c)
					removed = true
					continue
				}
			}
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return removed
}

// ariaCarousel tells whether n's aria-roledescription is "carousel".
func ariaCarousel(n *html.Node) bool {
	v := attr(n, "aria-roledescription")
	return v != "" && strings.EqualFold(strings.TrimSpace(v), "carousel")
}

// linksAtLeast tells whether n holds k or more <a> elements with an
// href other than a fragment.
func linksAtLeast(n *html.Node, k int) bool {
	count := 0
	var walk func(p *html.Node) bool
	walk = func(p *html.Node) bool {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.A {
				if h := strings.TrimSpace(attr(c, "href")); h != "" && !strings.HasPrefix(h, "#") {
					count++
					if count >= k {
						return true
					}
				}
			}
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(n)
}
