package content

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// This file renders a content tree as markdown: CommonMark (ATX headings,
// emphasis, links, images, nested lists, block quotes, fenced code, rules,
// hard breaks) with GFM tables and strikethrough. It writes what the
// html-to-markdown library (v2, with its base, commonmark, table and
// strikethrough plugins and our handlers) wrote before, byte for byte on
// every page of the corpora (bench/content/mdcompare checks it), in a
// fraction of its time: the library copied and sorted its handler lists
// for every node and took a lock for every escaped byte. The one
// difference on purpose is maxNest.
//
// The work is done in three steps, as the library does:
//
//  1. prepare: the tree is mended in place (elements without content
//     removed, emphasis and code tags merged and swapped, blocks inside
//     inline elements demoted, stray list children wrapped, white space
//     collapsed as a browser lays it out);
//  2. render: one walk writes markdown into a byte buffer. A character of
//     text that markdown could read as syntax is written after a mark
//     byte (escMark); elements whose output depends on their content
//     (emphasis, links, headings, quotes, list items, table cells) render
//     it into the same buffer and rewrite it in place;
//  3. finish: runs of blank lines are cut to one and each mark becomes a
//     backslash where the character after it would be syntax, or nothing.

// escMark precedes a character of text that may need a backslash.
const escMark = '\a'

// codeNewline stands for a line break inside a fenced code block until
// the end, so that list items indent the block's lines and nothing else
// reads them as lines of text.
const codeNewline = "\uF002"

// listEnd is the comment written between two adjacent lists, so that a
// markdown reader does not join them.
const listEnd = "THE END"

// mdPool recycles renderers and their buffers between pages.
var mdPool = sync.Pool{New: func() any { return new(mdWriter) }}

// markdown renders n and its subtree. It modifies n.
func markdown(n *html.Node) string {
	w := mdPool.Get().(*mdWriter)
	prepare(n, &w.space)
	w.b = w.b[:0]
	w.tableExtra, w.tableWork = 0, 0
	w.node(n)
	out := w.finish()
	s := string(bytes.TrimSpace(out))
	w.link, w.nest = 0, 0
	if cap(w.b) > 1<<22 || cap(w.space.b) > 1<<22 || cap(w.space.texts) > 1<<16 {
		w.b, w.t1, w.t2, w.t3 = nil, nil, nil, nil
		w.space = spaceTexts{}
	}
	mdPool.Put(w)
	return s
}

type mdWriter struct {
	b      []byte // the output
	t1, t2 []byte // scratch for rewriting a part of b
	t3     []byte // a list's items while they are written
	link   int    // depth of links around the node being written
	nest   int    // depth of lists and quotes around it
	space  spaceTexts
	// tableExtra counts the cells of the document's GFM tables that no
	// cell of the page made (spans, short rows padded to the widest);
	// tableWork the cells moved to place spans. See maxTableExtra.
	tableExtra, tableWork int
}

// maxNest bounds the lists and quotes written inside each other; deeper
// ones are written as plain blocks. Each level indents every line of
// what it holds and is rewritten by every level around it, so depth d
// costs d² bytes of output and d³ of work: 10,000 nested lists would
// write 100 MB and never finish. The HTML parser stops at 512 open
// elements; no page of the corpora comes near 40.
const maxNest = 40

// --- step 1: prepare the tree -------------------------------------------

// removed names the elements that are dropped with their content.
func removed(n *html.Node) bool {
	switch n.Type {
	case html.CommentNode:
		return true
	case html.ElementNode:
		switch n.Data {
		case "head", "script", "style", "link", "meta", "iframe", "noscript", "input", "textarea",
			"template", "svg", "button", "select", "form", "dialog", "noembed", "noframes":
			return true
		}
	}
	return false
}

// blockName tells whether an element of this name is a block: set apart
// by blank lines, and the end of a line for white space.
func blockName(name string) bool {
	switch name {
	case "address", "article", "aside", "blockquote", "details", "dialog", "dd", "div", "dl", "dt",
		"fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
		"header", "hgroup", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "ul":
		return true
	}
	return false
}

func isElem(n *html.Node, names ...string) bool {
	if n == nil || n.Type != html.ElementNode {
		return false
	}
	for _, s := range names {
		if n.Data == s {
			return true
		}
	}
	return false
}

// The predicates below read the name, not DataAtom: the preparation
// renames elements and leaves DataAtom as it was, as the library did.

func elemName(n *html.Node) string {
	if n == nil || n.Type != html.ElementNode {
		return ""
	}
	return n.Data
}

func isBold(n *html.Node) bool {
	s := elemName(n)
	return s == "strong" || s == "b"
}

func isItalic(n *html.Node) bool {
	s := elemName(n)
	return s == "em" || s == "i"
}

func isEmph(n *html.Node) bool {
	switch elemName(n) {
	case "strong", "b", "em", "i":
		return true
	}
	return false
}

func isStrike(n *html.Node) bool {
	switch elemName(n) {
	case "del", "s", "strike":
		return true
	}
	return false
}

func isLink(n *html.Node) bool { return elemName(n) == "a" }
func isSpan(n *html.Node) bool { return elemName(n) == "span" }
func isPre(n *html.Node) bool  { return elemName(n) == "pre" }

func isList(n *html.Node) bool {
	s := elemName(n)
	return s == "ul" || s == "ol"
}

func isInlineCode(n *html.Node) bool {
	switch elemName(n) {
	case "code", "var", "samp", "kbd", "tt":
		return true
	}
	return false
}

func isHeading(n *html.Node) bool {
	s := elemName(n)
	return len(s) == 2 && s[0] == 'h' && s[1] >= '1' && s[1] <= '6'
}

// prepare mends the tree under root for rendering (step 1). A pass that
// acts on kinds of elements the tree does not hold is skipped: the
// first walk tells which it holds (see dropRemoved), and none of the
// passes makes an element of a kind that a later pass acts on, but
// demoteBlocks (emphasis, inline code), after the last pass on those.
// mergeAdjacent may move into the tree what follows it in the document,
// looking through spans: a tree that something follows (a part of a
// page, not a copy) has every pass.
func prepare(root *html.Node, sp *spaceTexts) {
	var kinds uint8
	if root.Type == html.ElementNode {
		kinds = kindsOf(root.Data)
	}
	dropRemoved(root, &kinds)
	if nextNodeSkip(root) != nil {
		kinds = ^uint8(0)
	}
	has := func(k uint8) bool { return kinds&k == k }
	if has(prepEmph) {
		unwrapNested(root, func(n *html.Node) int {
			if isBold(n) {
				return 1
			}
			if isItalic(n) {
				return 2
			}
			return 0
		})
		mergeAdjacent(root, isEmph)
	}
	if has(prepCode) {
		dropEmptyCode(root)
	}
	if has(prepCode | prepPre) {
		swapTags(root, isInlineCode, isPre)
	}
	if has(prepCode) {
		mergeAdjacent(root, isInlineCode)
		spaceOutOfCode(root)
	}
	if has(prepEmph) {
		spaceAroundCode(root)
	}
	if has(prepLink) {
		unwrapNested(root, func(n *html.Node) int {
			if isLink(n) {
				return 1
			}
			return 0
		})
	}
	if has(prepEmph | prepLink) {
		swapTags(root, isEmph, isLink)
	}
	if has(prepLink | prepHeading) {
		swapTags(root, isLink, isHeading)
	}
	demoteBlocks(root, false, false)
	if has(prepList) {
		wrapListChildren(root)
	}
	if has(prepStrike) {
		unwrapNested(root, func(n *html.Node) int {
			if isStrike(n) {
				return 1
			}
			return 0
		})
		mergeAdjacent(root, isStrike)
	}
	collapseSpace(root, sp)
	if has(prepList) {
		markListEnds(root)
	}
}

