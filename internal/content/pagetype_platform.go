package content

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Platform readers of collection and listing pages: shops whose engine
// writes its items in its own markup, the same from site to site, where
// the generic item run (itemRun) can take a menu, a banner or a block of
// recommendations for the items. WooCommerce is kept; readers of
// Shopify grids, WordPress archives, Drupal views, Ghost feeds and
// Blogger posts were measured and not kept (bench/content/README.md,
// items5).

// minPlatformItems is the fewest items that make a platform's grid.
const minPlatformItems = 3

// wooGrid returns a WooCommerce shop's grid of products: the first
// ul.products (the loop WooCommerce's templates write on its shop,
// category and tag pages) with minPlatformItems li.product children or
// more, or nil.
func wooGrid(body *html.Node) *html.Node {
	for d := range body.Descendants() {
		if d.DataAtom != atom.Ul || !hasClassToken(d, "products") {
			continue
		}
		items := 0
		for c := d.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Li && hasClassToken(c, "product") {
				items++
			}
		}
		if items >= minPlatformItems {
			return d
		}
	}
	return nil
}
