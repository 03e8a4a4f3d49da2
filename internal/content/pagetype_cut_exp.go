package content

import (
	"os"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var i6Cut = os.Getenv("I6_CUT") != ""

// cutBeforeH1 returns the copy of the item region r without what
// precedes the page's first <h1> in it, when r holds that <h1> and the
// run of items (grid) comes after it; else nil.
func cutBeforeH1(body, r, grid *html.Node) *html.Node {
	var h1 *html.Node
	steps := 0
	for d := range r.Descendants() {
		steps++
		if steps > maxH1Steps || d == grid {
			return nil
		}
		if d.Type == html.ElementNode && d.DataAtom == atom.H1 && !inFrame(d, body) {
			h1 = d
			break
		}
	}
	if h1 == nil || h1 == r {
		return nil
	}
	// The path of child indices from r down to h1.
	var path []int
	for n := h1; n != r; n = n.Parent {
		i := 0
		for c := n.Parent.FirstChild; c != n; c = c.NextSibling {
			i++
		}
		path = append(path, i)
	}
	k := cloneTree(r)
	n := k
	for j := len(path) - 1; j >= 0; j-- {
		c := n.FirstChild
		for i := 0; i < path[j]; i++ {
			c = c.NextSibling
		}
		for c.PrevSibling != nil {
			n.RemoveChild(c.PrevSibling)
		}
		n = c
	}
	return itemsFinish(k)
}

var i6Title = os.Getenv("I6_TITLE") != ""

// maxTitleWords is the most words of an <h1> put first.
const maxTitleWords = 12

// titleFirst puts a copy of the page's first <h1> outside its frame at
// the start of n, a collection's or listing's main content, when n's
// text lacks the heading's. It reports whether it did.
func titleFirst(root, n *html.Node) bool {
	if !i6Title {
		return false
	}
	body := findBody(root)
	if body == nil {
		return false
	}
	var h1 *html.Node
	steps := 0
	for d := range body.Descendants() {
		steps++
		if steps > maxH1Steps {
			return false
		}
		if d.Type == html.ElementNode && d.DataAtom == atom.H1 && !inFrame(d, body) {
			h1 = d
			break
		}
	}
	if h1 == nil {
		return false
	}
	t := strings.Join(strings.Fields(nodeText(h1)), " ")
	if k := countWords(t); k == 0 || k > maxTitleWords {
		return false
	}
	if strings.Contains(strings.Join(strings.Fields(nodeText(n)), " "), t) {
		return false
	}
	h := &html.Node{Type: html.ElementNode, Data: "h1", DataAtom: atom.H1}
	h.AppendChild(&html.Node{Type: html.TextNode, Data: t})
	n.InsertBefore(h, n.FirstChild)
	return true
}