// Kinds of elements that passes of prepare act on, as bits.
const (
	prepEmph    = 1 << iota // b, strong, em, i
	prepCode                // code, var, samp, kbd, tt
	prepPre                 // pre
	prepLink                // a
	prepHeading             // h1 to h6
	prepStrike              // del, s, strike
	prepList                // ul, ol
	prepBlock               // not a kind: blockName holds
)

// kindsOf returns the kinds of an element of this name, and prepBlock
// for a block.
func kindsOf(name string) uint8 {
	switch name {
	case "b", "strong", "em", "i":
		return prepEmph
	case "code", "var", "samp", "kbd", "tt":
		return prepCode
	case "pre":
		return prepPre | prepBlock
	case "a":
		return prepLink
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return prepHeading | prepBlock
	case "del", "s", "strike":
		return prepStrike
	case "ul", "ol":
		return prepList | prepBlock
	}
	if blockName(name) {
		return prepBlock
	}
	return 0
}

// dropRemoved removes comments and elements that never show content,
// joins the text nodes that end up side by side, and turns a <span>
// that holds a block into a <div>, in one walk: the span's subtree is
// done before the span is looked at, as when a walk of its own renamed
// the spans after the removals. It adds to kinds the kinds of the
// elements it keeps under n and returns whether n's subtree (n
// excluded) holds a block.
func dropRemoved(n *html.Node, kinds *uint8) bool {
	block := false
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if removed(c) {
			n.RemoveChild(c)
			continue
		}
		if c.Type != html.ElementNode {
			continue // a text node, without children
		}
		k := kindsOf(c.Data)
		*kinds |= k
		if dropRemoved(c, kinds) {
			if c.Data == "span" {
				c.Data = "div"
			}
			block = true
		}
		if k&prepBlock != 0 {
			block = true
		}
	}
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		for c.Type == html.TextNode && next != nil && next.Type == html.TextNode {
			c.Data += next.Data
			n.RemoveChild(next)
			next = c.NextSibling
		}
	}
	return block
}

// unwrapNested removes an element of kind k (kind returns 0 for none)
// that stands inside another of the same kind, keeping its content. The
// ancestors of root count.
func unwrapNested(root *html.Node, kind func(*html.Node) int) {
	var in uint8
	for p := root.Parent; p != nil; p = p.Parent {
		if k := kind(p); k > 0 {
			in |= 1 << k
		}
	}
	unwrapIn(root, kind, in|kindBit(kind(root)))
}

func kindBit(k int) uint8 {
	if k == 0 {
		return 0
	}
	return 1 << k
}

func unwrapIn(n *html.Node, kind func(*html.Node) int, in uint8) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type != html.ElementNode {
			continue
		}
		k := kind(c)
		unwrapIn(c, kind, in|kindBit(k))
		if k > 0 && in&kindBit(k) != 0 {
			for g := c.FirstChild; g != nil; g = c.FirstChild {
				c.RemoveChild(g)
				n.InsertBefore(g, c)
			}
			n.RemoveChild(c)
		}
	}
}

// Neighbours in document order, as the library walks them: the next (or
// previous) node is the first child, else the sibling, else the sibling
// of the nearest ancestor that has one; the walk may leave the subtree.

func nextNode(n *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	return nextNodeSkip(n)
}

func nextNodeSkip(n *html.Node) *html.Node {
	for ; n != nil; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}

func prevNode(n *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	return prevNodeSkip(n)
}

func prevNodeSkip(n *html.Node) *html.Node {
	for ; n != nil; n = n.Parent {
		if n.PrevSibling != nil {
			return n.PrevSibling
		}
	}
	return nil
}

// nextElement is the next element in document order within root, n's
// own subtree first; nil after the last.
func nextElement(root, n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	for ; n != nil && n != root; n = n.Parent {
		for s := n.NextSibling; s != nil; s = s.NextSibling {
			if s.Type == html.ElementNode {
				return s
			}
		}
	}
	return nil
}

// mergeAdjacent moves the content of elements that follow a matching
// element directly (spans looked through) into it.
func mergeAdjacent(root *html.Node, match func(*html.Node) bool) {
	for n := root; n != nil; n = nextElement(root, n) {
		if !match(n) {
			continue
		}
		for s := n.NextSibling; s != nil; {
			if isSpan(s) {
				s = nextNode(s)
				continue
			}
			if !match(s) {
				break
			}
			next := nextNodeSkip(s)
			for g := s.FirstChild; g != nil; g = s.FirstChild {
				s.RemoveChild(g)
				n.AppendChild(g)
			}
			if s.Parent != nil {
				s.Parent.RemoveChild(s)
			}
			s = next
		}
	}
}

// dropEmptyCode removes code elements without text. One walk in
// document order: has holds, for each open element on the path from
// root, whether text was met inside it so far, so an element is judged
// as it is left and the walk stays linear however deep code nests
// (asking each code element for its text anew was quadratic).
func dropEmptyCode(root *html.Node) {
	has := []bool{false}
	n := root.FirstChild
	for n != nil {
		if n.Type == html.ElementNode {
			has = append(has, false)
			if n.FirstChild != nil {
				n = n.FirstChild
				continue
			}
		} else if n.Type == html.TextNode && n.Data != "" {
			has[len(has)-1] = true
		}
		// Leave n, then every ancestor whose last child has been left.
		for {
			next, parent := n.NextSibling, n.Parent
			if n.Type == html.ElementNode {
				text := has[len(has)-1]
				has = has[:len(has)-1]
				if text {
					has[len(has)-1] = true
				} else if n.Data == "code" {
					parent.RemoveChild(n)
				}
			}
			if next != nil {
				n = next
				break
			}
			if parent == root || parent == nil {
				return
			}
			n = parent
		}
	}
}

// swapTags swaps an outer element with its only child (white space
// aside) when they match outer and inner.
func swapTags(n *html.Node, outer, inner func(*html.Node) bool) {
	if outer(n) {
		var only *html.Node
		count := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
				continue
			}
			only = c
			if count++; count > 1 {
				break
			}
		}
		if count == 1 && inner(only) {
			n.Data, only.Data = only.Data, n.Data
			n.DataAtom, only.DataAtom = only.DataAtom, n.DataAtom
			n.Attr, only.Attr = only.Attr, n.Attr
			return
		}
	}
	// Only elements: outer and inner accept elements alone.
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			swapTags(c, outer, inner)
		}
	}
}

// spaceOutOfCode puts the white space that starts or ends an inline
// code element before or after it: a code span is written trimmed, so
// "the <code>x </code>y" would come out as "`x`y" ("the
// </code>gatsbyImageData<code>API" of a build log in code elements
// glued "the" to the span after it). Code inside pre is left alone.
func spaceOutOfCode(root *html.Node) {
	if isPre(root) {
		return
	}
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if isInlineCode(c) && c.FirstChild != nil {
			first, last := c.FirstChild, c.LastChild
			for first.FirstChild != nil {
				first = first.FirstChild
			}
			for last.LastChild != nil {
				last = last.LastChild
			}
			if first.Type == html.TextNode && first.Data != "" && isSpaceByte(first.Data[0]) {
				root.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, c)
			}
			if last.Type == html.TextNode && last.Data != "" && isSpaceByte(last.Data[len(last.Data)-1]) {
				root.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, c.NextSibling)
			}
		}
		spaceOutOfCode(c)
	}
}

