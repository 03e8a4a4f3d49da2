package content

import (
	"os"
	"strings"

	"golang.org/x/net/html"
)

// Throwaway experiment switches (not to be committed).
var tkH, tkHK, tkD = os.Getenv("TK_H"), os.Getenv("TK_HK"), os.Getenv("TK_D")

func tkHidden(typ int, probs [len(PageTypes)]float64) bool {
	switch tkH {
	case "":
		return false
	case "all":
		return true
	case "dc":
		return typ == typeIndex(TypeDocumentation) || typ == typeIndex(TypeCollection)
	case "dca":
		return typ == typeIndex(TypeDocumentation) || typ == typeIndex(TypeCollection) || typ == typeIndex(TypeArticle)
	case "d":
		return typ == typeIndex(TypeDocumentation)
	case "c":
		return typ == typeIndex(TypeCollection)
	case "notpf":
		return typ != typeIndex(TypeProduct) && typ != typeIndex(TypeForum)
	case "notaf":
		return typ != typeIndex(TypeArticle) && typ != typeIndex(TypeForum)
	case "dcs":
		return typ == typeIndex(TypeDocumentation) || typ == typeIndex(TypeCollection) || typ == typeIndex(TypeService)
	case "notpfp":
		return probs[typeIndex(TypeProduct)]+probs[typeIndex(TypeForum)] < 0.1
	}
	return false
}

func tkHiddenKind(n *html.Node) bool {
	switch tkHK {
	case "", "all":
		return true
	case "noaria": // hidden by hidden attribute or style, not by aria-hidden only
		for _, a := range n.Attr {
			if a.Key == "hidden" {
				return true
			}
			if a.Key == "style" {
				st := strings.ToLower(strings.ReplaceAll(a.Val, " ", ""))
				if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
					return true
				}
			}
		}
		return false
	case "panel":
		if strings.EqualFold(attr(n, "role"), "tabpanel") {
			return true
		}
		id := attr(n, "id")
		return id != "" && tkControls[id]
	case "aria": // aria-hidden only: shown by a browser
		for _, a := range n.Attr {
			if a.Key == "hidden" {
				return false
			}
			if a.Key == "style" {
				st := strings.ToLower(strings.ReplaceAll(a.Val, " ", ""))
				if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
					return false
				}
			}
		}
		return true
	}
	return true
}

var tkKeepDivs, tkKeepRun bool

func tkDivs(typ int, probs [len(PageTypes)]float64, f *typeFeatures) (bool, bool) {
	l := typ == typeIndex(TypeListing)
	lc := l || typ == typeIndex(TypeCollection)
	switch tkD {
	case "all":
		return true, false
	case "l":
		return l, false
	case "runall":
		return false, true
	case "runl":
		return false, l
	case "runlc":
		return false, lc
	}
	return false, false
}

// inItemRun tells whether n is one of at least minItems siblings of its
// tag and first class word (itemClass), looking at most maxRunLook
// siblings each side.
func inItemRun(n *html.Node) bool {
	const maxRunLook = 32
	key := itemClass(attr(n, "class"))
	same := 1
	look := func(next func(*html.Node) *html.Node) bool {
		k := 0
		for c := next(n); c != nil && k < maxRunLook; c = next(c) {
			if c.Type != html.ElementNode {
				continue
			}
			k++
			if c.DataAtom == n.DataAtom && c.Data == n.Data && itemClass(attr(c, "class")) == key {
				if same++; same >= minItems {
					return true
				}
			}
		}
		return false
	}
	return look(func(c *html.Node) *html.Node { return c.PrevSibling }) || look(func(c *html.Node) *html.Node { return c.NextSibling })
}

var tkControls map[string]bool

func tkCollectControls(n *html.Node) {
	if tkHK != "panel" {
		return
	}
	tkControls = map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for f := range strings.FieldsSeq(attr(n, "aria-controls")) {
				tkControls[f] = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
}
