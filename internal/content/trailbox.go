package content

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The trailing box. Many sites close an article with a box of their own
// after its last paragraph: a pointer to another story, a newsletter or
// app offer, a subscription call. The article's paragraphs are plain
// <p> elements; the box is an element the site styles by class, of a few
// dozen words, that links elsewhere. It is the last block of the
// content, or the one before a short last line (an author line).

const (
	boxWords     = 60  // the most words of a trailing box
	boxRestWords = 100 // the fewest words the rest of the content holds
	boxPlainP    = 2   // the fewest plain paragraphs among the box's preceding siblings
	boxSkipWords = 8   // a last line this short may follow the box
	boxSiblings  = 24  // preceding siblings read
)

var boxDebug = os.Getenv("E5_DEBUG") != ""

var boxOn = os.Getenv("E5_BOX") != ""

// dropTrailingBox removes from n a trailing box (see above): the last
// block, or the block before a last block of at most boxSkipWords words.
func dropTrailingBox(n *html.Node) bool {
	t := lastTextBefore(n, nil)
	if boxDebug && t != nil {
		fmt.Fprintf(os.Stderr, "E5LAST %q\n", collapse(t.Data))
	}
	for try := 0; try < 2 && t != nil; try++ {
		b := trailBlock(n, t)
		if b == nil {
			return false
		}
		if box := trailingBox(n, t, b); box != nil {
			if boxDebug {
				fmt.Fprintf(os.Stderr, "E5BOX %q\n", collapse(nodeText(box)))
			}
			box.Parent.RemoveChild(box)
			return true
		}
		if countWords(nodeText(b)) > boxSkipWords {
			return false
		}
		t = lastTextBefore(n, b)
	}
	return false
}

// trailBlock returns the nearest block above t below n; nil when t sits
// in a list item, a table, a figure, a quote or code.
func trailBlock(n, t *html.Node) (b *html.Node) {
	for p := t.Parent; p != nil && p != n; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.Li, atom.Dd, atom.Dt, atom.Pre, atom.Code, atom.Table, atom.Tr, atom.Td, atom.Th,
			atom.Figure, atom.Figcaption, atom.Blockquote:
			return nil
		}
		if b == nil && isBlock(p.DataAtom) {
			b = p
		}
	}
	return b
}

// trailingBox returns the box that holds t, or nil: the outermost
// element above t, below n, of at most boxWords words, that has a class,
// holds a link and, once climbed to its block, is that whole block,
// with at least boxPlainP plain paragraphs before it among its siblings.
func trailingBox(n, t, b *html.Node) *html.Node {
	var box *html.Node
	for p := t.Parent; p != nil && p != n; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		if countWords(nodeText(p)) > boxWords {
			break
		}
		if attr(p, "class") != "" {
			box = p
		}
	}
	if box == nil || !holdsLink(box) {
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5NOBOX %q %v\n", collapse(nodeText(t)), box != nil)
		}
		return nil
	}
	// An inline box (a span) must fill its block.
	blk := box
	if boxDebug {
		fmt.Fprintf(os.Stderr, "E5CAND %s.%s b=%s words=%d/%d\n", box.Data, attr(box, "class"), b.Data, countWords(nodeText(box)), countWords(nodeText(n)))
	}
	if !isBlock(box.DataAtom) {
		if !holds(b, box) || collapse(nodeText(b)) != collapse(nodeText(box)) {
			return nil
		}
		blk = b
	}
	if countWords(nodeText(n))-countWords(nodeText(blk)) < boxRestWords {
		return nil
	}
	plain, i := 0, 0
	for s := blk.PrevSibling; s != nil && i < boxSiblings; s = s.PrevSibling {
		if s.Type != html.ElementNode {
			continue
		}
		i++
		if s.DataAtom == atom.P && attr(s, "class") == "" && countWords(nodeText(s)) >= 10 {
			plain++
		}
	}
	if plain < boxPlainP {
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5PLAIN %q %d\n", collapse(nodeText(t)), plain)
		}
		return nil
	}
	return blk
}

func holdsLink(n *html.Node) bool {
	if n.DataAtom == atom.A && attr(n, "href") != "" {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && holdsLink(c) {
			return true
		}
	}
	return false
}

func holds(a, b *html.Node) bool {
	for p := b; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// lastTextBefore returns the last text node under n that holds a
// visible character and comes before stop (a child of n; nil: the end).
func lastTextBefore(n, stop *html.Node) *html.Node {
	c := n.LastChild
	if stop != nil {
		c = stop
		for c.PrevSibling == nil {
			c = c.Parent
			if c == n || c == nil {
				return nil
			}
		}
		c = c.PrevSibling
	}
	for c != nil {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c
		}
		if c.Type == html.ElementNode && c.LastChild != nil && c.DataAtom != atom.Script && c.DataAtom != atom.Style {
			c = c.LastChild
			continue
		}
		for c.PrevSibling == nil {
			c = c.Parent
			if c == n || c == nil {
				return nil
			}
		}
		c = c.PrevSibling
	}
	return nil
}
