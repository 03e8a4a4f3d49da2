package content

import (
	"math"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The tail cut. The chosen main content often holds its page's content
// and, after it, more text the content does not include (a brand story,
// related items, reviews, a newsletter form). The tail cut looks at the
// content's top-level blocks once: the children of the content root,
// with the child that holds more than half of the text opened in turn
// (a bounded chain), in document order. Each boundary between two of
// them is a place to end the content. A small logistic model scores
// each boundary from its structure (how much text comes before and
// after it, the links and cards after it, the tag and name of the
// block that starts there, a heading there, the page-type
// probabilities), and the content is ended at the best boundary when
// its score reaches tailCutMin. The weights are fitted on wcxb-dev
// half A by go run ./bench/tailcut (tailcut_model.go).

// Tail features (one row per boundary); TailFeatureNames names them.
const (
	ftBias = iota
	ftBefore
	ftAfterLog
	ftTailLinks
	ftSegLinks
	ftHeadLinks
	ftTailCards
	ftSegCards
	ftHeading
	ftLandmark
	ftList
	ftTable
	ftBoiler
	ftH1Before
	ftForm
	ftDepth
	ftSegsLog
	ftSegShare
	ftTypeArticle
	ftTypeDocumentation
	ftTypeForum
	ftTypeProduct
	ftTypeCollection
	ftTypeListing
	ftTypeService
	ftBeforeItems
	ftContentLog
	ftBodyShare
	numTailFeatures
)

// TailFeatureCount is the number of tail features.
const TailFeatureCount = numTailFeatures

// TailTypeFeature is the index of the first p(type) feature (in the
// order of PageTypes).
const TailTypeFeature = ftTypeArticle

// TailCue reports whether a boundary with features f has a structural
// cue: the block there is or starts with a heading, is a landmark, a
// list or a table, holds cards, a form or a boilerplate name, or is
// mostly links.
func TailCue(f []float64) bool {
	return f[ftHeading] > 0 || f[ftLandmark] > 0 || f[ftList] > 0 || f[ftTable] > 0 || f[ftSegCards] > 0 ||
		f[ftForm] > 0 || f[ftBoiler] > 0 || f[ftSegLinks] >= 0.5
}

// TailFeatureNames names the tail cut's features.
var TailFeatureNames = [numTailFeatures]string{"bias", "share of the text before", "log characters after",
	"link density after", "link density of the block", "link density before", "log cards after",
	"the block holds 3+ cards", "the block is or starts with a heading", "the block is a section, aside, footer, nav or header",
	"the block is a list", "the block is a table", "boilerplate class/id on the block", "the h1 is before",
	"a form or button in the block", "log depth of the block", "log blocks", "share of the text after in the block",
	"p(article)", "p(documentation)", "p(forum)", "p(product)", "p(collection)", "p(listing)", "p(service)",
	"share before × (p(product)+p(collection)+p(listing))", "log characters of the content",
	"share of the body's words in the content"}

// Bounds of the walk: at most maxTailOpen blocks opened, at most
// maxTailSegs blocks (a page with more keeps its content whole).
const (
	maxTailOpen = 8
	maxTailSegs = 256
)

// tailSeg is one top-level block of the content.
type tailSeg struct {
	node   *html.Node
	st     stats
	depth  int
	cards  int
	h1     bool
	form   bool
	starts bool // the block is or starts with a heading
}

// TailBoundary is one place to end a page's content, for the trainer:
// its features, and Cut, the index of the first block it removes. With
// Start, the content starts there instead (the blocks before Cut are
// removed; measured by the trainer, not used at run time).
type TailBoundary struct {
	Cut      int
	Start    bool
	Features []float64
}

// tailTrace makes contentNode hand the content root to the trainer
// instead of cutting it (TailCuts).
type tailTrace struct {
	visit func(node *html.Node, probs *[len(PageTypes)]float64, body int)
}

// tailSegments returns the content's top-level blocks in document order,
// or nil when there are fewer than two or more than maxTailSegs.
func tailSegments(n *html.Node) []tailSeg {
	var segs []tailSeg
	add := func(out []tailSeg, p *html.Node, depth int) []tailSeg {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.TextNode && c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
				continue
			}
			st := runStats([]*html.Node{c}, nil)
			if st.length == 0 {
				continue
			}
			out = append(out, tailSeg{node: c, st: st, depth: depth})
			if len(out) > maxTailSegs {
				return nil
			}
		}
		return out
	}
	segs = add(segs, n, 0)
	if segs == nil {
		return nil
	}
	total := 0
	for _, s := range segs {
		total += s.st.length
	}
	for open := 0; open < maxTailOpen; open++ {
		big := -1
		for i, s := range segs {
			if s.node.Type == html.ElementNode && 2*s.st.length > total && s.node.FirstChild != nil {
				big = i
				break
			}
		}
		if big < 0 {
			break
		}
		kids := add(nil, segs[big].node, segs[big].depth+1)
		if len(kids) == 0 || len(segs)-1+len(kids) > maxTailSegs {
			break
		}
		segs = append(segs[:big], append(kids, segs[big+1:]...)...)
	}
	if len(segs) < 2 {
		return nil
	}
	for i := range segs {
		markTailSeg(&segs[i])
	}
	return segs
}