// spaceAroundCode sets emphasis that starts (ends) with code apart by a
// space from the text before (after) it.
func spaceAroundCode(root *html.Node) {
	for n := root; n != nil; n = nextElement(root, n) {
		if !isEmph(n) {
			continue
		}
		c := n.FirstChild
		for c != nil && isSpan(c) {
			c = nextNode(c)
		}
		if c != nil && isInlineCode(c) {
			p := prevNodeSkip(n)
			for p != nil && isSpan(p) {
				p = prevNode(p)
			}
			if p != nil && p.Type == html.TextNode {
				p.Data += " "
			}
		}
		c = n.LastChild
		for c != nil && isSpan(c) {
			c = prevNode(c)
		}
		if c != nil && isInlineCode(c) {
			x := nextNodeSkip(n)
			for x != nil && isSpan(x) {
				x = nextNode(x)
			}
			if x != nil && x.Type == html.TextNode {
				x.Data = " " + x.Data
			}
		}
	}
}

// structure is what markdown makes of an element: a container block, a
// leaf block (a line of its own that holds no blocks), inline, or none.
const (
	structNone = iota
	structContainer
	structLeaf
	structInline
)

func structureOf(n *html.Node) int {
	switch n.Type {
	case html.DocumentNode:
		return structContainer
	case html.TextNode:
		return structInline
	case html.ElementNode:
		switch n.Data {
		case "html", "head", "body", "blockquote", "ul", "ol", "li":
			return structContainer
		case "hr", "pre", "h1", "h2", "h3", "h4", "h5", "h6":
			return structLeaf
		case "span", "code", "b", "strong", "i", "em", "a", "img", "br":
			return structInline
		}
	}
	return structNone
}

// demoteBlocks rewrites blocks inside a leaf block or an inline element,
// which markdown cannot hold: a heading becomes bold text and a break, a
// quote a quoted span, a pre inline code, a rule nothing, others spans.
func demoteBlocks(n *html.Node, inLeaf, inInline bool) {
	s := structureOf(n)
	if (s == structContainer || s == structLeaf) && (inLeaf || inInline) && n.Type == html.ElementNode {
		switch n.Data {
		case "h1", "h2", "h3", "h4", "h5", "h6":
			n.Data = "strong"
			n.Parent.InsertBefore(&html.Node{Type: html.ElementNode, Data: "br"}, n.NextSibling)
		case "blockquote":
			n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: ` "`}, n)
			n.Data = "span"
			n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: `" `}, n.NextSibling)
		case "pre":
			n.Data = "code"
		case "hr":
			n.Parent.RemoveChild(n)
		default:
			n.Data = "span"
		}
	}
	if s == structLeaf {
		inLeaf = true
	}
	if s == structInline {
		inInline = true
	}
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type == html.ElementNode { // nothing else is demoted or has children
			demoteBlocks(c, inLeaf, inInline)
		}
	}
}

// wrapListChildren puts what stands in a list outside its items into the
// item before it, or into a new item.
func wrapListChildren(n *html.Node) {
	if isList(n) {
		var prev *html.Node
		var next *html.Node
		for c := n.FirstChild; c != nil; c = next {
			next = c.NextSibling
			switch {
			case c.Type == html.ElementNode && c.Data == "li":
				prev = c
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			case prev != nil:
				n.RemoveChild(c)
				prev.AppendChild(c)
			default:
				li := &html.Node{Type: html.ElementNode, Data: "li"}
				li.DataAtom = atom.Li
				n.InsertBefore(li, c)
				n.RemoveChild(c)
				li.AppendChild(c)
				prev = li
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			wrapListChildren(c)
		}
	}
}

// collapseSpace collapses white space as a browser lays text out: runs
// become one space, and spaces at the start and end of a block go,
// except inside pre and code. Elements are met on the way in and, when
// they have children, on the way out. The texts are written to sp's
// buffer as they are met and given to their nodes at the end, from one
// string: a text with runs to collapse is not a string of its own.
func collapseSpace(root *html.Node, sp *spaceTexts) {
	if root.FirstChild == nil || isElem(root, "pre", "code") {
		return
	}
	b, texts := sp.b[:0], sp.texts[:0]
	var prev *html.Node
	prevText := -1 // index in texts
	// endsSpace and trimSpace are strings.HasSuffix and TrimSuffix of
	// prevText's text with " ".
	endsSpace := func() bool {
		t := &texts[prevText]
		return t.to > t.from && b[t.to-1] == ' '
	}
	trimSpace := func() {
		if endsSpace() {
			texts[prevText].to--
		}
	}
	keep := false
	n := collapseNext(nil, root)
	for n != root {
		switch n.Type {
		case html.TextNode:
			written := len(b)
			b = appendCollapsed(b, n.Data, nextRun(n.Data, 0))
			from := written
			if (prevText < 0 || endsSpace()) && !keep && len(b) > from && b[from] == ' ' {
				from++
			}
			if from == len(b) {
				b = b[:written]
				n = removeForCollapse(n)
				continue
			}
			texts = append(texts, spaceText{n, from, len(b)})
			prevText = len(texts) - 1
		case html.ElementNode:
			switch {
			case blockName(n.Data) && n.Data != "td" && n.Data != "th" || n.Data == "br":
				if prevText >= 0 {
					trimSpace()
				}
				prevText = -1
				keep = false
			case voidName(n.Data) || n.Data == "pre" || n.Data == "code":
				prevText = -1
				keep = true
			case prevText >= 0:
				keep = false
			}
		case html.CommentNode:
		default:
			n = removeForCollapse(n)
			continue
		}
		next := collapseNext(prev, n)
		prev = n
		n = next
	}
	if prevText >= 0 {
		trimSpace()
		if t := texts[prevText]; t.to == t.from {
			removeForCollapse(t.n)
		}
	}
	all := string(b)
	for _, t := range texts {
		t.n.Data = all[t.from:t.to]
	}
	clear(texts) // no node kept from the garbage collector
	sp.b, sp.texts = b, texts
}

// spaceTexts is collapseSpace's buffer and its texts, kept from page to
// page.
type spaceTexts struct {
	b     []byte
	texts []spaceText
}

// spaceText is a text node's text in a spaceTexts buffer, at from:to.
type spaceText struct {
	n        *html.Node
	from, to int
}

func collapseNext(prev, n *html.Node) *html.Node {
	if prev != nil && prev.Parent == n || isElem(n, "pre", "code") {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		return n.Parent
	}
	if n.FirstChild != nil {
		return n.FirstChild
	}
	if n.NextSibling != nil {
		return n.NextSibling
	}
	return n.Parent
}

func removeForCollapse(n *html.Node) *html.Node {
	next := n.NextSibling
	if next == nil {
		next = n.Parent
	}
	n.Parent.RemoveChild(n)
	return next
}

func voidName(name string) bool {
	switch name {
	case "area", "base", "br", "col", "command", "embed", "hr", "img", "input", "keygen", "link", "meta",
		"param", "track", "wbr":
		return true
	}
	return false
}

func isRunSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// appendCollapsed appends s with each run of spaces, tabs and line
// breaks turned into one space, when i is nextRun(s, 0); the text
// between runs (single spaces between words included) is copied a
// piece at a time.
func appendCollapsed(dst []byte, s string, i int) []byte {
	dst = append(dst, s[:i]...)
	for i < len(s) {
		dst = append(dst, ' ')
		for i++; i < len(s) && runSpaces[s[i]]; i++ {
		}
		j := nextRun(s, i)
		dst = append(dst, s[i:j]...)
		i = j
	}
	return dst
}

// nextRun returns the index of the first run of white space at or after
// i that collapseRuns rewrites: a '\n', '\r' or '\t', or a ' ' that one
// of the four follows; len(s) when there is none. It reads eight bytes
// at a time where they hold no byte under 0x21 but ' ' and no two ' ' in
// a row (as spacedRun), and the bytes after one at a time.
func nextRun(s string, i int) int {
	for i < len(s) {
		i = skipSpaced8(s, i)
		// One byte at a time up to the end of the eight bytes the fast
		// path left (at least one, so that the loop moves).
		for end := min(i+8, len(s)); i < end; i++ {
			if c := s[i]; c == '\n' || c == '\r' || c == '\t' || c == ' ' && i+1 < len(s) && runSpaces[s[i+1]] {
				return i
			}
		}
	}
	return len(s)
}

// runSpaces are the bytes isRunSpace accepts.
var runSpaces = [256]bool{' ': true, '\n': true, '\r': true, '\t': true}

// markListEnds puts a listEnd comment after a list that another list
// follows with nothing in between.
func markListEnds(root *html.Node) {
	for n := root; n != nil; n = nextElement(root, n) {
		if isList(n) && listFollows(n) {
			n.Parent.InsertBefore(&html.Node{Type: html.CommentNode, Data: listEnd}, n.NextSibling)
		}
	}
}

func listFollows(n *html.Node) bool {
	for x := nextNodeSkip(n); x != nil; x = nextNode(x) {
		switch {
		case isList(x):
			return true
		case isElem(x, "li", "hr"), x.Type == html.TextNode, x.Type == html.CommentNode && x.Data == listEnd:
			return false
		}
	}
	return false
}

// --- step 2: render -----------------------------------------------------

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.CommentNode:
		if n.Data == listEnd {
			w.b = append(w.b, "\n\n<!--"+listEnd+"-->\n\n"...)
		}
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	switch n.Data {
	case "strong", "b":
		w.delimited(n, "**")
	case "em", "i":
		w.delimited(n, "*")
	case "del", "s", "strike":
		w.delimited(n, "~~")
	case "hr":
		w.b = append(w.b, "\n\n* * *\n\n"...)
	case "br":
		w.b = append(w.b, "  \n"...)
	case "ul", "ol":
		if w.nest >= maxNest {
			w.block(n)
			return
		}
		w.nest++
		w.list(n)
		w.nest--
	case "pre":
		w.codeBlock(n)
	case "code", "var", "samp", "kbd", "tt":
		w.inlineCode(n)
	case "blockquote":
		if w.nest >= maxNest {
			w.block(n)
			return
		}
		w.nest++
		w.quote(n)
		w.nest--
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.heading(n, int(n.Data[1]-'0'))
	case "img":
		w.image(n)
	case "a":
		w.anchor(n)
	case "table":
		if !w.table(n) {
			w.block(n)
		}
	case "tr":
		w.block(n)
	case "td", "th":
		// A table the layout cannot hold is written row by row as text:
		// its cells must not run together ("[108431](…)2015").
		for p := n.PrevSibling; p != nil; p = p.PrevSibling {
			if isElem(p, "td", "th") {
				w.b = append(w.b, ' ')
				break
			}
		}
		w.children(n)
	default:
		if blockName(n.Data) {
			w.block(n)
		} else {
			w.children(n)
		}
	}
}

