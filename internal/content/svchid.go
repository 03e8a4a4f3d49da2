package content

import (
	"os"
	"strings"

	"golang.org/x/net/html"
)

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

// Experiment switches (removed before merge).
var svhGate, svhKind = os.Getenv("SVH"), os.Getenv("SVH_K")

func svhTyped(typ int, probs [len(PageTypes)]float64) bool {
	switch svhGate {
	case "p20":
		return probs[typeIndex(TypeService)] >= 0.2
	case "p25":
		return probs[typeIndex(TypeService)] >= 0.25
	case "s":
		return typ == typeIndex(TypeService)
	case "ds":
		return typ == typeIndex(TypeService) || typ == typeIndex(TypeDocumentation)
	case "na":
		return typ != typeIndex(TypeArticle)
	}
	return false
}

// controlled returns the ids named by an aria-controls of the page,
// at most maxControls, walking at most maxControlWalk elements.
func controlled(root *html.Node) map[string]bool {
	const maxControls, maxControlWalk = 1024, 1 << 17
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

func svhKeep(root *html.Node) func(n *html.Node) bool {
	if svhKind == "details" {
		ids := controlled(root)
		return func(n *html.Node) bool {
			if strings.EqualFold(attr(n, "role"), "tabpanel") {
				return true
			}
			if id := attr(n, "id"); id != "" && ids[id] {
				return true
			}
			for f := range strings.FieldsSeq(strings.ToLower(attr(n, "class"))) {
				if strings.Contains(f, "accordion") || strings.Contains(f, "collapse") || strings.Contains(f, "tab-pane") || strings.Contains(f, "readmore") || strings.Contains(f, "read-more") {
					return true
				}
			}
			return false
		}
	}
	if svhKind != "panel" {
		return func(*html.Node) bool { return true }
	}
	ids := controlled(root)
	return func(n *html.Node) bool {
		if strings.EqualFold(attr(n, "role"), "tabpanel") {
			return true
		}
		id := attr(n, "id")
		return id != "" && ids[id]
	}
}

