package content

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var (
	knobItalic = os.Getenv("EVAL4_ITALIC") != ""
	knobLinkH  = os.Getenv("EVAL4_LINKH") != ""
	knobDebug  = os.Getenv("EVAL4_DEBUG") != ""
)

// italicShare is the share of n's text inside <em> or <i>.
func italicShare(n *html.Node) (italic, total int) {
	var visit func(*html.Node, bool)
	visit = func(n *html.Node, in bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				l := len(strings.TrimSpace(c.Data))
				total += l
				if in {
					italic += l
				}
			case html.ElementNode:
				visit(c, in || c.DataAtom == atom.Em || c.DataAtom == atom.I)
			}
		}
	}
	visit(n, false)
	return
}

// textBlocks lists the paragraphs and leaf divs of n with text, in
// document order, outside lists, tables, quotes and figures.
func textBlocks(n *html.Node, out []*html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Ul, atom.Ol, atom.Table, atom.Blockquote, atom.Figure, atom.Pre, atom.Dl:
			if strings.TrimSpace(nodeText(c)) != "" {
				out = append(out, nil) // a block that is not a candidate
			}
			continue
		case atom.P:
			if strings.TrimSpace(nodeText(c)) != "" {
				out = append(out, c)
			}
			continue
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if strings.TrimSpace(nodeText(c)) != "" {
				out = append(out, nil)
			}
			continue
		}
		out = textBlocks(c, out)
	}
	return out
}

// dropItalicNotes removes an all-italic short paragraph among the first
// two and the last two text blocks of the article (an editor's note, a
// disclaimer, a call to write in).
func dropItalicNotes(art *html.Node) bool {
	if !knobItalic {
		return false
	}
	blocks := textBlocks(art, nil)
	if len(blocks) < 5 {
		return false
	}
	var drop []*html.Node
	for i, b := range blocks {
		if b == nil || (i >= 2 && i < len(blocks)-2) {
			continue
		}
		it, tot := italicShare(b)
		if tot == 0 || float64(it) < 0.9*float64(tot) {
			continue
		}
		if w := len(strings.Fields(nodeText(b))); w > 25 {
			continue
		}
		drop = append(drop, b)
	}
	for _, b := range drop {
		if knobDebug {
			fmt.Fprintf(os.Stderr, "ITALIC %.100q\n", collapse(nodeText(b)))
		}
		b.Parent.RemoveChild(b)
	}
	return len(drop) > 0
}

func knobF(name string, def float64) float64 {
	if v := os.Getenv(name); v != "" {
		var f float64
		if _, err := fmt.Sscan(v, &f); err == nil {
			return f
		}
	}
	return def
}

var (
	knobSibF   = knobF("EVAL4_SIBF", 0.2)
	knobSibMin = knobF("EVAL4_SIBMIN", 10)
	knobLD1    = knobF("EVAL4_LD1", 0.2)
	knobLD2    = knobF("EVAL4_LD2", 0.5)
	knobProseD = knobF("EVAL4_PROSED", 0.25)
	knobProseL = knobF("EVAL4_PROSEL", 80)
	knobCommas = knobF("EVAL4_COMMAS", 10)
)

var knobStoryList = os.Getenv("EVAL4_STORYLIST") != ""

// storyList tells whether n is a list of links to other pages of the
// site whose items read like story titles: every item all link text,
// each link to another page, at least storyListWords words an item on
// average.
func storyList(n *html.Node, host string) bool {
	if !knobStoryList || (os.Getenv("EVAL4_ART") != "" && !knobPageArticle) || (n.DataAtom != atom.Ul && n.DataAtom != atom.Ol) {
		return false
	}
	items, words := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return false
		}
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom != atom.Li {
			return false
		}
		only, doc, other := linkOnly(c, host)
		if !only || doc || other || !linksOut(c) {
			return false
		}
		items++
		words += len(strings.Fields(nodeText(c)))
	}
	ok := items >= 1 && words >= 6*items
	if ok && knobDebug {
		fmt.Fprintf(os.Stderr, "STORYLIST %.120q\n", collapse(nodeText(n)))
	}
	return ok
}

var knobPageArticle bool

var knobClass = os.Getenv("EVAL4_CLASS")

// knobClassShare: a: any token shared; f: the first token equal; s: same token sets after dropping tokens with digits...
func knobClassShare(a, b string) bool {
	if knobClass == "" || b == "" {
		return false
	}
	ta, tb := strings.Fields(a), strings.Fields(b)
	if len(ta) == 0 || len(tb) == 0 {
		return false
	}
	switch knobClass {
	case "a":
		for _, x := range ta {
			for _, y := range tb {
				if x == y {
					return true
				}
			}
		}
	case "f":
		return ta[0] == tb[0]
	case "l":
		return ta[len(ta)-1] == tb[len(tb)-1] && len(ta) == len(tb)
	}
	return false
}

var knobLeadLevels = int(knobF("EVAL4_LEADLV", 6))
var knobLeadDepth = int(knobF("EVAL4_LEADDP", 3))

var knobAdjList = os.Getenv("EVAL4_ADJLIST") != ""

// prevJoined tells whether the element before c joined the article.
func prevJoined(c *html.Node, joined map[*html.Node]bool) bool {
	for p := c.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode {
			return joined[p]
		}
	}
	return false
}

var knobInlineByline = os.Getenv("EVAL4_INBYLINE") != ""

var knobTOC = os.Getenv("EVAL4_TOC") != ""

// tocList tells whether n is a table of contents: a list of at least
// three items, each all link text, every link to a place on this page.
func tocList(n *html.Node) bool {
	if !knobTOC || (n.DataAtom != atom.Ul && n.DataAtom != atom.Ol) {
		return false
	}
	items := 0
	all := true
	var visit func(*html.Node)
	visit = func(m *html.Node) {
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				if c.DataAtom == atom.A && !strings.HasPrefix(strings.TrimSpace(attr(c, "href")), "#") {
					all = false
				}
				visit(c)
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom != atom.Li {
			return false
		}
		only, _, _ := linkOnly(c, "")
		if !only {
			return false
		}
		items++
	}
	visit(n)
	ok := all && items >= 3
	if ok && knobDebug {
		fmt.Fprintf(os.Stderr, "TOC %.120q\n", collapse(nodeText(n)))
	}
	return ok
}

var knobStoryBlock = os.Getenv("EVAL4_STORYBLOCK") != ""

// storyBlock tells whether n (a div or p without block children other
// than links' wrappers) holds two or more links to other pages of the
// site, each of at least four words, and little else.
func storyBlock(n *html.Node, host string) bool {
	if !knobStoryBlock || !knobPageArticle || (n.DataAtom != atom.Div && n.DataAtom != atom.P) {
		return false
	}
	only, doc, other := linkOnly(n, host)
	if !only || doc || other || !linksOut(n) {
		return false
	}
	links, long := 0, 0
	var visit func(*html.Node)
	visit = func(m *html.Node) {
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.A {
				links++
				if len(strings.Fields(nodeText(c))) >= 4 {
					long++
				}
				continue
			}
			visit(c)
		}
	}
	visit(n)
	ok := links >= 2 && long == links
	if ok && knobDebug {
		fmt.Fprintf(os.Stderr, "STORYBLOCK %.120q\n", collapse(nodeText(n)))
	}
	return ok
}
