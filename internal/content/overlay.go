package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Overlays in the main content (issue 20, prec). Some of a page's text
// is shown only when the reader acts: a <dialog> without its open
// attribute and an element with the popover attribute are not rendered
// until a script opens them (the browser's own style sheet hides them),
// and the WAI-ARIA roles dialog, alertdialog and tooltip mark boxes
// drawn over the page on a click or a hover (a size guide, a "quick
// view", a "notify me" form, a definition under a label). The readability
// pass drops aria-modal dialogs only, and only from the article it
// scores. On wcxb-dev half A such overlays held 511 words of our text on
// five pages (a collection, two listings with dialogs, one with
// tooltips, an article) and 13 words of the references.

// overlaysOn switches the rule on. It is off: measured once on both
// halves, collection went down on both (bench/content/README.md, prec).
var overlaysOn = false

// maxOverlayDepth bounds removeOverlays' descent.
const maxOverlayDepth = 256

// removeOverlays removes from n, a page's main content, every overlay
// (see overlay) that holds under half of n's words. It reports whether
// it removed any.
func removeOverlays(n *html.Node) bool {
	total := -1
	removed := false
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth >= maxOverlayDepth {
			return
		}
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if overlay(c) {
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

// overlay tells whether n is shown only when the reader acts: a closed
// <dialog>, a popover, or an element whose role is dialog, alertdialog
// or tooltip.
func overlay(n *html.Node) bool {
	if n.DataAtom == atom.Dialog && !hasAttr(n, "open") {
		return true
	}
	if hasAttr(n, "popover") {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(attr(n, "role"))) {
	case "dialog", "alertdialog", "tooltip":
		return true
	}
	return false
}
