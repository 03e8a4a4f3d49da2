package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Platform readers of collection and listing pages: shops and blogs
// whose engine writes its items in its own markup, the same from site
// to site, where the generic item run (itemRun) can take a menu or a
// banner for the items. Each reader names its grid; the item profile
// (itemsContentOf) then treats it as it treats the run it finds.

// shopifyStore reports whether the page under root is served by
// Shopify: its head holds the platform's own meta tags
// (shopify-checkout-api-token, shopify-digital-wallet) or loads a
// script or style sheet from the platform's file host, anywhere in the
// document (a theme's markup in the head can close it early).
func shopifyStore(root *html.Node) bool {
	for c := range root.Descendants() {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Meta:
			if n := attr(c, "name"); n == "shopify-checkout-api-token" || n == "shopify-digital-wallet" {
				return true
			}
			if attr(c, "id") == "shopify-digital-wallet" {
				return true
			}
		case atom.Script:
			if strings.Contains(attr(c, "src"), "cdn.shopify.com/") {
				return true
			}
		case atom.Link:
			if strings.Contains(attr(c, "href"), "cdn.shopify.com/") {
				return true
			}
		}
	}
	return false
}

// shopifyProductLink reports whether href is a link to one of the
// store's products: Shopify serves every product at /products/<handle>,
// after an optional locale or collection path.
func shopifyProductLink(href string) bool {
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		href = href[:i]
	}
	i := strings.Index(href, "/products/")
	if i < 0 {
		return false
	}
	handle := href[i+len("/products/"):]
	return handle != "" && !strings.Contains(handle, "/")
}

// minShopItems is the fewest product cards that make a Shopify grid.
const minShopItems = 3

// shopifyGrid returns the collection's grid of product cards in a
// Shopify store's body: of the elements with minShopItems children or
// more that each link to a product, the first after the page's first
// <h1> (the collection's title; a grid of recommendations comes below
// the collection's own), or the one with the most such children when
// none follows an <h1>. It returns nil when no element has minShopItems
// of them. Navigation, headers, footers and asides (a mega-menu's
// featured products) hold no grid.
func shopifyGrid(body *html.Node) *html.Node {
	var most, after *html.Node
	mostItems, order, h1 := 0, 0, -1
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		order++
		at := order
		if n.DataAtom == atom.H1 && h1 < 0 {
			h1 = at
		}
		has := n.DataAtom == atom.A && shopifyProductLink(attr(n, "href"))
		items := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Script, atom.Style, atom.Template:
				continue
			}
			if walk(c) {
				has = true
				items++
			}
		}
		if items >= minShopItems {
			if items > mostItems {
				most, mostItems = n, items
			}
			if h1 >= 0 && at > h1 && after == nil {
				after = n
			}
		}
		return has
	}
	walk(body)
	if after != nil {
		return after
	}
	return most
}

// wooGrid returns a WooCommerce shop's grid of products: the first
// ul.products with minShopItems li.product children or more, or nil.
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
		if items >= minShopItems {
			return d
		}
	}
	return nil
}

// wordpressPosts returns a WordPress blog, archive or category page's
// run of posts: the first element with minShopItems <article> children
// or more of class post (or type-post) that hold an .entry-title, or
// nil when the body's class names none of those pages.
func wordpressPosts(body *html.Node) *html.Node {
	if !hasClassToken(body, "blog") && !hasClassToken(body, "archive") && !hasClassToken(body, "category") {
		return nil
	}
	for d := range body.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		items := 0
		for c := d.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Article && (hasClassToken(c, "post") || hasClassToken(c, "type-post")) &&
				firstClassed(c, "entry-title") != nil {
				items++
			}
		}
		if items >= minShopItems {
			return d
		}
	}
	return nil
}

// wordpressArchive returns a copy of a WordPress archive's posts (region,
// climbed from wordpressPosts) under the archive's own description
// (the theme's .archive-description or .taxonomy-description: the
// category's title and text) when the region does not hold it.
func wordpressArchive(body, region *html.Node) *html.Node {
	k := itemsCopy(region)
	desc := firstMatch(body, func(d *html.Node) bool {
		return hasClassToken(d, "archive-description") || hasClassToken(d, "taxonomy-description")
	})
	if desc == nil || isAncestor(region, desc) || isAncestor(desc, region) {
		return k
	}
	out := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	out.AppendChild(itemsCopy(desc))
	out.AppendChild(k)
	return out
}

// drupalView returns a Drupal view's rows: the first .view-content
// with minShopItems .views-row children or more, or nil.
func drupalView(body *html.Node) *html.Node {
	return classedRun(body, "view-content", "views-row")
}

// ghostFeed returns a Ghost blog's feed: the first .post-feed with
// minShopItems .post-card children or more, or nil.
func ghostFeed(body *html.Node) *html.Node {
	return classedRun(body, "post-feed", "post-card")
}

// bloggerPosts returns a Blogger blog's posts: the first .blog-posts
// holding minShopItems .post-outer (or .post-outer-container) or more,
// or nil.
func bloggerPosts(body *html.Node) *html.Node {
	for d := range body.Descendants() {
		if d.Type != html.ElementNode || !hasClassToken(d, "blog-posts") {
			continue
		}
		items := 0
		for e := range d.Descendants() {
			if e.Type == html.ElementNode && (hasClassToken(e, "post-outer") || hasClassToken(e, "post-outer-container")) {
				items++
			}
		}
		if items >= minShopItems {
			return d
		}
	}
	return nil
}

// classedRun returns the first element of class grid with minShopItems
// element children or more of class item, or nil.
func classedRun(body *html.Node, grid, item string) *html.Node {
	for d := range body.Descendants() {
		if d.Type != html.ElementNode || !hasClassToken(d, grid) {
			continue
		}
		items := 0
		for c := d.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && hasClassToken(c, item) {
				items++
			}
		}
		if items >= minShopItems {
			return d
		}
	}
	return nil
}
