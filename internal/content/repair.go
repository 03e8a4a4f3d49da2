package content

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// trafilatura builds its result as new nodes and trims the text around
// every element it keeps: "<b>0.25</b> <i>per share</i>" and
// "<a>results</a> <span>Nov 12</span>" come out glued ("resultsNov 12").
// It may also drop a table cell of inline elements (so the row's values
// move under the wrong column). The page itself still holds all of it,
// so the result is aligned with the page's text and repaired from it:
//
//   - spaces: each word of the result is found in the page's text (white
//     space removed, word breaks remembered); where the page breaks a word
//     that the result runs together, a space goes back;
//   - tables: a result table is replaced by a copy of the page's table it
//     came from, so every cell keeps its place.
//
// Link-only paragraphs to a document or another site that trafilatura
// dropped are no longer put back: on the corpora that only lowered
// collection pages (bench/content/README.md, "Issue 20, ablate").
//
// Only the trafilatura path needs this: the readability pass copies the
// page's own nodes, white space included.

// pageText is the text of a page as a browser lays it out, white space
// removed: b holds the non-space bytes, brk[i] tells whether a word break
// (white space, or the edge of a block, cell, <br> or <img>) lies before
// b[i], and brk[len(b)] is true.
type pageText struct {
	b     []byte
	brk   []bool
	nodes []textAt // text nodes by offset
	gap   bool
}

// textAt is a text node of the page and the offset of its first byte.
type textAt struct {
	off  int
	node *html.Node
}

func (p *pageText) walk(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			p.text(c)
		case html.ElementNode:
			if skipText(c.Data) {
				continue
			}
			box := boxElement(c)
			if box {
				p.gap = true
			}
			p.walk(c)
			if box {
				p.gap = true
			}
		}
	}
}

func (p *pageText) text(n *html.Node) {
	s := n.Data
	added := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSpaceRune(r) {
			p.gap = true
			i += size
			continue
		}
		if !added {
			p.nodes = append(p.nodes, textAt{len(p.b), n})
			added = true
		}
		p.b = append(p.b, s[i:i+size]...)
		p.brk = append(p.brk, p.gap || len(p.brk) == 0)
		for k := 1; k < size; k++ {
			p.brk = append(p.brk, false)
		}
		p.gap = false
		i += size
	}
}

// nodeAt returns the page's text node holding byte off.
func (p *pageText) nodeAt(off int) *html.Node {
	lo, hi := 0, len(p.nodes)
	for lo < hi {
		m := (lo + hi) / 2
		if p.nodes[m].off <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil
	}
	return p.nodes[lo-1].node
}

func isSpaceRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' || r == '\v'
	}
	return unicode.IsSpace(r)
}

// skipText tells whether an element's text is never laid out.
func skipText(name string) bool {
	switch name {
	case "script", "style", "noscript", "template", "svg", "iframe", "noembed", "noframes", "head", "textarea", "select":
		return true
	}
	return false
}

// boxElement tells whether a browser lays n out as a box of its own, so
// that its edges break words. n's DataAtom may be stale (trafilatura's
// nodes): its name is read.
func boxElement(n *html.Node) bool {
	a := n.DataAtom
	if a == 0 || a.String() != n.Data {
		a = atom.Lookup([]byte(n.Data))
	}
	switch a {
	case atom.Td, atom.Th, atom.Br, atom.Img, atom.Option, atom.Thead, atom.Tbody, atom.Tfoot, atom.Li:
		return true
	}
	return isBlock(a)
}

// aligner walks the result and matches its words in the page's text.
type aligner struct {
	page *pageText
	pos  int // the page offset after the last matched word
	// glued tells whether the result's last laid-out character is not a
	// space: a word starting now would run on from it.
	glued bool
	// first is the page offset of the first matched word.
	first int
	// tables maps the result's tables to the page offsets of their words.
	tables map[*html.Node][2]int
	table  *html.Node // the result table being walked
	root   *html.Node // the result
}

// maxTries bounds how many occurrences of a word are looked at for one
// that starts a word of the page.
const maxTries = 32

// find returns the page offset of word at or after a.pos where it starts
// a word of the page or continues the last match, or -1.
func (a *aligner) find(word []byte) int {
	from := a.pos
	for try := 0; try < maxTries && from < len(a.page.b); try++ {
		i := bytes.Index(a.page.b[from:], word)
		if i < 0 {
			return -1
		}
		j := from + i
		if j == a.pos || a.page.brk[j] {
			return j
		}
		from = j + 1
	}
	return -1
}

func (a *aligner) walk(n *html.Node, pre bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.TextNode:
			a.text(c, pre)
		case html.ElementNode:
			if skipText(c.Data) {
				break
			}
			box := boxElement(c)
			if box {
				a.glued = false
			}
			isTable := c.Data == "table" && a.table == nil
			if isTable {
				a.table = c
				a.tables[c] = [2]int{-1, -1}
			}
			a.walk(c, pre || c.Data == "pre" || c.Data == "code")
			if isTable {
				a.table = nil
			}
			if box {
				a.glued = false
			}
		}
		c = next
	}
}

