package content

import (
	"math"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The product profile's block filter. On a page taken for a product, the
// chosen content's leaf blocks (block elements without block elements
// inside) are scored one by one by a small logistic model of whether the
// block belongs to the product's detail block, from its structure alone:
// its size and links, prices, whether it sits in a run of repeated
// siblings (cards, reviews, menus) and how card-like that run is, in a
// list, a table, a form or under a boilerplate class name, whether it
// reads as a sentence, and where it lies against the page's <h1>. Blocks
// the model gives under productBlockCut are removed. The weights are
// fitted on wcxb-dev half A (go run ./bench/prodlook -train).

// Block feature indexes; ProductBlockFeatureNames names them.
const (
	bBias = iota
	bWords
	bLinkDensity
	bPrice
	bPosition
	bHeading
	bInList
	bInCell
	bInForm
	bInRun
	bRunCards
	bBoilerName
	bSentence
	bBeforeH1
	bNoH1
	bParentLinks
	bDepth
	bShort
	bH1Near
	bDescribed
	numBlockFeatures
)

// ProductBlockFeatureNames names the block filter's features.
var ProductBlockFeatureNames = [numBlockFeatures]string{"bias", "log words", "link density", "holds a price",
	"position", "heading", "in a list item", "in a table cell", "in a form", "in a run of 3+ siblings",
	"card share of that run", "boilerplate class name", "reads as a sentence", "before the h1", "no h1",
	"link density of its parent", "log depth", "under 4 words", "share of the content around it and the h1",
	"share of its words in the meta description"}

// productBlock is one leaf block of the chosen content.
type productBlock struct {
	node *html.Node
	text string
	f    [numBlockFeatures]float64
}

// maxProductBlocks bounds the blocks the filter scores on one page; a
// page with more keeps its content as it is.
const maxProductBlocks = 20000

// productBlocks returns n's leaf blocks with their features, in
// document order, or nil when n holds more than maxProductBlocks. One
// walk for the leaves and the runs, one textStats per leaf and per
// leaf's parent (the leaves are disjoint; parents' texts are counted
// once each).
func productBlocks(n *html.Node, desc string) []productBlock {
	cards := make(map[*html.Node]bool)
	var leaves []*html.Node
	var h1 *html.Node
	over := false
	var walk func(e *html.Node) (block, link, img bool)
	walk = func(e *html.Node) (block, link, img bool) {
		for c := e.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if h1 == nil && (c.DataAtom == atom.H1 || hasAttr(c, h1Mark)) {
				h1 = c
			}
			b, l, i := walk(c)
			l = l || c.DataAtom == atom.A
			i = i || c.DataAtom == atom.Img || c.DataAtom == atom.Picture
			if l && i {
				cards[c] = true
			}
			if isBlock(c.DataAtom) {
				if !b {
					if len(leaves) >= maxProductBlocks {
						over = true
					} else {
						leaves = append(leaves, c)
					}
				}
				block = true
			} else if b {
				block = true
			}
			link, img = link || l, img || i
		}
		return
	}
	walk(n)
	if over || len(leaves) == 0 {
		return nil
	}
	// The runs: for each parent of a leaf's ancestors, its children's
	// counts per key, made once per parent.
	type run struct {
		size  map[itemKey]int
		cards map[itemKey]int
	}
	runs := make(map[*html.Node]*run)
	runOf := func(p *html.Node) *run {
		r := runs[p]
		if r == nil {
			r = &run{size: make(map[itemKey]int), cards: make(map[itemKey]int)}
			for c := p.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode {
					k := itemKeyOf(c.Data, itemClass(attr(c, "class")))
					r.size[k]++
					if cards[c] {
						r.cards[k]++
					}
				}
			}
			runs[p] = r
		}
		return r
	}
	// The words of each ancestor of the h1 under n, and of n.
	h1Words := make(map[*html.Node]int)
	total := countWords(nodeText(n))
	if h1 != nil {
		for p := h1; p != nil && p != n; p = p.Parent {
			h1Words[p] = countWords(nodeText(p))
		}
	}
	h1Words[n] = total
	descWords := make(map[string]bool)
	for _, w := range strings.Fields(strings.ToLower(desc)) {
		descWords[strings.Trim(w, ".,;:!?()\"'")] = true
	}
	parentLD := make(map[*html.Node]float64)
	beforeH1 := h1 != nil
	out := make([]productBlock, 0, len(leaves))
	for i, l := range leaves {
		var b productBlock
		b.node = l
		if l == h1 || h1 != nil && isAncestor(l, h1) {
			beforeH1 = false
		}
		text := collapse(nodeText(l))
		words := countWords(text)
		if words == 0 {
			continue
		}
		b.text = text
		f := &b.f
		f[bBias] = 1
		f[bWords] = math.Log1p(float64(words))
		if words < 4 {
			f[bShort] = 1
		}
		inLink := false
		depth := 0
		for p := l; p != nil && p != n; p = p.Parent {
			depth++
			switch p.DataAtom {
			case atom.A:
				if p != l {
					inLink = true
				}
			case atom.Li, atom.Dd, atom.Dt:
				f[bInList] = 1
			case atom.Td, atom.Th:
				f[bInCell] = 1
			case atom.Form, atom.Label, atom.Button, atom.Select:
				f[bInForm] = 1
			}
			if p != l && (BoilerplateName(attr(p, "class"), true) || BoilerplateName(attr(p, "id"), true)) {
				f[bBoilerName] = 1
			}
			if f[bInRun] == 0 && p.Parent != nil {
				r := runOf(p.Parent)
				k := itemKeyOf(p.Data, itemClass(attr(p, "class")))
				if r.size[k] >= minItems {
					f[bInRun] = 1
					f[bRunCards] = float64(r.cards[k]) / float64(r.size[k])
				}
			}
		}
		f[bDepth] = math.Log1p(float64(depth))
		f[bH1Near] = 1
		if h1 != nil && total > 0 {
			for p := l; p != nil; p = p.Parent {
				if k, ok := h1Words[p]; ok {
					f[bH1Near] = float64(k) / float64(total)
					break
				}
			}
		}
		if len(descWords) > 0 {
			in, all := 0, 0
			for _, w := range strings.Fields(strings.ToLower(text)) {
				all++
				if descWords[strings.Trim(w, ".,;:!?()\"'")] {
					in++
				}
			}
			if all > 0 {
				f[bDescribed] = float64(in) / float64(all)
			}
		}
		st := textStats(l, nil)
		if inLink {
			f[bLinkDensity] = 1
		} else if st.length > 0 {
			f[bLinkDensity] = math.Min(1, st.linkLen/float64(st.length))
		}
		if p := l.Parent; p != nil {
			ld, ok := parentLD[p]
			if !ok {
				pst := textStats(p, nil)
				if pst.length > 0 {
					ld = math.Min(1, pst.linkLen/float64(pst.length))
				}
				parentLD[p] = ld
			}
			f[bParentLinks] = ld
		}
		if prices(text) > 0 {
			f[bPrice] = 1
		}
		f[bPosition] = float64(i) / float64(len(leaves))
		switch l.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			f[bHeading] = 1
		}
		if strings.ContainsAny(text[len(text)-1:], ".!?") || strings.Count(text, ". ") >= 2 {
			f[bSentence] = 1
		}
		if beforeH1 {
			f[bBeforeH1] = 1
		}
		if h1 == nil {
			f[bNoH1] = 1
		}
		out = append(out, b)
	}
	return out
}

