package detect

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/content"
)

// maxMatches bounds the keyword matches the region is computed from.
const maxMatches = 10_000

// Anchor chooses the region a monitor watches. With keywords, each
// block that mentions one is widened to its container: out of an item
// (li, tr, p, a heading, one of several siblings of the same tag and
// class) to the list or container of items around it, a table section
// to its table. The container holding the most matches is the region,
// or the smallest element holding all containers tied for most; matches
// in navigation, footers and other boilerplate count only when there is
// no other. For a new press release in a list, the region is the list,
// even when an intro paragraph mentions the same word. Without keywords
// the region is the page's main content as content.HTML extracts it;
// that extraction modifies doc as content.HTML does (scripts, styles,
// comments and hidden elements are removed).
//
// It returns ErrKeywordsNotFound when keywords are given and no block
// of the page mentions one, and ErrNoBody for a document without body.
func Anchor(doc *html.Node, pageURL string, keywords []string) (*Region, error) {
	keywords = cleanKeywords(keywords)
	p := readPage(doc, pageURL)
	if p == nil {
		return nil, ErrNoBody
	}
	var e int32
	switch {
	case len(keywords) > 0:
		var ok bool
		if e, ok = p.keywordRegion(keywords); !ok {
			return nil, ErrKeywordsNotFound
		}
	case p.depth <= maxMainDepth:
		// MainNode removes only what readPage skips (scripts, hidden
		// elements …): the elements recorded stay in the tree.
		e = p.elemOf(content.MainNode(doc, pageURL))
	}
	e = p.widen(e)
	return &Region{
		Fingerprint: p.fingerprint(e, keywords),
		Markdown:    p.markdown(e),
		Score:       100,
		root:        p.elems[e].node,
	}, nil
}

// maxMainDepth is the nesting depth beyond which the main content is
// not extracted (the whole body is the region): the extractor's cost
// grows with depth times size, and the HTML parser refuses to nest more
// than 512 elements anyway.
const maxMainDepth = 512

// keywordRegion returns the region around the blocks that mention a
// keyword, leaving out matches in boilerplate unless all of them lie
// there. Each match is widened to its container (see widen); the
// container holding the most matches wins, and when several hold as
// many, their lowest common ancestor: a list of press releases wins over
// an intro paragraph that mentions the same word.
func (p *page) keywordRegion(keywords []string) (int32, bool) {
	var content, boiler []int32
	for i := range p.blocks {
		b := &p.blocks[i]
		if b.elem < 0 || !mentions(b.Text, keywords) {
			continue
		}
		if b.bpe < 0 {
			if len(content) < maxMatches {
				content = append(content, b.elem)
			}
		} else if len(boiler) < maxMatches {
			boiler = append(boiler, b.elem)
		}
	}
	matches := content
	if len(matches) == 0 {
		matches = boiler
	}
	if len(matches) == 0 {
		return 0, false
	}
	count := make(map[int32]int)
	var order []int32
	best := 0
	widened := make(map[int32]int32)
	for _, m := range matches {
		c, ok := widened[m]
		if !ok {
			c = p.widen(m)
			widened[m] = c
		}
		if count[c] == 0 {
			order = append(order, c)
		}
		count[c]++
		best = max(best, count[c])
	}
	// Elements are numbered in document order, so the common ancestor of
	// a set is that of its first and last element.
	first, last := int32(len(p.elems)), int32(-1)
	for _, c := range order {
		if count[c] == best {
			first, last = min(first, c), max(last, c)
		}
	}
	return p.lca(first, last), true
}

// lca returns the lowest common ancestor of elements a and b.
func (p *page) lca(a, b int32) int32 {
	for a != b {
		if p.elems[a].depth >= p.elems[b].depth {
			a = p.elems[a].parent
		} else {
			b = p.elems[b].parent
		}
		if a < 0 || b < 0 {
			return 0
		}
	}
	return a
}

// elemOf returns the element of node n, or body (element 0) when n was
// not recorded.
func (p *page) elemOf(n *html.Node) int32 {
	for i := range p.elems {
		if p.elems[i].node == n {
			return int32(i)
		}
	}
	return 0
}

// widen climbs from an item to the container of items around it: out
// of inline elements and item elements (li, tr, td, p, headings …),
// then once out of a unit repeated among its siblings (same tag and
// class), then from a table section to its table.
func (p *page) widen(e int32) int32 {
	for e > 0 && !containerTags[p.elems[e].node.DataAtom] {
		e = p.elems[e].parent
	}
	if e > 0 && repeated(p.elems[e].node) {
		e = p.elems[e].parent
		for e > 0 && !containerTags[p.elems[e].node.DataAtom] {
			e = p.elems[e].parent
		}
	}
	switch p.elems[e].node.DataAtom {
	case atom.Tbody, atom.Thead, atom.Tfoot:
		if e > 0 {
			e = p.elems[e].parent
		}
	}
	return max(e, 0)
}

// repeated tells whether n is one of several siblings of its tag and
// class: an item of a list made of divs or sections. Unclassed divs are
// layout, not items.
func repeated(n *html.Node) bool {
	class := attr(n, "class")
	if class == "" && n.DataAtom != atom.Article && n.DataAtom != atom.Section {
		return false
	}
	same := 0
	for c := n.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == n.DataAtom && c.Data == n.Data && attr(c, "class") == class {
			same++
			if same >= 2 {
				return true
			}
		}
	}
	return false
}

// containerTags are the elements a region may be rooted at.
var containerTags = map[atom.Atom]bool{
	atom.Body: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Aside: true, atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Ul: true,
	atom.Ol: true, atom.Dl: true, atom.Table: true, atom.Tbody: true, atom.Thead: true,
	atom.Tfoot: true, atom.Form: true, atom.Figure: true, atom.Fieldset: true, atom.Details: true,
	atom.Center: true, atom.Menu: true, atom.Blockquote: true,
}
