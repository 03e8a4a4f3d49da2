package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropSiteHeaders removes from the chosen content n the site's own
// header: a <header> outside any <article> or <main> of n that holds the
// site's navigation (siteNavigation), unless it holds half of n's text
// or more (a page wrapped in one). A region cut at the body or the page
// wrapper keeps the masthead and its menus otherwise; an article's own
// <header> (its title and byline) sits inside the article or holds no
// menu. It tells whether it removed anything. The walk stops at
// maxChromeDepth levels and never enters an <article>, a <main> or a
// removed header; each header is read once, so the walk is linear in
// n's size.
func dropSiteHeaders(n *html.Node) bool {
	total := -1
	removed := false
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth > maxChromeDepth {
			return
		}
		for c := p.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type != html.ElementNode {
				c = next
				continue
			}
			switch c.DataAtom {
			case atom.Article, atom.Main:
			case atom.Header:
				if siteNavigation(c) {
					if total < 0 {
						total = textStats(n, nil).length
					}
					if l := textStats(c, nil).length; 2*l < total {
						p.RemoveChild(c)
						removed = true
					}
				}
			default:
				if !strings.EqualFold(attr(c, "role"), "main") {
					walk(c, depth+1)
				}
			}
			c = next
		}
	}
	walk(n, 0)
	return removed
}

// maxChromeDepth bounds the depth dropSiteHeaders walks to.
const maxChromeDepth = 64

// maxNavScan bounds the elements siteNavigation reads of one header.
const maxNavScan = 4000

// siteNavigation tells whether the header h holds a site's navigation:
// a <nav>, an element of role navigation, menu or menubar, or a list of
// three items or more each holding a link. It reads at most maxNavScan
// elements.
func siteNavigation(h *html.Node) bool {
	seen := 0
	var find func(n *html.Node, depth int) bool
	find = func(n *html.Node, depth int) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if seen++; seen > maxNavScan || depth > maxChromeDepth {
				return false
			}
			switch c.DataAtom {
			case atom.Nav:
				return true
			case atom.Ul, atom.Ol:
				if linkedItems(c) >= 3 {
					return true
				}
			}
			switch strings.ToLower(strings.TrimSpace(attr(c, "role"))) {
			case "navigation", "menu", "menubar":
				return true
			}
			if find(c, depth+1) {
				return true
			}
		}
		return false
	}
	return find(h, 0)
}

// linkedItems counts the <li> children of list that hold a link, up to 3.
func linkedItems(list *html.Node) int {
	k := 0
	for li := list.FirstChild; li != nil && k < 3; li = li.NextSibling {
		if li.Type == html.ElementNode && li.DataAtom == atom.Li && holdsLink(li, 0) {
			k++
		}
	}
	return k
}

// holdsLink tells whether n holds an <a href> within a few levels.
func holdsLink(n *html.Node, depth int) bool {
	if depth > 4 {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.A && attr(c, "href") != "" || holdsLink(c, depth+1) {
			return true
		}
	}
	return false
}

// blockLinkMark marks the <a> elements that wrap a card: a heading or a
// paragraph (markBlockLinks). Their text is read as text, not links.
const blockLinkMark = "data-webacq-blocklink"

// markBlockLinks marks every <a href> under n that wraps a heading, a
// paragraph or a list (a card made one link) with blockLinkMark. Each
// anchor's subtree is read once: anchors inside a marked or unmarked
// anchor are not judged again (nested <a> is not valid HTML).
func markBlockLinks(n *html.Node) {
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth > maxChromeDepth*4 {
			return
		}
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.A {
				if attr(c, "href") != "" && wrapsBlock(c) {
					c.Attr = append(c.Attr, html.Attribute{Key: blockLinkMark})
				}
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(n, 0)
}

// wrapsBlock tells whether a holds a heading or a <p>, within maxNavScan
// elements.
func wrapsBlock(a *html.Node) bool {
	seen := 0
	var find func(n *html.Node, depth int) bool
	find = func(n *html.Node, depth int) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if seen++; seen > maxNavScan || depth > maxChromeDepth {
				return false
			}
			switch c.DataAtom {
			case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				return true
			}
			if find(c, depth+1) {
				return true
			}
		}
		return false
	}
	return find(a, 0)
}

// blockLink tells whether the <a> a is marked by markBlockLinks.
func blockLink(a *html.Node) bool {
	for i := len(a.Attr) - 1; i >= 0; i-- {
		if a.Attr[i].Key == blockLinkMark && a.Attr[i].Namespace == "" {
			return true
		}
	}
	return false
}