func (w *mdWriter) block(n *html.Node) {
	w.b = append(w.b, "\n\n"...)
	w.children(n)
	w.b = append(w.b, "\n\n"...)
}

// escapable are the characters of text that may need a backslash.
var escapable = func() (t [256]bool) {
	for _, c := range "\\*_-+.>|$#=[]()!~`\"'" {
		t[c] = true
	}
	return
}()

// textSpecial are the bytes that text does not copy as they stand:
// escapable ones, '<', the '&' of "&lt;" and "&gt;", and NUL.
var textSpecial = func() (t [256]bool) {
	t = escapable
	t['<'], t['&'], t[0] = true, true, true
	return
}()

// text writes text with a mark before each character that could be
// markdown syntax; "<" and ">" (also spelled "&lt;" and "&gt;" in the
// text) too, as the finish decides where they would open a tag or a
// quote.
func (w *mdWriter) text(s string) {
	b := w.b
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !textSpecial[c] {
			continue
		}
		switch {
		case escapable[c] || c == '<':
			b = append(b, s[start:i]...)
			if c == ']' && w.link > 0 {
				b = append(b, '\\', ']')
			} else {
				b = append(b, escMark, c)
			}
			start = i + 1
		case c == '&' && i+3 < len(s) && s[i+2] == 't' && s[i+3] == ';' && (s[i+1] == 'l' || s[i+1] == 'g'):
			b = append(b, s[start:i]...)
			if s[i+1] == 'l' {
				b = append(b, escMark, '<')
			} else {
				b = append(b, escMark, '>')
			}
			i += 3
			start = i + 1
		case c == 0:
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			start = i + 1
		}
	}
	w.b = append(b, s[start:]...)
}

// take moves b[start:] to the scratch buffer t1 and cuts b back to start.
func (w *mdWriter) take(start int) []byte {
	w.t1 = append(w.t1[:0], w.b[start:]...)
	w.b = w.b[:start]
	return w.t1
}

// delimited writes emphasis or strikethrough: the delimiter around each
// line of the content, white space outside.
func (w *mdWriter) delimited(n *html.Node, delim string) {
	start := len(w.b)
	w.children(n)
	if len(w.b) == start {
		return
	}
	src := w.take(start)
	w.b = delimitLines(w.b, src, delim)
}

func delimitLines(dst, src []byte, delim string) []byte {
	for {
		line := src
		i := bytes.IndexByte(src, '\n')
		if i >= 0 {
			line = src[:i]
		}
		left, mid, right := spaceAround(line)
		dst = append(dst, left...)
		if len(mid) > 0 {
			dst = append(dst, delim...)
			dst = append(dst, mid...)
			dst = append(dst, delim...)
		}
		dst = append(dst, right...)
		if i < 0 {
			return dst
		}
		dst = append(dst, '\n')
		src = src[i+1:]
	}
}

// spaceAround splits b into its leading white space, the rest trimmed,
// and its trailing white space.
func spaceAround(b []byte) (left, mid, right []byte) {
	r := bytes.TrimRightFunc(b, unicode.IsSpace)
	mid = bytes.TrimLeftFunc(r, unicode.IsSpace)
	return b[:len(r)-len(mid)], mid, b[len(r):]
}