// productBlockScore is the model's probability that b belongs to the
// product's detail block.
func productBlockScore(b *productBlock) float64 {
	z := 0.0
	for i, x := range b.f {
		z += productBlockWeights[i] * x
	}
	return 1 / (1 + math.Exp(-z))
}

// productFilter removes from n the leaf blocks the model scores under
// productBlockCut.
func productFilter(n *html.Node, desc string) {
	for _, b := range productBlocks(n, desc) {
		if productBlockScore(&b) < productBlockCut && b.node.Parent != nil {
			b.node.Parent.RemoveChild(b.node)
		}
	}
}

// ProductBlock is one leaf block of a product page's chosen content, for
// the trainer (bench/prodlook -train).
type ProductBlock struct {
	Text     string
	Features []float64
}

// ProductBlocks returns the leaf blocks of the content HTML would choose
// for an HTML page before the block filter, with their features, and
// whether the page gets the product profile (taken for a product with
// probability profileProb or more).
func ProductBlocks(body []byte, pageURL string) ([]ProductBlock, bool, error) {
	root, s, _, _, err := parseClassified(body, pageURL)
	if err != nil {
		return nil, false, err
	}
	doc := &Document{}
	c := contentNodeWith(root, s, Options{OnlyMainContent: true}, doc, false)
	typ := argmax(c.probs[:])
	gated := typ == typeIndex(TypeProduct) && c.probs[typ] >= profileProb
	var out []ProductBlock
	for _, b := range productBlocks(c.node, s.meta.Description) {
		out = append(out, ProductBlock{Text: b.text, Features: append([]float64(nil), b.f[:]...)})
	}
	return out, gated, nil
}
