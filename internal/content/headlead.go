package content

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The lead under the title. Many articles set their lead paragraph in the
// page's header, right under the <h1>, apart from the body the
// readability pass chooses. addHeadLead puts it first in the article
// when the first block after the <h1> is a paragraph of prose (long
// enough, ending a sentence, with little link text) that the article
// does not hold.

const (
	headLeadKey   = 50    // characters of the lead compared with the article
	headLeadSteps = 32768 // nodes walked at most
	headLeadMin   = 100   // shortest lead, in bytes
	headLeadMax   = 1200  // longest lead, in bytes
)

var headLeadKnob = os.Getenv("TYPED_LEAD")

// Throw-away knobs of the typed branch (measured, to be reverted).
// TYPED_LEAD: "all" (no gate), "notart" (the page is not typed article),
// "types" (typed service, collection or listing), "pa" (P(article) under
// TYPED_LEADPA). TYPED_SIBMIN: the sibling floor on pages typed one of
// TYPED_SIBTYPES (comma-separated, default forum,service).
var (
	headLeadPA = knobF("TYPED_LEADPA", 0.5)
	sibMinKnob = knobF("TYPED_SIBMIN", 10)
	sibTypes   = os.Getenv("TYPED_SIBTYPES")
	typedDebug = os.Getenv("TYPED_DEBUG") != ""
)

func knobF(name string, def float64) float64 {
	if v := os.Getenv(name); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			return f
		}
	}
	return def
}

// headLeadGate tells whether the lead knob applies to a page typed typ
// with probabilities probs.
func headLeadGate(typ int, probs []float64) bool {
	switch headLeadKnob {
	case "all":
		return true
	case "notart":
		return typ != typeIndex(TypeArticle)
	case "types":
		return typ == typeIndex(TypeService) || typ == typeIndex(TypeCollection) || typ == typeIndex(TypeListing)
	case "pa":
		return probs[typeIndex(TypeArticle)] < headLeadPA
	}
	return false
}

// sibFloorFor is the readability pass's sibling floor for a page typed typ.
func sibFloorFor(typ int) float64 {
	ts := sibTypes
	if ts == "" {
		ts = "forum,service"
	}
	for _, t := range strings.Split(ts, ",") {
		if t == "all" || PageTypes[typ] == PageType(t) {
			return sibMinKnob
		}
	}
	return 10
}

func addHeadLead(root, article *html.Node) bool {
	if headLeadKnob == "" {
		return false
	}
	h1 := findAtomNode(root, atom.H1, headLeadSteps)
	if h1 == nil {
		return false
	}
	n, steps := skipSubtree(h1), 0
	for ; n != nil && steps < headLeadSteps; steps++ {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.H1, atom.Nav, atom.Footer, atom.Aside, atom.Form:
				return false
			case atom.Figure, atom.Script, atom.Style, atom.Noscript, atom.Template:
				n = skipSubtree(n)
				continue
			}
		}
		if n.Type != html.TextNode || strings.TrimSpace(n.Data) == "" {
			n = sfNext(n)
			continue
		}
		break
	}
	if n == nil || steps >= headLeadSteps {
		return false
	}
	b := n.Parent
	for b != nil && b.Type == html.ElementNode && !isBlock(b.DataAtom) {
		b = b.Parent
	}
	if b == nil || b.Type != html.ElementNode || b.DataAtom != atom.P {
		return false
	}
	t := collapse(nodeText(b))
	if len(t) < headLeadMin || len(t) > headLeadMax || !endsSentence(t) {
		return false
	}
	st := textStats(b, nil)
	if st.linkLen > 0.1*float64(st.length) {
		return false
	}
	key := t
	for i := range key {
		if utf8.RuneCountInString(key[:i]) == headLeadKey {
			key = key[:i]
			break
		}
	}
	if strings.Contains(collapse(nodeText(article)), key) {
		return false
	}
	if typedDebug {
		fmt.Fprintf(os.Stderr, "LEAD %.100q\n", t)
	}
	article.InsertBefore(cloneTree(b), article.FirstChild)
	return true
}

// endsSentence tells whether s ends a sentence, before closing quotes
// or brackets.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, " \"'”’»)]")
	r, _ := utf8.DecodeLastRuneInString(s)
	switch r {
	case '.', '!', '?', '…', '。', '！', '？':
		return true
	}
	return false
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