func (w *mdWriter) list(n *html.Node) {
	// Each item is rendered, trimmed and kept apart until the count
	// (for the width of ordered numbers) is known.
	start := len(w.b)
	type span struct{ from, to int }
	var items []span
	var buf [16]span
	items = buf[:0]
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		from := len(w.b)
		w.node(c)
		item := bytes.TrimSpace(w.b[from:])
		if len(item) == 0 {
			w.b = w.b[:from]
			continue
		}
		lead := len(w.b[from:]) - len(bytes.TrimLeftFunc(w.b[from:], unicode.IsSpace))
		items = append(items, span{from + lead, from + lead + len(item)})
	}
	if len(items) == 0 {
		w.b = w.b[:start]
		return
	}
	w.t3 = append(w.t3[:0], w.b[start:]...)
	all := w.t3
	w.b = append(w.b[:start], "\n\n"...)
	first, width := 1, 0
	ordered := n.Data == "ol"
	if ordered {
		if v, ok := anyAttr(n, "start"); ok {
			if k, err := strconv.Atoi(v); err == nil {
				first = k
			}
		}
		width = utf8.RuneCountInString(strconv.Itoa(first + len(items) - 1))
	}
	indent := 2
	if ordered {
		indent = len(listNumber(nil, first, width))
	}
	for i, it := range items {
		if ordered {
			w.b = listNumber(w.b, first+i, width)
		} else {
			w.b = append(w.b, "- "...)
		}
		item := all[it.from-start : it.to-start]
		w.t1 = trimNewlines(w.t1[:0], item)
		w.t1 = trimHardBreaks(w.t1)
		w.b = w.indentItem(w.b, w.t1, indent)
		if i < len(items)-1 {
			w.b = append(w.b, '\n')
		}
	}
	w.b = append(w.b, "\n\n"...)
}

// indentItem unescapes an item and writes it, its lines after the first
// (code block lines included) indented.
func (w *mdWriter) indentItem(dst, item []byte, indent int) []byte {
	from := len(dst)
	dst = unescape(dst, item)
	body := dst[from:]
	if bytes.IndexByte(body, '\n') < 0 && !bytes.Contains(body, []byte(codeNewline)) {
		return dst
	}
	w.t2 = append(w.t2[:0], body...)
	dst = dst[:from]
	src := w.t2
	last := 0
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\n':
			dst = append(dst, src[last:i+1]...)
		case src[i] == codeNewline[0] && i+len(codeNewline) <= len(src) && string(src[i:i+len(codeNewline)]) == codeNewline:
			i += len(codeNewline) - 1
			dst = append(dst, src[last:i+1]...)
		default:
			continue
		}
		dst = appendSpaces(dst, indent)
		last = i + 1
	}
	return append(dst, src[last:]...)
}

func appendSpaces(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

// listNumber appends "07. " for k 7 in width 2.
func listNumber(dst []byte, k, width int) []byte {
	s := strconv.Itoa(k)
	if k < 0 {
		dst = append(dst, '-')
		s = s[1:]
		width--
	}
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	dst = append(dst, s...)
	return append(dst, '.', ' ')
}

// codeText is the text of a code element as the page shows it: <br> and
// <div> break lines; the language comes from the first class
// "language-x" or "lang-x" of the element or a code/pre inside it.
func codeText(dst []byte, n *html.Node, lang *string) []byte {
	if n.Type == html.ElementNode {
		switch n.Data {
		case "code", "pre":
			if *lang == "" {
				*lang = classLanguage(n)
			}
		case "style", "script", "textarea":
			return dst
		case "br", "div":
			dst = append(dst, '\n')
		}
	}
	if n.Type == html.TextNode {
		return append(dst, n.Data...)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		dst = codeText(dst, c, lang)
	}
	return dst
}

func classLanguage(n *html.Node) string {
	class, _ := anyAttr(n, "class")
	for part := range strings.SplitSeq(class, " ") {
		if !strings.Contains(part, "language-") && !strings.Contains(part, "lang-") {
			continue
		}
		part = strings.Replace(part, "language-", "", 1)
		return strings.Replace(part, "lang-", "", 1)
	}
	return ""
}

// attrOK returns the value of n's attribute key (any namespace, as the
// library reads it).
func anyAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func (w *mdWriter) codeBlock(n *html.Node) {
	var lang string
	w.t1 = codeText(w.t1[:0], n, &lang)
	code := w.t1
	if len(code) > 0 && code[len(code)-1] == '\n' {
		code = code[:len(code)-1]
	}
	fence := longestRun(code, '`') + 1
	if fence < 3 {
		fence = 3
	}
	w.b = append(w.b, "\n\n"...)
	w.b = appendRepeat(w.b, '`', fence)
	w.b = append(w.b, lang...)
	w.b = append(w.b, '\n')
	for {
		i := bytes.IndexByte(code, '\n')
		if i < 0 {
			break
		}
		w.b = append(w.b, code[:i]...)
		w.b = append(w.b, codeNewline...)
		code = code[i+1:]
	}
	w.b = append(w.b, code...)
	w.b = append(w.b, '\n')
	w.b = appendRepeat(w.b, '`', fence)
	w.b = append(w.b, "\n\n"...)
}

func appendRepeat(dst []byte, c byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, c)
	}
	return dst
}

func longestRun(b []byte, c byte) int {
	best, run := 0, 0
	for _, x := range b {
		if x == c {
			run++
			if run > best {
				best = run
			}
		} else {
			run = 0
		}
	}
	return best
}

func (w *mdWriter) inlineCode(n *html.Node) {
	var lang string
	w.t1 = codeText(w.t1[:0], n, &lang)
	code := w.t1
	if len(bytes.TrimSpace(code)) == 0 {
		w.b = append(w.b, '`')
		w.b = append(w.b, code...)
		w.b = append(w.b, '`')
		return
	}
	// Line breaks and tabs become spaces, runs of spaces one (the code
	// trimmed starts and ends with neither). The longest run of '`'
	// sets the fence.
	t := w.t2[:0]
	space := false
	run, fence := 0, 1
	for _, c := range bytes.TrimSpace(code) {
		if c == '\n' || c == '\t' {
			c = ' '
		}
		if c == ' ' && space {
			continue
		}
		space = c == ' '
		if c == '`' {
			run++
			fence = max(fence, run+1)
		} else {
			run = 0
		}
		t = append(t, c)
	}
	w.t2 = t
	w.b = appendRepeat(w.b, '`', fence)
	if t[0] == '`' {
		w.b = append(w.b, ' ')
	}
	w.b = append(w.b, t...)
	if t[len(t)-1] == '`' {
		w.b = append(w.b, ' ')
	}
	w.b = appendRepeat(w.b, '`', fence)
}

func (w *mdWriter) quote(n *html.Node) {
	start := len(w.b)
	w.children(n)
	content := bytes.TrimSpace(w.b[start:])
	if len(content) == 0 {
		w.b = w.b[:start]
		return
	}
	w.t2 = append(w.t2[:0], content...)
	w.t1 = trimNewlines(w.t1[:0], w.t2)
	w.t1 = trimHardBreaks(w.t1)
	w.b = append(w.b[:start], "\n\n> "...)
	for _, c := range w.t1 {
		w.b = append(w.b, c)
		if c == '\n' {
			w.b = append(w.b, '>', ' ')
		}
	}
	w.b = append(w.b, "\n\n"...)
}

func (w *mdWriter) heading(n *html.Node, level int) {
	start := len(w.b)
	w.children(n)
	if len(bytes.TrimSpace(w.b[start:])) == 0 {
		w.b = w.b[:start]
		return
	}
	src := w.take(start)
	// One line: breaks become spaces, runs of spaces one.
	w.t2 = w.t2[:0]
	for i, c := range src {
		if c == '\n' || c == '\r' {
			c = ' '
		}
		if c == ' ' && i > 0 && (src[i-1] == ' ' || src[i-1] == '\n' || src[i-1] == '\r') {
			continue
		}
		w.t2 = append(w.t2, c)
	}
	content := bytes.TrimSpace(w.t2)
	if k := len(content); k >= 2 && content[k-1] == '#' && !(k >= 3 && content[k-3] == '\\') {
		// A closing "#" would be read as the end of the heading.
		content[k-2] = '\\'
	}
	w.b = append(w.b, "\n\n"...)
	w.b = appendRepeat(w.b, '#', level)
	w.b = append(w.b, ' ')
	w.b = append(w.b, content...)
	w.b = append(w.b, "\n\n"...)
}

