package content

import (
	"os"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var i6Box = os.Getenv("I6_BOX") != ""

// minFacetBoxes is the fewest check boxes or radio buttons that make a
// block of filters.
const minFacetBoxes = 3

// removeCheckLists removes from k, a copy of an item region, every
// element that holds minFacetBoxes check boxes or radio buttons or more
// and no run of items holding half its words, outermost first, when it
// holds under half of k's words.
func removeCheckLists(k *html.Node) {
	if !i6Box {
		return
	}
	total := countWords(nodeText(k))
	var walk func(p *html.Node, depth int) int
	// walk returns the boxes left under p.
	walk = func(p *html.Node, depth int) int {
		if depth >= maxPagerDepth {
			return 0
		}
		boxes := 0
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Input {
				switch strings.ToLower(attr(c, "type")) {
				case "checkbox", "radio":
					boxes++
				}
				continue
			}
			boxes += walk(c, depth+1)
		}
		return boxes
	}
	// Find the outermost elements with enough boxes: count first, then
	// remove top-down.
	var cut func(p *html.Node, depth int)
	cut = func(p *html.Node, depth int) {
		if depth >= maxPagerDepth {
			return
		}
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if walk(c, 0) >= minFacetBoxes {
				words := countWords(nodeText(c))
				g, items := itemRun(c)
				if 2*words <= total && (g == nil || 2*items < words) {
					p.RemoveChild(c)
					continue
				}
				cut(c, depth+1)
			}
		}
	}
	cut(k, 0)
}
