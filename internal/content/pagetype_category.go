package content

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A category page of a shop or a section of a site, read by the item
// profile: the title and introduction the page puts above its items,
// and the pager below them (bench/content/README.md, items6).

// Bounds of the walks: the nodes read from the body's start to its
// first <h1>, and from the <h1> to the item region.
const (
	maxH1Steps    = 1 << 20
	maxIntroSteps = 4096
)

// minIntroWords is the fewest words of a block of introduction, and
// maxIntroGap the most words of other text between the <h1> and the
// item region.
const (
	minIntroWords = 15
	maxIntroGap   = 150
)

// introBefore returns the page's first <h1> outside the page's frame and
// the blocks of prose that follow it before the item region r: a
// category's title and its introduction, which the region leaves out when
// they sit in a row or column of their own above the grid. It returns
// nil when the <h1> lies within r or after it, when no block of prose
// follows it, or when more than maxIntroGap words of other text (a
// column of filters, a sort bar) stand between it and r.
func introBefore(body, r *html.Node) []*html.Node {
	if offIntro {
		return nil
	}
	var h1 *html.Node
	steps := 0
	for d := range body.Descendants() {
		steps++
		if steps > maxH1Steps || d == r {
			return nil // the region comes first, or holds the <h1>
		}
		if d.Type == html.ElementNode && d.DataAtom == atom.H1 && !inFrame(d, body) {
			h1 = d
			break
		}
	}
	if h1 == nil || countWords(nodeText(h1)) == 0 {
		return nil
	}
	out := []*html.Node{h1}
	gap := 0
	steps = 0
	n := nextInOrder(body, h1, false)
	for n != nil && n != r {
		steps++
		if steps > maxIntroSteps {
			return nil
		}
		switch {
		case n.Type == html.TextNode:
			k := countWords(n.Data)
			if k >= minIntroWords && !inLink(n, body) {
				out = append(out, n)
			} else if gap += k; gap > maxIntroGap {
				return nil
			}
			n = nextInOrder(body, n, false)
		case n.Type != html.ElementNode:
			n = nextInOrder(body, n, false)
		case holds(n, r):
			n = nextInOrder(body, n, true)
		case skipsIntro(n):
			n = nextInOrder(body, n, false)
		case introBlock(n):
			out = append(out, n)
			n = nextInOrder(body, n, false)
		default:
			n = nextInOrder(body, n, true)
		}
	}
	if n == nil || len(out) == 1 {
		return nil
	}
	return out
}

// nextInOrder returns the node after n in document order under body:
// its first child when into, else the next node outside n; nil at the
// end of body.
func nextInOrder(body, n *html.Node, into bool) *html.Node {
	if into && n.FirstChild != nil {
		return n.FirstChild
	}
	for ; n != nil && n != body; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}

// skipsIntro tells whether the walk from the <h1> passes over n without
// reading it: the page's frame, forms and controls, and what never shows.
func skipsIntro(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Button, atom.Select,
		atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
		return true
	}
	return false
}

// introBlock tells whether n is a block of prose: a paragraph, or a
// <div> or <section> without blocks inside, of minIntroWords words or
// more, under a fifth of them in links.
func introBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P:
	case atom.Div, atom.Section:
		for d := range n.Descendants() {
			if d == n || d.Type != html.ElementNode {
				continue
			}
			switch d.DataAtom {
			case atom.Div, atom.Section, atom.P, atom.Ul, atom.Ol, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4:
				return false
			}
		}
	default:
		return false
	}
	if countWords(nodeText(n)) < minIntroWords {
		return false
	}
	st := textStats(n, nil)
	return st.length > 0 && st.linkLen < 0.2*float64(st.length)
}

// holds tells whether n is a or an ancestor of a.
func holds(n, a *html.Node) bool {
	for ; a != nil; a = a.Parent {
		if a == n {
			return true
		}
	}
	return false
}

// inLink tells whether n sits in a link under body.
func inLink(n, body *html.Node) bool {
	for p := n.Parent; p != nil && p != body; p = p.Parent {
		if p.DataAtom == atom.A {
			return true
		}
	}
	return false
}

// inFrame tells whether n sits in a <nav>, <header>, <footer> or
// <aside> under body.
func inFrame(n, body *html.Node) bool {
	for p := n.Parent; p != nil && p != body; p = p.Parent {
		switch p.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside:
			return true
		}
	}
	return false
}

// joinIntro returns the item region's copy k under copies of the intro
// blocks (introBefore), in one <div>; k itself when there are none. A
// block that is a bare text becomes a paragraph.
func joinIntro(intro []*html.Node, k *html.Node) *html.Node {
	if len(intro) == 0 {
		return k
	}
	w := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, b := range intro {
		if b.Type == html.TextNode {
			p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
			p.AppendChild(&html.Node{Type: html.TextNode, Data: b.Data})
			w.AppendChild(p)
			continue
		}
		c := cloneTree(b)
		prune(c)
		w.AppendChild(c)
	}
	w.AppendChild(k)
	return w
}

// maxPagerDepth bounds removePagers' descent.
const maxPagerDepth = 256

// removePagers removes from n, a collection's or listing's main content,
// every element whose class or id names a pager ("pagination",
// "pager") and that reads as one: not prose, fewer words than half of
// n's, no run of items inside. It reports whether it removed any.
func removePagers(n *html.Node) bool {
	total := countWords(nodeText(n))
	if total == 0 {
		return false
	}
	removed := false
	var walk func(p *html.Node, depth int)
	walk = func(p *html.Node, depth int) {
		if depth >= maxPagerDepth {
			return
		}
		var next *html.Node
		for c := p.FirstChild; c != nil; c = next {
			next = c.NextSibling
			if c.Type != html.ElementNode {
				continue
			}
			if pagerNamed(c) && isPager(c, total) {
				p.RemoveChild(c)
				removed = true
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return removed
}

// pagerNamed tells whether n's class or id names a pager.
func pagerNamed(n *html.Node) bool {
	for _, key := range [...]string{"class", "id"} {
		// "pag" first: most values hold neither word, told in one pass.
		if v := attr(n, key); containsLower(v, "pag") && (containsLower(v, "pagination") || containsLower(v, "pager")) {
			return true
		}
	}
	return false
}

// isPager tells whether n, in a content of total words, reads as a
// pager: under half the content's words, not prose, and no run of items
// inside (a wrapper named for its pager that holds the grid itself).
func isPager(n *html.Node, total int) bool {
	if n.DataAtom == atom.Body || n.DataAtom == atom.Main {
		return false
	}
	text := nodeText(n)
	words := countWords(text)
	if words == 0 {
		return true
	}
	if 2*words > total || readsAsProse(text, words) {
		return false
	}
	if g, items := itemRun(n); g != nil && 2*items >= words {
		return false
	}
	return true
}
