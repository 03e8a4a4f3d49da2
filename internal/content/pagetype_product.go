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

// Hidden panels. A product page's description, specifications and
// reviews often sit in tabs or an accordion: one panel is shown and the
// others are hidden (the hidden attribute, aria-hidden or an inline
// display:none) until their tab or button is pressed. The scan removes
// hidden elements from every page; on a page taken for a product, the
// panels come back before the main content is chosen, as a reader who
// opens each tab sees them. A panel is a hidden element that WAI-ARIA
// marks as one: role="tabpanel", or an id that a control names in its
// aria-controls. Other hidden elements (menus, dialogs, size guides
// shown on a click, templates) stay out.

// maxHiddenKept bounds the hidden elements the scan keeps aside per
// page, and so the work of restorePanels.
const maxHiddenKept = 256

// hiddenAt is a hidden element the scan took out of the body: its parent
// and the sibling before it then (nil when it was the first child).
type hiddenAt struct {
	node, parent, prev *html.Node
}

// maybePanel tells whether n could be a panel: it has an id or a role.
func maybePanel(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && (a.Key == "id" && a.Val != "" || a.Key == "role") {
			return true
		}
	}
	return false
}

// restorePanels puts back in the body the panels among hidden (the
// scan's, in document order) whose parent is still in the tree. One walk
// of the body reads the ids named by aria-controls.
func restorePanels(body *html.Node, hidden []hiddenAt) {
	if body == nil || len(hidden) == 0 {
		return
	}
	controlled := make(map[string]bool)
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if v := attr(c, "aria-controls"); v != "" && len(controlled) < 4*maxHiddenKept {
				for f := range strings.FieldsSeq(v) {
					controlled[f] = true
				}
			}
			walk(c)
		}
	}
	walk(body)
	// From the last to the first, so that panels that were siblings
	// go back in their order after the same kept sibling.
	for i := len(hidden) - 1; i >= 0; i-- {
		h := hidden[i]
		if !strings.EqualFold(attr(h.node, "role"), "tabpanel") && !controlled[attr(h.node, "id")] {
			continue
		}
		if !isAncestor(body, h.parent) {
			continue
		}
		switch {
		case h.prev == nil:
			h.parent.InsertBefore(h.node, h.parent.FirstChild)
		case h.prev.Parent == h.parent:
			h.parent.InsertBefore(h.node, h.prev.NextSibling)
		}
	}
}
