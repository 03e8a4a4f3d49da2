package content

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The standfirst. Many articles set their lead paragraph in the page's
// header, just under the <h1>, apart from the body the readability pass
// chooses; the page's meta description is that paragraph. addStandfirst
// puts it first in the article when one of the blocks that follow the
// <h1> opens with the description and the article does not hold it.

const (
	standfirstKey    = 50   // characters of the description compared
	standfirstBlocks = 3    // blocks after the <h1> looked at
	standfirstSteps  = 4096 // nodes walked at most
	standfirstMax    = 1200 // longest standfirst, in bytes
)

func addStandfirst(root, article *html.Node, desc string) {
	d := collapse(desc)
	if utf8.RuneCountInString(d) < standfirstKey+10 {
		return
	}
	key := d
	for i := range key {
		if utf8.RuneCountInString(key[:i]) == standfirstKey {
			key = key[:i]
			break
		}
	}
	if strings.Contains(collapse(nodeText(article)), key) {
		return
	}
	h1 := findAtomNode(root, atom.H1, standfirstSteps)
	if h1 == nil {
		return
	}
	n, steps := skipSubtree(h1), 0
	for blocks := 0; n != nil && blocks < standfirstBlocks && steps < standfirstSteps; steps++ {
		if n.Type == html.ElementNode && (n.DataAtom == atom.H1 || n.DataAtom == atom.Nav || n.DataAtom == atom.Footer) {
			return
		}
		if n.Type != html.TextNode || strings.TrimSpace(n.Data) == "" {
			n = sfNext(n)
			continue
		}
		b := n.Parent
		for b != nil && b.Type == html.ElementNode && !isBlock(b.DataAtom) {
			b = b.Parent
		}
		if b == nil || b.Type != html.ElementNode || b.DataAtom == atom.Body {
			return
		}
		blocks++
		t := collapse(nodeText(b))
		if len(t) <= standfirstMax && strings.HasPrefix(t, key) {
			article.InsertBefore(cloneTree(b), article.FirstChild)
			return
		}
		n = skipSubtree(b)
	}
}

// sfNext returns the node after n in document order.
func sfNext(n *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	return skipSubtree(n)
}

// skipSubtree returns the node after n's subtree in document order.
func skipSubtree(n *html.Node) *html.Node {
	for ; n != nil; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}

// findAtomNode returns the first element a in document order under n,
// looking at most steps nodes.
func findAtomNode(n *html.Node, a atom.Atom, steps int) *html.Node {
	for c := sfNext(n); c != nil && steps > 0; c, steps = sfNext(c), steps-1 {
		if c.Type == html.ElementNode && c.DataAtom == a {
			return c
		}
	}
	return nil
}