// markTailSeg fills s's cards, h1, form and heading marks in one walk of
// its subtree.
func markTailSeg(s *tailSeg) {
	n := s.node
	if n.Type != html.ElementNode {
		return
	}
	first := true
	var walk func(e *html.Node, inLink bool) (img bool)
	walk = func(e *html.Node, inLink bool) (img bool) {
		switch e.DataAtom {
		case atom.H1:
			s.h1 = true
		case atom.Form, atom.Button, atom.Select, atom.Input, atom.Textarea:
			s.form = true
		case atom.Img, atom.Picture:
			img = true
		}
		if hasAttr(e, h1Mark) {
			s.h1 = true
		}
		if first {
			switch e.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				s.starts = true
				first = false
			}
		}
		for c := e.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if first && hasWord(c.Data) {
					first = false
				}
			case html.ElementNode:
				if walk(c, inLink || e.DataAtom == atom.A) {
					img = true
				}
			}
		}
		if e.DataAtom == atom.A && img {
			s.cards++
			return false
		}
		return img
	}
	walk(n, false)
}

// hasWord reports whether s holds a character other than white space.
func hasWord(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			return true
		}
	}
	return false
}

// tailBoundaries returns the features of every boundary between segs
// (boundary k cuts before segs[k+1]).
// body is the page's visible word count (0: unknown).
func tailBoundaries(segs []tailSeg, probs *[len(PageTypes)]float64, body int) [][numTailFeatures]float64 {
	total, links := 0.0, 0.0
	for _, s := range segs {
		total += float64(s.st.length)
		links += s.st.linkLen
	}
	out := make([][numTailFeatures]float64, len(segs)-1)
	before, beforeLinks := 0.0, 0.0
	cardsAfter := 0
	for _, s := range segs {
		cardsAfter += s.cards
	}
	h1 := false
	contentWords := 0.0
	if body > 0 {
		for _, s := range segs {
			if s.node.Type == html.TextNode {
				contentWords += float64(countWords(s.node.Data))
			} else {
				contentWords += float64(countWords(nodeText(s.node)))
			}
		}
	}
	items := 0.0
	if probs != nil {
		items = probs[typeIndex(TypeProduct)] + probs[typeIndex(TypeCollection)] + probs[typeIndex(TypeListing)]
	}
	for i := 1; i < len(segs); i++ {
		p := segs[i-1]
		before += float64(p.st.length)
		beforeLinks += p.st.linkLen
		cardsAfter -= p.cards
		h1 = h1 || p.h1
		s := segs[i]
		after := total - before
		f := &out[i-1]
		f[ftBias] = 1
		f[ftBefore] = before / total
		f[ftAfterLog] = math.Log1p(after)
		f[ftTailLinks] = math.Min(1, (links-beforeLinks)/math.Max(after, 1))
		f[ftSegLinks] = math.Min(1, s.st.linkLen/math.Max(float64(s.st.length), 1))
		f[ftHeadLinks] = math.Min(1, beforeLinks/math.Max(before, 1))
		f[ftTailCards] = math.Log1p(float64(cardsAfter))
		if s.cards >= minItems {
			f[ftSegCards] = 1
		}
		if s.starts {
			f[ftHeading] = 1
		}
		if s.node.Type == html.ElementNode {
			switch s.node.DataAtom {
			case atom.Section, atom.Aside, atom.Footer, atom.Nav, atom.Header:
				f[ftLandmark] = 1
			case atom.Ul, atom.Ol, atom.Dl:
				f[ftList] = 1
			case atom.Table:
				f[ftTable] = 1
			}
			if BoilerplateName(attr(s.node, "class"), true) || BoilerplateName(attr(s.node, "id"), true) {
				f[ftBoiler] = 1
			}
		}
		if h1 {
			f[ftH1Before] = 1
		}
		if s.form {
			f[ftForm] = 1
		}
		f[ftDepth] = math.Log1p(float64(s.depth))
		f[ftSegsLog] = math.Log1p(float64(len(segs)))
		f[ftSegShare] = float64(s.st.length) / math.Max(after, 1)
		if probs != nil {
			for t := range probs {
				f[ftTypeArticle+t] = probs[t]
			}
		}
		f[ftBeforeItems] = f[ftBefore] * items
		f[ftContentLog] = math.Log1p(total)
		if body > 0 {
			f[ftBodyShare] = math.Min(1, contentWords/float64(body))
		}
	}
	return out
}

