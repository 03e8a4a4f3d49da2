package content

import (
	"net/url"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Helpers for the monitors' change detection (internal/monitor/detect),
// which watches one region of a page and needs that region as a node of
// the page's own tree rather than as the detached copy HTML converts.

// MainNode returns the element of the parsed page root that holds its
// main content, found by the same extraction as HTML with
// OnlyMainContent, or <body> when the extraction finds nothing. root is
// modified as HTML modifies it: comments, scripts, styles, templates,
// svg and elements a browser would not show are removed. nil means the
// page has no <body>.
//
// The extractors return a cleaned copy of the article; the element
// returned is the smallest one of root that holds at least 90% of the
// copy's text.
func MainNode(root *html.Node, pageURL string) *html.Node {
	body := findBody(root)
	if body == nil {
		return nil
	}
	base, _ := url.Parse(pageURL)
	s := scan(root, base, false)
	art, _ := mainContent(root, s.base, s.sig, s.title, nil)
	if art == nil {
		return body
	}
	return coveringNode(body, art)
}

// coveringNode returns the deepest element under body whose text nodes
// cover at least 90% of the characters of body's text nodes that also
// occur in art.
func coveringNode(body, art *html.Node) *html.Node {
	want := make(map[string]int)
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				if t := collapse(c.Data); t != "" {
					want[t]++
				}
			}
			collect(c)
		}
	}
	collect(art)
	if len(want) == 0 {
		return body
	}
	cover := make(map[*html.Node]int)
	var count func(*html.Node) int
	count = func(n *html.Node) int {
		total := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if t := collapse(c.Data); t != "" && want[t] > 0 {
					total += len(t)
				}
			case html.ElementNode:
				total += count(c)
			}
		}
		cover[n] = total
		return total
	}
	total := count(body)
	if total == 0 {
		return body
	}
	n := body
	for {
		var next *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && cover[c]*10 >= total*9 {
				next = c
				break
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
}

// NodeMarkdown converts n and its subtree to markdown, links and media
// made absolute against pageURL, tables normalised as in HTML. n is
// modified (its URLs are rewritten, its tables rebuilt); pass a copy when
// the tree is still needed.
func NodeMarkdown(n *html.Node, pageURL string) string {
	base, _ := url.Parse(pageURL)
	wrap := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	if n.Parent == nil {
		wrap.AppendChild(n)
		defer func() {
			// A one-column table n has been replaced by its blocks.
			if n.Parent == wrap {
				wrap.RemoveChild(n)
			}
		}()
	} else {
		// Appending n to the wrapper would detach it from its tree.
		n = cloneTree(n)
		wrap.AppendChild(n)
	}
	normalizeTables(wrap)
	absolutize(wrap, base, nil)
	return toMarkdown(wrap)
}

// cloneTree copies n and its subtree.
func cloneTree(n *html.Node) *html.Node {
	k := &html.Node{Type: n.Type, Data: n.Data, DataAtom: n.DataAtom, Namespace: n.Namespace}
	if len(n.Attr) > 0 {
		k.Attr = append([]html.Attribute(nil), n.Attr...)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		k.AppendChild(cloneTree(c))
	}
	return k
}
