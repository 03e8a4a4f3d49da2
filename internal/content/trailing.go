package content

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The trailing label. The last line of an extracted article is often
// not the article's: a source line ("Źródło: ISBnews"), a link to a
// gallery or a rating key, a comment counter. Such a line is a block of
// its own at the very end, of a few words, and ends no sentence. The
// article's own last line is prose, an item of a list, a cell of a
// table, code, or a bare URL that the text shows.

// trailWords is the most words of a trailing block that dropTrailing
// removes, and trailMinWords the fewest words the rest of the content
// must hold for it to do so.
const (
	trailWords    = 4
	trailMinWords = 40
)

// dropTrailing removes from n its last block when that block is a short
// label (see above). It reads n's text from the end until the last
// visible word and climbs from there to the nearest block, so it costs
// the depth of the tree plus the trailing white space.
func dropTrailing(n *html.Node) {
	t := lastText(n)
	if t == nil {
		return
	}
	var b *html.Node
	for p := t.Parent; p != nil && p != n; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.Li, atom.Dd, atom.Dt, atom.Pre, atom.Code, atom.Table, atom.Tr, atom.Td, atom.Th,
			atom.Figure, atom.Figcaption, atom.Blockquote:
			return
		}
		if b == nil && isBlock(p.DataAtom) {
			b = p
		}
	}
	if b == nil {
		return
	}
	text := collapse(nodeText(b))
	if text == "" || countWords(text) > trailWords || endsSentence(text) || bareURL(text) {
		return
	}
	if hasBreak(b) {
		return
	}
	if countWords(nodeText(n))-countWords(text) < trailMinWords {
		return
	}
	b.Parent.RemoveChild(b)
}

// lastText returns the last text node under n that holds a visible
// character, or nil. It walks from the end: a node's last child first.
func lastText(n *html.Node) *html.Node {
	c := n.LastChild
	for c != nil {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c
		}
		if c.Type == html.ElementNode && c.LastChild != nil {
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

// endsSentence tells whether text ends with a sentence's stop, in any
// script, maybe followed by a closing quote or bracket.
func endsSentence(text string) bool {
	for text != "" {
		r, size := utf8.DecodeLastRuneInString(text)
		switch {
		case strings.ContainsRune(".!?…。！？։۔।", r):
			return true
		case unicode.Is(unicode.Pe, r) || unicode.Is(unicode.Pf, r) || r == '"' || r == '\'':
			text = text[:len(text)-size]
		default:
			return false
		}
	}
	return false
}

// bareURL tells whether text is one address, as a bare link shows it.
func bareURL(text string) bool {
	if !strings.Contains(text, "://") && !strings.HasPrefix(text, "www.") {
		return false
	}
	return strings.Count(text, " ") == 0
}

// hasBreak tells whether b holds a <br>: a block of short lines is a
// signature or an address, which the article keeps.
func hasBreak(b *html.Node) bool {
	return findAtom(b, atom.Br)
}

func findAtom(n *html.Node, a atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == a || findAtom(c, a)) {
			return true
		}
	}
	return false
}
