package content

import (
	"strings"

	"golang.org/x/net/html"
)

// Hidden panels inside the chosen region (issue 20, svchid). A service
// page's tab panels and accordion bodies are sent hidden, a reader opens
// them, and the references keep them. settleHidden removes every hidden
// element but keeps it aside (asideNode); on a page whose service
// probability is serviceHiddenProb or more, the WAI-ARIA panels
// (role=tabpanel, or an id named by an aria-controls of the page) whose
// place lies inside the region the extraction chose are put back, and the
// extraction runs again. Other hidden elements (dialogs, the other
// billing period's prices, answers a reference leaves out) stay out.

// serviceHiddenProb is the service probability from which hidden panels
// in the region are put back (0.2: half A's service pages typed article
// reach it).
const serviceHiddenProb = 0.2

// asideNode is a hidden element settleHidden removed from the body, with
// where it stood: its parent and the sibling before it at its removal.
type asideNode struct {
	node, parent, prev *html.Node
}

// maxRegionDepth bounds the ancestors looked at to tell whether a
// hidden element's place lies inside the chosen region.
const maxRegionDepth = 256

// inRegion tells whether n is region or one of its descendants, looking
// at most maxRegionDepth ancestors up.
func inRegion(n, region *html.Node) bool {
	for k := 0; n != nil && k <= maxRegionDepth; k++ {
		if n == region {
			return true
		}
		n = n.Parent
	}
	return false
}

// restoreHidden puts back in place the hidden elements of aside whose
// place lies inside region and for which keep is true, and tells whether
// it put back any. The last removed goes back first: an element's
// sibling before it is then in place again, and a hidden element inside
// another goes back once the outer one is back. An element whose place
// is gone (its sibling before it moved elsewhere) stays out.
func restoreHidden(aside []asideNode, region *html.Node, keep func(n *html.Node) bool) bool {
	put := false
	for i := len(aside) - 1; i >= 0; i-- {
		a := aside[i]
		if a.node.Parent != nil || !keep(a.node) || !inRegion(a.parent, region) {
			continue
		}
		var next *html.Node
		if a.prev == nil {
			next = a.parent.FirstChild
		} else if a.prev.Parent == a.parent {
			next = a.prev.NextSibling
		} else {
			continue
		}
		a.parent.InsertBefore(a.node, next)
		put = true
	}
	return put
}

// maxControls bounds the ids controlled collects, maxControlWalk the
// nodes it walks.
const (
	maxControls    = 1024
	maxControlWalk = 1 << 17
)

// controlled returns the ids named by an aria-controls of the page (the
// tabs' and accordion buttons' panels), at most maxControls, walking at
// most maxControlWalk nodes in document order.
func controlled(root *html.Node) map[string]bool {
	ids := map[string]bool{}
	steps := 0
	for n := root; n != nil && steps < maxControlWalk && len(ids) < maxControls; n = nextWithin(n, root) {
		steps++
		if n.Type == html.ElementNode {
			for f := range strings.FieldsSeq(attr(n, "aria-controls")) {
				ids[f] = true
			}
		}
	}
	return ids
}

// panelOf returns the test of a WAI-ARIA panel of root: role=tabpanel,
// or an id that an aria-controls of the page names.
func panelOf(root *html.Node) func(n *html.Node) bool {
	var ids map[string]bool
	return func(n *html.Node) bool {
		if strings.EqualFold(strings.TrimSpace(attr(n, "role")), "tabpanel") {
			return true
		}
		id := attr(n, "id")
		if id == "" {
			return false
		}
		if ids == nil {
			ids = controlled(root)
		}
		return ids[id]
	}
}

// showPanels puts back the hidden panels of s inside the region of the
// article art (coveringNode) and tells whether it put back any.
func showPanels(root, art *html.Node, s *scanResult) bool {
	body := findBody(root)
	if body == nil {
		return false
	}
	return restoreHidden(s.hidden, coveringNode(body, art), panelOf(root))
}