// escapeBrackets puts a backslash before each "[" and "]" not already
// after one.
func escapeBrackets(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if (s[i] == '[' || s[i] == ']') && (i == 0 || s[i-1] != '\\') {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return dst
}

func (w *mdWriter) image(n *html.Node) {
	src, _ := anyAttr(n, "src")
	src = strings.TrimSpace(src)
	if src == "" {
		w.children(n)
		return
	}
	title, _ := anyAttr(n, "title")
	alt, _ := anyAttr(n, "alt")
	w.b = append(w.b, '!', '[')
	w.b = escapeBrackets(w.b, strings.ReplaceAll(alt, "\n", " "))
	w.b = append(w.b, ']', '(')
	w.b = appendURL(w.b, src)
	w.b = appendTitle(w.b, strings.ReplaceAll(title, "\n", " "))
	w.b = append(w.b, ')')
}

// appendTitle appends ` "title"` (in single quotes when it holds double
// ones), nothing for no title.
func appendTitle(dst []byte, title string) []byte {
	if title == "" {
		return dst
	}
	dst = append(dst, ' ')
	dq, sq := strings.ContainsRune(title, '"'), strings.ContainsRune(title, '\'')
	switch {
	case dq && sq:
		dst = append(dst, '"')
		dst = append(dst, strings.ReplaceAll(title, `"`, `\"`)...)
		return append(dst, '"')
	case dq:
		dst = append(dst, '\'')
		dst = append(dst, title...)
		return append(dst, '\'')
	}
	dst = append(dst, '"')
	dst = append(dst, title...)
	return append(dst, '"')
}

func (w *mdWriter) anchor(n *html.Node) {
	href, _ := anyAttr(n, "href")
	var hb [256]byte
	u := appendURL(hb[:0], strings.TrimSpace(href))
	if len(u) == 0 {
		w.children(n)
		return
	}
	start := len(w.b)
	w.link++
	w.children(n)
	w.link--
	if len(bytes.TrimSpace(w.b[start:])) == 0 {
		// A link without text: what it holds (white space) stays.
		return
	}
	title, _ := anyAttr(n, "title")
	src := w.take(start)
	left, mid, right := spaceAround(src)
	w.b = append(w.b, left...)
	w.b = append(w.b, '[')
	w.t2 = trimNewlines(w.t2[:0], mid)
	w.b = escapeLines(w.b, w.t2)
	w.b = append(w.b, ']', '(')
	w.b = append(w.b, u...)
	w.b = appendTitle(w.b, strings.ReplaceAll(title, "\n", " "))
	w.b = append(w.b, ')')
	w.b = append(w.b, right...)
}

// escapeLines ends each line but the last of a link's text with a hard
// break, and writes an empty line as a backslash break.
func escapeLines(dst, src []byte) []byte {
	if bytes.IndexByte(src, '\n') < 0 {
		return append(dst, src...)
	}
	for {
		line := src
		i := bytes.IndexByte(src, '\n')
		if i >= 0 {
			line = src[:i]
		}
		line = bytes.TrimLeftFunc(line, unicode.IsSpace)
		switch {
		case len(line) == 0:
			dst = append(dst, '\\', '\n')
		case i < 0:
			dst = append(dst, line...)
		case bytes.HasSuffix(line, []byte("  ")):
			dst = append(dst, line...)
			dst = append(dst, '\n')
		default:
			dst = append(dst, line...)
			dst = append(dst, ' ', ' ', '\n')
		}
		if i < 0 {
			return dst
		}
		src = src[i+1:]
	}
}

var urlReplacer = strings.NewReplacer(" ", "%20", "[", "%5B", "]", "%5D", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")

// appendURL appends a link target as markdown writes it: the query
// re-encoded, and spaces, brackets, parentheses and angle brackets
// percent-encoded.
func appendURL(dst []byte, raw string) []byte {
	raw = strings.TrimSpace(raw)
	if raw == "#" || plainURL(raw) {
		return append(dst, raw...)
	}
	return appendParsedURL(dst, raw)
}

// appendParsedURL is appendURL for a raw URL, trimmed, that is not
// plainURL: parsed and written again.
func appendParsedURL(dst []byte, raw string) []byte {
	raw = strings.ReplaceAll(raw, "\n", "%0A")
	raw = strings.ReplaceAll(raw, "\t", "%09")
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "data" {
		return append(dst, urlReplacer.Replace(raw)...)
	}
	u.RawQuery = strings.ReplaceAll(encodeQuery(u.RawQuery), "+", "%20")
	return append(dst, urlReplacer.Replace(u.String())...)
}

// plainURL tells whether appendURL writes raw as it stands because
// parsing and writing it again changes nothing: an http or https URL
// (the scheme in lower case) with a host, made of letters, digits and
// "-._~:/" only, and a fragment of the same bytes after a single '#',
// if any. Such a URL has no query to encode again, nothing to escape
// and nothing to replace, and if its port does not parse, the error's
// path writes it as it stands too. Links the pipeline made absolute
// mostly read so.
func plainURL(raw string) bool {
	rest, ok := strings.CutPrefix(raw, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "http://"); !ok {
			return false
		}
	}
	if rest == "" || rest[0] == '/' || rest[0] == '#' || rest[len(rest)-1] == '#' {
		return false
	}
	hash := false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == '#' && !hash {
			hash = true
			continue
		}
		if !plainURLBytes[c] {
			return false
		}
	}
	return true
}

// plainURLBytes are the bytes of a plainURL besides its '#'.
var plainURLBytes = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "-._~:/" {
		t[c] = true
	}
	return
}()

// encodeQuery decodes and encodes again each key and value of a query.
func encodeQuery(q string) string {
	if q == "" {
		return ""
	}
	var b strings.Builder
	for i, part := range strings.Split(q, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		k, v, eq := strings.Cut(part, "=")
		b.WriteString(reencode(k))
		if eq {
			b.WriteByte('=')
			if v != "" {
				b.WriteString(reencode(v))
			}
		}
	}
	return b.String()
}

func reencode(s string) string {
	d, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return url.QueryEscape(d)
}

// --- tables ---