// tailScore is the model's probability that ending the content at the
// boundary with features f raises its F1.
func tailScore(f *[numTailFeatures]float64) float64 {
	z := 0.0
	for i, x := range f {
		z += tailWeights[i] * x
	}
	return 1 / (1 + math.Exp(-z))
}

// tailCut ends n's content at its best boundary when the model scores
// it tailCutMin or more, and reports whether it did.
func tailCut(n *html.Node, probs *[len(PageTypes)]float64, body int) bool {
	segs := tailSegments(n)
	if segs == nil {
		return false
	}
	bs := tailBoundaries(segs, probs, body)
	best, at := -1.0, -1
	for i := range bs {
		if s := tailScore(&bs[i]); s > best {
			best, at = s, i
		}
	}
	if at < 0 || best < tailCutMin {
		return false
	}
	for _, s := range segs[at+1:] {
		if s.node.Parent != nil {
			s.node.Parent.RemoveChild(s.node)
		}
	}
	return true
}

// TailCuts runs the pipeline on an HTML page (main content) without the
// tail cut and gives the trainer (bench/tailcut) the content's
// boundaries: visit is called with -1 and the content's text, then
// with each boundary's index in the result and the text the content
// has when it ends there (or, for a Start boundary, starts there).
func TailCuts(body []byte, pageURL string, visit func(cut int, text string)) ([]TailBoundary, error) {
	var out []TailBoundary
	seen := false
	tr := &tailTrace{visit: func(n *html.Node, probs *[len(PageTypes)]float64, body int) {
		seen = true
		visit(-1, textOf(n))
		segs := tailSegments(n)
		if segs == nil {
			return
		}
		bs := tailBoundaries(segs, probs, body)
		// without reads n's text with the blocks cut removed and puts
		// them back.
		without := func(cut []tailSeg) string {
			type place struct{ parent, next *html.Node }
			places := make([]place, len(cut))
			for j, s := range cut {
				places[j] = place{s.node.Parent, s.node.NextSibling}
			}
			for j := len(cut) - 1; j >= 0; j-- {
				places[j].parent.RemoveChild(cut[j].node)
			}
			text := textOf(n)
			for j := len(cut) - 1; j >= 0; j-- {
				places[j].parent.InsertBefore(cut[j].node, places[j].next)
			}
			return text
		}
		for i := range bs {
			visit(len(out), without(segs[i+1:]))
			out = append(out, TailBoundary{Cut: i + 1, Features: append([]float64(nil), bs[i][:]...)})
		}
		for i := range bs {
			visit(len(out), without(segs[:i+1]))
			out = append(out, TailBoundary{Cut: i + 1, Start: true, Features: append([]float64(nil), bs[i][:]...)})
		}
	}}
	doc, err := HTML(body, pageURL, Options{OnlyMainContent: true, tail: tr})
	if err == nil && !seen {
		// No main content chosen (the body, or nothing): no boundary.
		visit(-1, doc.Text)
	}
	return out, err
}