// text matches the words of a result text node and puts back the spaces
// the page has between them.
func (a *aligner) text(n *html.Node, pre bool) {
	s := n.Data
	var out []byte // the repaired text, nil while unchanged
	copied := 0    // bytes of s already in out
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpaceRune(r) {
			a.glued = false
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if isSpaceRune(r) {
				break
			}
			j += size
		}
		word := s[i:j]
		at := a.find([]byte(word))
		if at >= 0 {
			anchored := at == a.pos
			if !pre {
				if a.glued && a.page.brk[at] {
					// The page breaks before this word; the result runs
					// it on from the last text (a word within n follows
					// white space: glued holds only for n's first).
					a.spaceBefore(n)
				}
				if anchored {
					for k := 1; k < len(word); k++ {
						if a.page.brk[at+k] {
							out = append(out, s[copied:i+k]...)
							out = append(out, ' ')
							copied = i + k
						}
					}
				}
			}
			a.mark(at, len(word))
			a.pos = at + len(word)
		}
		a.glued = true
		i = j
	}
	if out != nil {
		n.Data = string(append(out, s[copied:]...))
	}
}

// mark records a matched word at page offset at.
func (a *aligner) mark(at, l int) {
	if a.first < 0 {
		a.first = at
	}
	if a.table != nil {
		t := a.tables[a.table]
		if t[0] < 0 {
			t[0] = at
		}
		t[1] = at + l - 1
		a.tables[a.table] = t
	}
}

// spaceBefore puts a space before text node n, outside the inline
// elements that n opens (a link's or emphasis's text starts with no
// space).
func (a *aligner) spaceBefore(n *html.Node) {
	x := n
	for x.Parent != nil && x.Parent != a.root && x.Parent.FirstChild == x && !boxElement(x.Parent) {
		x = x.Parent
	}
	if x.Type == html.TextNode {
		x.Data = " " + x.Data
		return
	}
	if p := x.PrevSibling; p != nil && p.Type == html.TextNode {
		p.Data += " "
		return
	}
	x.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, x)
}

// repair mends trafilatura's result res of the page under body (see the
// comment at the top of this file).
func repair(body, res *html.Node) {
	if body == nil || res == nil {
		return
	}
	p := &pageText{}
	p.walk(body)
	p.brk = append(p.brk, true)
	if len(p.b) == 0 {
		return
	}
	a := &aligner{page: p, first: -1, tables: make(map[*html.Node][2]int), root: res}
	a.walk(res, false)
	if a.first < 0 {
		return
	}
	for t, span := range a.tables {
		if span[0] >= 0 && !offRepairTables {
			restoreTable(t, p, a, span)
		}
	}
}

// restoreTable replaces the result table t by a copy of the page's table
// that its words came from (the page offsets span), unless the result
// kept much less than that table's text: a layout table around the page
// is not brought back.
func restoreTable(t *html.Node, p *pageText, a *aligner, span [2]int) {
	from, to := p.nodeAt(span[0]), p.nodeAt(span[1])
	if from == nil || to == nil {
		return
	}
	var orig *html.Node
	for x := from.Parent; x != nil; x = x.Parent {
		if x.Type == html.ElementNode && x.DataAtom == atom.Table && isAncestor(x, to) {
			orig = x
			break
		}
	}
	if orig == nil || t.Parent == nil {
		return
	}
	kept, all := 0, 0
	countBytes(t, &kept)
	countBytes(orig, &all)
	if 2*kept < all {
		return
	}
	k := copyVisible(orig)
	t.Parent.InsertBefore(k, t)
	t.Parent.RemoveChild(t)
}

func isAncestor(a, n *html.Node) bool {
	for x := n; x != nil; x = x.Parent {
		if x == a {
			return true
		}
	}
	return false
}

// countBytes adds the non-space bytes of n's laid-out text to k.
func countBytes(n *html.Node, k *int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			for _, r := range c.Data {
				if !isSpaceRune(r) {
					*k += utf8.RuneLen(r)
				}
			}
		case html.ElementNode:
			if !skipText(c.Data) {
				countBytes(c, k)
			}
		}
	}
}

// copyVisible copies n and its subtree without comments and elements
// whose text is never laid out.
func copyVisible(n *html.Node) *html.Node {
	k := &html.Node{Type: n.Type, Data: n.Data, DataAtom: n.DataAtom, Namespace: n.Namespace}
	if len(n.Attr) > 0 {
		k.Attr = append([]html.Attribute(nil), n.Attr...)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			k.AppendChild(&html.Node{Type: html.TextNode, Data: c.Data})
		case html.ElementNode:
			if !skipText(c.Data) {
				k.AppendChild(copyVisible(c))
			}
		}
	}
	return k
}
