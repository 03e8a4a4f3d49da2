package detect

import (
	"slices"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/content"
)

// ScopeKeywords is the Scope of a fingerprint that watches every block
// of the page's content that mentions a discovery keyword, each with its
// context (the container widen climbs to), rather than one region. Such
// a fingerprint is found again by its keywords, not by its place: every
// run watches all the keyword blocks the page then holds, so a keyword
// block added anywhere in the content is seen, one removed leaves a
// removal, and a restructure or a re-anchoring never narrows the watch.
const ScopeKeywords = "keywords"

// keywordParts returns the containers around the blocks that mention a
// keyword: each match widened (see widen), the outermost containers
// kept, in document order. Matches in boilerplate count only when there
// is no other and boiler allows them (then boiler is returned true),
// except those that the page's main content keeps (see mainKeeps). It
// returns false when no block of the page mentions a keyword.
func (p *page) keywordParts(keywords []string, boilerOK bool) (parts []int32, fromBoiler, found bool) {
	var content, boiler []int32
	var hinted []int32
	for i := range p.blocks {
		b := &p.blocks[i]
		if b.elem < 0 || !mentions(b.Text, keywords) {
			continue
		}
		if b.bpe < 0 {
			if len(content) < maxMatches {
				content = append(content, b.elem)
			}
			continue
		}
		if len(boiler) < maxMatches {
			boiler = append(boiler, b.elem)
		}
		if len(hinted) < maxMatches && p.hintOnly(b) {
			hinted = append(hinted, int32(i))
		}
	}
	if len(hinted) > 0 {
		for _, i := range p.mainKeeps(hinted) {
			content = append(content, p.blocks[i].elem)
		}
	}
	matches := content
	if len(matches) == 0 {
		if len(boiler) == 0 {
			return nil, false, false
		}
		if !boilerOK {
			return nil, false, true
		}
		matches = boiler
	}
	seen := make(map[int32]bool)
	for _, m := range matches {
		if seen[m] {
			continue
		}
		seen[m] = true
		parts = append(parts, p.widen(m))
	}
	slices.Sort(parts)
	parts = slices.Compact(parts)
	// Elements come in preorder and every part holds a block (its
	// match), so a part lies inside the last kept one exactly when its
	// blocks do.
	kept := parts[:0]
	for _, e := range parts {
		if n := len(kept); n > 0 {
			k := p.elems[kept[n-1]]
			if p.elems[e].start >= k.start && p.elems[e].end <= k.end {
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept, len(content) == 0, true
}

// hintOnly tells whether every boilerplate element holding b is one
// only by a word of its class or id ("article-and-aside",
// "Section--Ads"): no nav, aside, footer or ARIA role.
func (p *page) hintOnly(b *pblock) bool {
	for e := b.bpe; e >= 0; e = p.elems[e].bpUp {
		if !p.elems[e].hint {
			return false
		}
	}
	return true
}

// mainKeeps returns the blocks of idx that the region of a monitor
// without keywords keeps: inside the page's main content and not left
// out by it (see leftOut), and not inside a widget nested in a
// class-worded element that it keeps. A class word is a weak sign: an
// article whose
// sections are all classed "Section--Ads", or whose body sits in a
// "article-and-aside" wrapper, is content to the main-content region,
// and its keyword blocks are content to a keyword scope too. The main
// content is extracted from a copy of the page (Relocate does not modify
// its document), only for pages with such matches.
func (p *page) mainKeeps(idx []int32) []int32 {
	if p.doc == nil || p.depth > maxMainDepth {
		return nil
	}
	cp, orig := cloneTree(p.doc)
	n := orig[content.MainNode(cp, p.url)]
	if n == nil {
		return nil
	}
	m := p.widen(p.elemOf(n))
	el := p.elems[m]
	out := p.leftOut(m)
	var kept []int32
	for _, i := range idx {
		if i < el.start || i >= el.end {
			continue
		}
		b := &p.blocks[i]
		switch o := p.outerBoiler(b, el.depth); {
		case o < 0:
			// The class-worded elements hold the main content.
		case o == b.bpe && !out[o]:
			// One class-worded element inside the main content, which
			// keeps it: one of the article's sections.
		default:
			// Left out, or a widget nested in a kept one (a share bar
			// inside a class-worded section).
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// cloneTree returns a deep copy of n and, for each element of the copy,
// the element of n it copies.
func cloneTree(n *html.Node) (*html.Node, map[*html.Node]*html.Node) {
	orig := make(map[*html.Node]*html.Node)
	var clone func(*html.Node) *html.Node
	clone = func(n *html.Node) *html.Node {
		c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: slices.Clone(n.Attr)}
		if n.Type == html.ElementNode {
			orig[c] = n
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			c.AppendChild(clone(k))
		}
		return c
	}
	return clone(n), orig
}

// scope is the watched content of a keyword fingerprint in one page.
type scope struct {
	parts []int32
	root  int32 // the lowest common ancestor of the parts
	idx   []int // the page's blocks watched, in document order
	fp    *Fingerprint
}

// keywordScope reads the keyword scope of the page, or returns false
// when no block mentions a keyword. boilerOK allows a scope of
// boilerplate matches when the content has none; otherwise the scope is
// then empty.
func (p *page) keywordScope(keywords []string, boilerOK bool) (*scope, bool) {
	parts, boiler, ok := p.keywordParts(keywords, boilerOK)
	if !ok {
		return nil, false
	}
	s := &scope{parts: parts} // root: body when the scope is empty
	for i, e := range parts {
		if i == 0 {
			s.root = e
		} else {
			s.root = p.lca(s.root, e)
		}
	}
	var blocks []Block
	watched := make(map[int]bool)
	text := 0
	var omitted []string
	full := false
	for _, e := range parts {
		el := p.elems[e]
		out := p.leftOut(e)
		for i := el.start; i < el.end; i++ {
			b := &p.blocks[i]
			if o := p.outerBoiler(b, el.depth); o >= 0 && out[o] {
				if len(omitted) < maxBlocks {
					omitted = append(omitted, shortKey(b.Block))
				}
				continue
			}
			if full || len(blocks) == maxBlocks || text+len(b.Text) > maxText {
				full = true
				continue
			}
			text += len(b.Text)
			blocks = append(blocks, b.Block)
			s.idx = append(s.idx, int(i))
			watched[int(i)] = true
		}
	}
	var outside []string
	for i := range p.blocks {
		if len(outside) >= maxBlocks {
			break
		}
		if !watched[i] && mentions(p.blocks[i].Text, keywords) {
			outside = append(outside, shortKey(p.blocks[i].Block))
		}
	}
	n := p.elems[s.root].node
	s.fp = &Fingerprint{
		Scope:    ScopeKeywords,
		Path:     pathOf(n),
		Tag:      n.Data,
		Classes:  classesOf(n),
		Blocks:   blocks,
		Keywords: keywords,
		Hash:     hashBlocks(blocks),
		Omitted:  omitted,
		Outside:  outside,
		Boiler:   boiler,
	}
	return s, true
}

// scopeMarkdown renders the parts of a scope as markdown, one after the
// other, within the bounds of one region's markdown.
func (p *page) scopeMarkdown(s *scope) string {
	budget := cloneBudget{nodes: maxMarkdownNodes, text: maxText, blocks: maxBlocks}
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, e := range s.parts {
		k := p.cloneRegion(p.elems[e].node, p.leftOutNodes(e), 0, &budget)
		if k == nil {
			break
		}
		root.AppendChild(k)
	}
	base := ""
	if p.base != nil {
		base = p.base.String()
	}
	md := content.NodeMarkdown(root, base)
	if len(md) > maxMarkdownOut {
		md = truncate(md, maxMarkdownOut)
	}
	return md
}

// anyMention tells whether some block of the page mentions a keyword.
func (p *page) anyMention(keywords []string) bool {
	for i := range p.blocks {
		if mentions(p.blocks[i].Text, keywords) {
			return true
		}
	}
	return false
}
