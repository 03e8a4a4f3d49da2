package detect

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/content"
)

// maxMatches bounds the keyword matches the region is computed from.
const maxMatches = 10_000

// Anchor chooses the region a monitor watches. With keywords, each
// block of the page's content that mentions one is widened to its
// container: out of an item (li, tr, p, a heading, one of several
// siblings of the same tag and class) to the list or container of items
// around it, a table section to its table. Every such container is
// watched (a fingerprint of ScopeKeywords): a press list and a paragraph
// elsewhere that mention the keyword both are, and a new press release
// in the list or a new paragraph beside the other is seen. Matches in
// navigation, footers and other boilerplate count only when there is no
// other. Without keywords
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
	if len(keywords) > 0 {
		s, ok := p.keywordScope(keywords, true)
		if !ok {
			return nil, ErrKeywordsNotFound
		}
		return &Region{
			Fingerprint: s.fp,
			Markdown:    p.scopeMarkdown(s),
			Score:       100,
			root:        p.elems[s.root].node,
		}, nil
	}
	var e int32
	if p.depth <= maxMainDepth {
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