// table writes n as a GFM table and tells whether it could: a table with
// a block that a cell cannot hold (a heading, a list, a quote, a rule or
// another table), inside emphasis or a link, of role presentation or
// with a line break in a cell is written as text instead; so is one that
// would take the document past maxTableExtra or maxTableWork.
func (w *mdWriter) table(n *html.Node) bool {
	if v, _ := anyAttr(n, "role"); v == "presentation" {
		return false
	}
	if findFirst(n, func(x *html.Node) bool {
		return isHeading(x) || isElem(x, "table", "hr", "ul", "ol", "blockquote")
	}) != nil {
		return false
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if isElem(p, "a", "strong", "b", "em", "i", "del", "s", "strike") {
			return false
		}
	}
	var header *html.Node
	if thead := findFirst(n, func(x *html.Node) bool { return isElem(x, "thead") }); thead != nil {
		header = findFirst(thead, func(x *html.Node) bool { return isElem(x, "tr") })
	}
	if header == nil {
		if th := findFirst(n, func(x *html.Node) bool { return isElem(x, "th") }); th != nil {
			header = th.Parent
		}
	}
	var rowNodes []*html.Node
	walkAll(n, func(x *html.Node) {
		if isElem(x, "tr") && x != header {
			rowNodes = append(rowNodes, x)
		}
	})
	// Cells are rendered into t-owned storage: cells of the table hold
	// indexes into cellBuf.
	start := len(w.b)
	type cell struct{ from, to int } // in w.b; to < 0: a placeholder, nil
	var rows [][]cell
	var groups [][]spanMod
	room := maxTableExtra - w.tableExtra
	spanned, source := 0, 0 // the cells spans add (up to room+1), the page's
	renderRow := func(y int, row *html.Node) []cell {
		var cells []cell
		var mods []spanMod
		for x, c := range findAll(row, func(x *html.Node) bool { return isElem(x, "td", "th") }) {
			from := len(w.b)
			w.node(c)
			content := bytes.TrimSpace(w.b[from:])
			w.t1 = w.t1[:0]
			for i := 0; i < len(content); i++ {
				if content[i] == escMark && i+1 < len(content) && content[i+1] == '|' {
					w.t1 = append(w.t1, '\\', '|')
					i++
					continue
				}
				w.t1 = append(w.t1, content[i])
			}
			w.b = unescape(w.b[:from], w.t1)
			cells = append(cells, cell{from, len(w.b)})
			source++
			rs, cs := min(spanAttr(c, "rowspan"), room+1), min(spanAttr(c, "colspan"), room+1)
			if spanned += rs*cs - 1; spanned > room {
				spanned = room + 1 // the table is written as text: no cells for its spans
				continue
			}
			if rs > 1 || cs > 1 {
				for dx := 1; dx < cs; dx++ {
					mods = append(mods, spanMod{y, x + dx})
				}
				for dy := 1; dy < rs; dy++ {
					for dx := 0; dx < cs; dx++ {
						mods = append(mods, spanMod{y + dy, x + dx})
					}
				}
			}
		}
		groups = append(groups, mods)
		return cells
	}
	if header != nil {
		rows = append(rows, renderRow(0, header))
	} else {
		rows = append(rows, nil)
	}
	for i, r := range rowNodes {
		rows = append(rows, renderRow(i+1, r))
	}
	if spanned > room {
		w.b = w.b[:start]
		return false
	}
	// Spanned cells are inserted empty, the last row's first.
	empty := cell{len(w.b), len(w.b)}
	for g := len(groups) - 1; g >= 0; g-- {
		for _, m := range groups[g] {
			for len(rows) <= m.y {
				rows = append(rows, nil)
			}
			n := len(rows[m.y])
			if w.tableWork += max(m.x-n, 0) + max(n-m.x, 0) + 1; w.tableWork > maxTableWork {
				w.b = w.b[:start]
				return false
			}
			for len(rows[m.y]) < m.x {
				rows[m.y] = append(rows[m.y], cell{0, -1})
			}
			r := rows[m.y]
			r = append(r, cell{})
			copy(r[m.x+1:], r[m.x:])
			r[m.x] = empty
			rows[m.y] = r
		}
	}
	text := func(c cell) []byte {
		if c.to < 0 {
			return nil
		}
		return w.b[c.from:c.to]
	}
	var counts []int
	for _, r := range rows {
		for x, c := range r {
			if bytes.IndexByte(text(c), '\n') >= 0 {
				w.b = w.b[:start]
				return false
			}
			k := utf8.RuneCount(text(c))
			if x >= len(counts) {
				counts = append(counts, 1)
			}
			if k > counts[x] {
				counts[x] = k
			}
		}
	}
	// Every row is written as wide as the widest.
	extra := len(rows)*len(counts) - source
	if extra > room {
		w.b = w.b[:start]
		return false
	}
	w.tableExtra += extra
	var aligns []string
	first := header
	if first == nil && len(rowNodes) > 0 {
		first = rowNodes[0]
	}
	if first != nil {
		for _, c := range findAll(first, func(x *html.Node) bool { return isElem(x, "td", "th") }) {
			v, _ := anyAttr(c, "align")
			aligns = append(aligns, v)
		}
	}
	var caption []byte
	if cn := findFirst(n, func(x *html.Node) bool { return x.DataAtom == atom.Caption }); cn != nil {
		from := len(w.b)
		w.node(cn)
		// An empty caption is none.
		caption = bytes.TrimSpace(w.b[from:])
	}
	// Write the table after the cells, then move it into place.
	out := len(w.b)
	w.b = append(w.b, "\n\n"...)
	writeRow := func(r []cell) {
		for x := range counts {
			if x == 0 {
				w.b = append(w.b, '|')
			}
			w.b = append(w.b, ' ')
			if x < len(r) {
				w.b = append(w.b, text(r[x])...)
			}
			w.b = append(w.b, ' ', '|')
		}
	}
	writeRow(rows[0])
	w.b = append(w.b, '\n')
	for x := range counts {
		a := ""
		if x < len(aligns) {
			a = aligns[x]
		}
		if x == 0 {
			w.b = append(w.b, '|')
		}
		if a == "left" || a == "center" {
			w.b = append(w.b, ':')
		} else {
			w.b = append(w.b, '-')
		}
		w.b = append(w.b, '-')
		if a == "right" || a == "center" {
			w.b = append(w.b, ':')
		} else {
			w.b = append(w.b, '-')
		}
		w.b = append(w.b, '|')
	}
	w.b = append(w.b, '\n')
	for _, r := range rows[1:] {
		writeRow(r)
		w.b = append(w.b, '\n')
	}
	if caption != nil {
		w.b = append(w.b, "\n\n"...)
		w.b = append(w.b, caption...)
	}
	w.b = append(w.b, "\n\n"...)
	k := copy(w.b[start:], w.b[out:])
	w.b = w.b[:start+k]
	return true
}

type spanMod struct{ y, x int }

// maxTableExtra bounds the cells of a document's GFM tables that no cell
// of the page made: the empty cells of spans and of short rows padded to
// the widest. A table of a few kilobytes could ask for billions (one
// cell of rowspan and colspan 10^9; one row of 3,000 cells over 3,000
// rows of one); past the bound, tables are written as text, whose size
// follows the page's. maxTableWork bounds the cells moved to place spans
// (each inserted cell moves the rest of its row). Real tables take
// thousands of each.
const (
	maxTableExtra = 1 << 20
	maxTableWork  = 1 << 27
)

func spanAttr(n *html.Node, key string) int {
	v, ok := anyAttr(n, key)
	if !ok {
		return 1
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 {
		return 1
	}
	return k
}

// findFirst returns the first node under n (n excluded) in document
// order that match accepts.
func findFirst(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if match(c) {
			return c
		}
		if x := findFirst(c, match); x != nil {
			return x
		}
	}
	return nil
}

func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var all []*html.Node
	walkAll(n, func(x *html.Node) {
		if x != n && match(x) {
			all = append(all, x)
		}
	})
	return all
}

func walkAll(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkAll(c, f)
	}
}

// --- step 3: finish -----------------------------------------------------

func (w *mdWriter) finish() []byte {
	w.t1 = trimNewlines(w.t1[:0], bytes.TrimSpace(w.b))
	w.t1 = trimHardBreaks(w.t1)
	w.b = unescape(w.b[:0], w.t1)
	return replaceShrink(w.b, codeNewline, "\n")
}

// replaceShrink replaces every old in b by new, as bytes.ReplaceAll
// does (left to right, not overlapping), in b itself: new is not longer
// than old, so the writing never overtakes the reading. The renderer's
// buffers keep their capacity from page to page that way; a fresh
// slice in their place, sized to one page, grew again on the next.
func replaceShrink(b []byte, old, new string) []byte {
	i := bytes.Index(b, []byte(old))
	if i < 0 {
		return b
	}
	w, r := i, i
	for {
		w += copy(b[w:], new)
		r += len(old)
		j := bytes.Index(b[r:], []byte(old))
		if j < 0 {
			break
		}
		w += copy(b[w:], b[r:r+j])
		r += j
	}
	w += copy(b[w:], b[r:])
	return b[:w]
}

// trimNewlines keeps at most two line breaks in a row and drops the
// spaces between the breaks beyond them. Only ' ' counts as a space.
func trimNewlines(dst, src []byte) []byte {
	breaks := 0
	for {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return append(dst, src...)
		}
		line := src[:i]
		if blank(line) {
			breaks++
			if breaks <= 2 {
				dst = append(dst, line...)
				dst = append(dst, '\n')
			}
		} else {
			breaks = 1
			dst = append(dst, line...)
			dst = append(dst, '\n')
		}
		src = src[i+1:]
	}
}

// blank tells whether b holds nothing but ' '.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' {
			return false
		}
	}
	return true
}

// trimHardBreaks drops a hard break ("  \n") before an empty line, in b.
func trimHardBreaks(b []byte) []byte {
	if !bytes.Contains(b, []byte("  \n")) {
		return b
	}
	b = replaceShrink(b, "  \n\n", "\n\n")
	b = replaceShrink(b, "  \n  \n", "\n\n")
	return replaceShrink(b, "  \n \n", "\n\n")
}

// unescape writes src without its marks, a backslash in place of each
// mark before a character that markdown would read as syntax there.
func unescape(dst, src []byte) []byte {
	last := 0
	for i := 0; i < len(src); i++ {
		k := bytes.IndexByte(src[i:], escMark)
		if k < 0 {
			break
		}
		i += k
		dst = append(dst, src[last:i]...)
		last = i + 1
		if i+1 >= len(src) {
			break
		}
		skip := syntaxAt(src, i+1)
		if skip < 0 {
			continue
		}
		dst = append(dst, '\\')
		// The characters skipped keep no marks of their own: the first
		// character's rule covered them.
		end := i + skip
		if end > len(src) {
			end = len(src)
		}
		for j := i + 1; j < end; j++ {
			if src[j] != escMark {
				dst = append(dst, src[j])
			}
		}
		last = end
		i = end - 1
	}
	return append(dst, src[last:]...)
}

// syntaxAt tells whether the marked character at b[i] must be escaped:
// it returns how many bytes from i the escape covers, or -1.
func syntaxAt(b []byte, i int) int {
	c := b[i]
	if c == '*' || c == '_' {
		if r := nextRune(b, i); !(unicode.IsSpace(r) || r == 0) {
			return 1
		}
	}
	if c == '>' && lineStart(b, i) {
		return 1
	}
	if c == '#' && lineStart(b, i) {
		if k := atxHeading(b, i); k > 0 {
			return k
		}
	}
	if c == '=' || c == '-' {
		if setextUnderline(b, i) {
			return 1
		}
	}
	if c == '-' || c == '_' || c == '*' {
		if k := thematicBreak(b, i); k > 0 {
			return k
		}
	}
	if c == '.' || c == ')' {
		if orderedMarker(b, i) {
			return 1
		}
	}
	if (c == '-' || c == '*' || c == '+') && lineStart(b, i) {
		if x := nextByte(b, i); isSpaceByteLib(x) || x == 0 {
			return 1
		}
	}
	if c == '!' && i+1 < len(b) && b[i+1] == '[' {
		return 1
	}
	if c == '[' {
		for j := i + 1; j < len(b); j++ {
			if b[j] == '\n' {
				break
			}
			if b[j] == ']' {
				return 1
			}
		}
	}
	if c == '`' || c == '~' {
		if k := codeFence(b, i); k > 0 {
			return k
		}
	}
	if c == '`' || c == '\\' {
		return 1
	}
	if c == '~' {
		if r := nextRune(b, i); !(unicode.IsSpace(r) || r == 0) {
			return 1
		}
	}
	if c == '<' {
		return angleSyntax(b, i)
	}
	return -1
}

// lineStart tells whether only spaces and marks stand before b[i] on its
// line.
func lineStart(b []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch b[j] {
		case '\n':
			return true
		case ' ', escMark:
		default:
			return false
		}
	}
	return true
}

func nextRune(b []byte, i int) rune {
	for j := i + 1; j < len(b); j++ {
		if b[j] != escMark {
			r, _ := utf8.DecodeRune(b[j:])
			return r
		}
	}
	return 0
}

func nextByte(b []byte, i int) byte {
	for j := i + 1; j < len(b); j++ {
		if b[j] != escMark {
			return b[j]
		}
	}
	return 0
}

func isSpaceByteLib(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0:
		return true
	}
	return false
}

func atxHeading(b []byte, i int) int {
	count := 1
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '#':
			count++
			if count > 6 {
				return -1
			}
		case escMark:
		case ' ', '\t', '\n', '\r':
			return j - i
		default:
			return -1
		}
	}
	return 1
}

func setextUnderline(b []byte, i int) bool {
	breaks := 0
	for j := i - 1; j >= 0; j-- {
		switch b[j] {
		case escMark, ' ':
		case '\n':
			breaks++
		default:
			return breaks == 1
		}
	}
	return false
}

func thematicBreak(b []byte, i int) int {
	if !lineStart(b, i) {
		return -1
	}
	count, end := 1, len(b)
	for j := i + 1; j < len(b); j++ {
		c := b[j]
		if c == escMark || c == ' ' {
			continue
		}
		if c == b[i] {
			count++
			continue
		}
		if c == '\n' {
			end = j
			break
		}
		return -1
	}
	if count >= 3 {
		return end - i
	}
	return -1
}

func orderedMarker(b []byte, i int) bool {
	prev := rune(0)
	for j := i - 1; j >= 0; j-- {
		if b[j] != escMark {
			prev, _ = utf8.DecodeLastRune(b[:j+1])
			break
		}
	}
	if !unicode.IsDigit(prev) {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		c := b[j]
		if c == '\n' {
			break
		}
		if c == ' ' || c == escMark || c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	x := nextByte(b, i)
	return isSpaceByteLib(x) || x == 0
}

func codeFence(b []byte, i int) int {
	if !lineStart(b, i) {
		return -1
	}
	count := 1
	j := i + 1
	for ; j < len(b); j++ {
		if b[j] == escMark {
			continue
		}
		if b[j] == '`' || b[j] == '~' {
			count++
			continue
		}
		break
	}
	if count < 3 {
		return -1
	}
	return j - i
}

// angleSyntax tells whether a "<" of text at b[i] must stay escaped: where
// it would open a tag, a closing tag, a comment, a declaration or
// processing instruction (all start with a letter, "/", "!" or "?") or
// an autolink (a scheme starts with a letter; an e-mail address is a run
// of address characters up to "@").
func angleSyntax(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] == escMark {
		j++
	}
	if j == len(b) {
		return -1
	}
	switch c := b[j]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '/', c == '!', c == '?':
		return 1
	}
	for ; j < len(b); j++ {
		c := b[j]
		switch {
		case c == '@':
			return 1
		case c == escMark, c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", c) >= 0:
		default:
			return -1
		}
	}
	return -1
}
