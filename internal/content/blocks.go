package content

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The block filter. The chosen main content of every page is cut into
// its leaf blocks (block elements without a block element inside:
// paragraphs, list items, headings, table rows, pre, blockquotes,
// captions, divs of text), and each is scored by a logistic model of
// whether its words belong to the page's main content, from its
// structure alone: its size and links and its parent's links, its tag,
// the landmarks, lists, tables and forms around it inside the content,
// a boilerplate class or id above it, whether it reads as sentences,
// whether it is one of a run of repeated siblings, how deep it sits, the
// page-type probabilities and the content's own size and links. Blocks
// scored under blockCut are removed, unless that would remove more than
// blockGuard of the content's words (then nothing is). The weights are
// fitted on wcxb-dev half A by go run ./bench/blockml (blocks_model.go).

// Block feature indexes; BlockFeatureNames names them.
const (
	fbBias = iota
	fbWords
	fbShort
	fbLinks
	fbParentLinks
	fbHeading
	fbTagP
	fbTagLi
	fbTagRow
	fbTagPre
	fbTagQuote
	fbTagCaption
	fbInList
	fbInTable
	fbInForm
	fbInNav
	fbInAside
	fbInFooter
	fbInHeader
	fbBoilerAbove
	fbBoilerSelf
	fbSentence
	fbPunct
	fbCapitals
	fbDigits
	fbInRun
	fbRunCards
	fbRunSize
	fbDepth
	fbShare
	fbRepeat
	fbTypeArticle
	fbTypeDocumentation
	fbTypeForum
	fbTypeProduct
	fbTypeCollection
	fbTypeListing
	fbTypeService
	fbContentWords
	fbContentLinks
	fbPrice
	fbTopLinks
	fbTopShare
	fbTopH1
	fbParentShare
	fbPrevLinks
	fbNextLinks
	fbPrevWords
	fbNextWords
	fbRepeatForum
	fbPosition
	fbBeforeH1
	fbAfterLast
	numBlockFeatures
)

// BlockTypeFeature is the index of the first p(type) feature (in the
// order of PageTypes).
const BlockTypeFeature = fbTypeArticle

// BlockFeatureCount is the number of block features.
const BlockFeatureCount = numBlockFeatures

// BlockFeatureNames names the block filter's features.
var BlockFeatureNames = [numBlockFeatures]string{"bias", "log words", "under 4 words", "link density",
	"link density of its parent", "heading", "p", "li/dt/dd", "table row or cell", "pre", "blockquote",
	"figcaption/caption", "in a list", "in a table", "in a form", "in a nav", "in an aside", "in a footer",
	"in a header", "boilerplate class/id above", "boilerplate class/id on it", "ends as a sentence",
	"punctuation per word", "share of capitalised words", "share of numbers", "in a run of 3+ siblings",
	"card share of that run", "log run size", "log depth under the content", "share of the content's words",
	"repeats an earlier block", "p(article)", "p(documentation)", "p(forum)", "p(product)",
	"p(collection)", "p(listing)", "p(service)", "log words of the content", "link density of the content",
	"holds a price", "link density of its section", "share of the content in its section",
	"its section holds the h1", "share of the content in its parent", "link density of the block before",
	"link density of the block after", "log words of the block before", "log words of the block after",
	"repeats an earlier block, times p(forum)", "position", "before the h1", "in the last tenth"}

// BlockPositionFeatures are the features that say where a block lies in
// the content (the trainer can leave them out).
var BlockPositionFeatures = []int{fbPosition, fbBeforeH1, fbAfterLast}

// BlockRepeatFeature is the index of "repeats an earlier block".
const BlockRepeatFeature = fbRepeat

// maxFilterBlocks bounds the blocks the filter scores on one page; a
// page with more keeps its content as it is.
const maxFilterBlocks = 20000

// leafBlock is one leaf block of the chosen content.
type leafBlock struct {
	node  *html.Node
	text  string
	words int
	// caption: a caption or a block inside a <figure>, which the filter
	// never drops (whether a caption is content is a convention that
	// differs from corpus to corpus: readability's references hold them,
	// wcxb-dev's mostly do not).
	caption bool
	f       [numBlockFeatures]float64
}

// leafBlocks returns n's leaf blocks that hold words, with their
// features, in document order, or nil when n holds more than
// maxFilterBlocks. One walk for the leaves and the cards, one text and
// one textStats per leaf and per leaf's parent, one pass over each
// parent's children for the runs.
func leafBlocks(n *html.Node, probs *[len(PageTypes)]float64) []leafBlock {
	cards := make(map[*html.Node]bool)
	var leaves []*html.Node
	var h1 *html.Node
	over := false
	var walk func(e *html.Node) (block, link, img bool)
	walk = func(e *html.Node) (block, link, img bool) {
		for c := e.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || over {
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
					if len(leaves) >= maxFilterBlocks {
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
	out := make([]leafBlock, 0, len(leaves))
	total := 0
	seen := make(map[string]bool)
	parentLD := make(map[*html.Node]float64)
	parentWords := make(map[*html.Node]int)
	type topStats struct {
		st    stats
		words int
		h1    bool
	}
	tops := make(map[*html.Node]topStats)
	beforeH1 := h1 != nil
	var linkChars, allChars float64
	for _, l := range leaves {
		if l == h1 || h1 != nil && isAncestor(l, h1) {
			beforeH1 = false
		}
		text := collapse(nodeText(l))
		words := countWords(text)
		if words == 0 {
			continue
		}
		b := leafBlock{node: l, text: text, words: words}
		total += words
		f := &b.f
		f[fbBias] = 1
		f[fbWords] = math.Log1p(float64(words))
		if words < 4 {
			f[fbShort] = 1
		}
		switch l.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			f[fbHeading] = 1
		case atom.P:
			f[fbTagP] = 1
		case atom.Li, atom.Dt, atom.Dd:
			f[fbTagLi] = 1
		case atom.Tr, atom.Td, atom.Th:
			f[fbTagRow] = 1
		case atom.Pre:
			f[fbTagPre] = 1
		case atom.Blockquote:
			f[fbTagQuote] = 1
		case atom.Figcaption, atom.Caption:
			f[fbTagCaption] = 1
			b.caption = true
		}
		if BoilerplateName(attr(l, "class"), true) || BoilerplateName(attr(l, "id"), true) {
			f[fbBoilerSelf] = 1
		}
		inLink := false
		depth := 0
		top := l
		for p := l; p != nil && p != n; p = p.Parent {
			depth++
			top = p
			if p != l {
				switch p.DataAtom {
				case atom.A:
					inLink = true
				case atom.Li, atom.Ul, atom.Ol, atom.Dl:
					f[fbInList] = 1
				case atom.Table:
					f[fbInTable] = 1
				case atom.Form, atom.Label, atom.Button, atom.Select:
					f[fbInForm] = 1
				case atom.Nav:
					f[fbInNav] = 1
				case atom.Aside:
					f[fbInAside] = 1
				case atom.Footer:
					f[fbInFooter] = 1
				case atom.Header:
					f[fbInHeader] = 1
				case atom.Figure:
					b.caption = true
				}
				switch attr(p, "role") {
				case "navigation", "menu", "menubar":
					f[fbInNav] = 1
				case "complementary":
					f[fbInAside] = 1
				case "contentinfo":
					f[fbInFooter] = 1
				}
				if f[fbBoilerAbove] == 0 && (BoilerplateName(attr(p, "class"), true) || BoilerplateName(attr(p, "id"), true)) {
					f[fbBoilerAbove] = 1
				}
			}
			if f[fbInRun] == 0 && p.Parent != nil {
				r := runOf(p.Parent)
				k := itemKeyOf(p.Data, itemClass(attr(p, "class")))
				if s := r.size[k]; s >= minItems {
					f[fbInRun] = 1
					f[fbRunCards] = float64(r.cards[k]) / float64(s)
					f[fbRunSize] = math.Log1p(float64(s))
				}
			}
		}
		f[fbDepth] = math.Log1p(float64(depth))
		ts, ok := tops[top]
		if !ok {
			ts.st = textStats(top, nil)
			ts.words = countWords(nodeText(top))
			ts.h1 = h1 != nil && (top == h1 || isAncestor(top, h1))
			tops[top] = ts
		}
		if ts.st.length > 0 {
			f[fbTopLinks] = math.Min(1, ts.st.linkLen/float64(ts.st.length))
		}
		f[fbTopShare] = float64(ts.words)
		if ts.h1 {
			f[fbTopH1] = 1
		}
		if p := l.Parent; p != nil {
			pw, ok := parentWords[p]
			if !ok {
				pw = countWords(nodeText(p))
				parentWords[p] = pw
			}
			f[fbParentShare] = float64(pw)
		}
		st := textStats(l, nil)
		allChars += float64(st.length)
		linkChars += st.linkLen
		if inLink {
			f[fbLinks] = 1
		} else if st.length > 0 {
			f[fbLinks] = math.Min(1, st.linkLen/float64(st.length))
		}
		if p := l.Parent; p != nil {
			ld, ok := parentLD[p]
			if !ok {
				if pst := textStats(p, nil); pst.length > 0 {
					ld = math.Min(1, pst.linkLen/float64(pst.length))
				}
				parentLD[p] = ld
			}
			f[fbParentLinks] = ld
		}
		last, _ := utf8.DecodeLastRuneInString(text)
		if strings.ContainsRune(".!?…。", last) {
			f[fbSentence] = 1
		}
		punct, caps, digits, alpha := 0, 0, 0, 0
		startWord := true
		for _, r := range text {
			switch {
			case r == '.' || r == ',' || r == ';' || r == ':' || r == '!' || r == '?':
				punct++
				startWord = true
			case unicode.IsLetter(r):
				if startWord {
					alpha++
					if unicode.IsUpper(r) {
						caps++
					}
				}
				startWord = false
			case unicode.IsDigit(r):
				if startWord {
					digits++
				}
				startWord = false
			default:
				startWord = true
			}
		}
		f[fbPunct] = math.Min(1, float64(punct)/float64(words))
		if alpha > 0 {
			f[fbCapitals] = float64(caps) / float64(alpha)
		}
		f[fbDigits] = math.Min(1, float64(digits)/float64(words))
		if words >= 4 {
			if seen[text] {
				f[fbRepeat] = 1
			}
			seen[text] = true
		}
		if probs != nil {
			for t := range probs {
				f[fbTypeArticle+t] = probs[t]
			}
		}
		if prices(text) > 0 {
			f[fbPrice] = 1
		}
		if beforeH1 {
			f[fbBeforeH1] = 1
		}
		out = append(out, b)
	}
	if total == 0 {
		return nil
	}
	cl := 0.0
	if allChars > 0 {
		cl = math.Min(1, linkChars/allChars)
	}
	seenWords := 0
	for i := range out {
		f := &out[i].f
		f[fbShare] = float64(out[i].words) / float64(total)
		f[fbTopShare] = math.Min(1, f[fbTopShare]/float64(total))
		f[fbParentShare] = math.Min(1, f[fbParentShare]/float64(total))
		if i > 0 {
			f[fbPrevLinks] = out[i-1].f[fbLinks]
			f[fbPrevWords] = out[i-1].f[fbWords]
		}
		f[fbRepeatForum] = f[fbRepeat] * f[fbTypeForum]
		if i+1 < len(out) {
			f[fbNextLinks] = out[i+1].f[fbLinks]
			f[fbNextWords] = out[i+1].f[fbWords]
		}
		f[fbContentWords] = math.Log1p(float64(total))
		f[fbContentLinks] = cl
		f[fbPosition] = float64(seenWords) / float64(total)
		if seenWords*10 >= total*9 {
			f[fbAfterLast] = 1
		}
		seenWords += out[i].words
	}
	return out
}

// blockScore is the model's probability that b belongs to the main
// content.
func blockScore(b *leafBlock) float64 {
	z := 0.0
	for i, x := range b.f {
		z += blockWeights[i] * x
	}
	return 1 / (1 + math.Exp(-z))
}

// blockFilter removes from n the leaf blocks the model scores under
// blockCut, unless they hold more than blockGuard of n's block words.
func blockFilter(n *html.Node, probs *[len(PageTypes)]float64) bool {
	bs := leafBlocks(n, probs)
	total, drop := 0, 0
	var gone []*html.Node
	for i := range bs {
		total += bs[i].words
		if !(blockKeepCaptions && bs[i].caption) && blockScore(&bs[i]) < blockCut {
			drop += bs[i].words
			gone = append(gone, bs[i].node)
		}
	}
	if len(gone) == 0 || float64(drop) > blockGuard*float64(total) {
		return false
	}
	for _, g := range gone {
		if g.Parent != nil {
			g.Parent.RemoveChild(g)
		}
	}
	return true
}

// Block is one leaf block of a page's chosen content, for the trainer
// (bench/blockml).
type Block struct {
	Text     string
	Features []float64
	Caption  bool // a caption or inside a <figure>
}

// BlockSample is what the trainer reads of one page: the leaf blocks of
// the main content HTML chooses before the block filter, and the text
// HTML gives without the filter.
type BlockSample struct {
	Blocks []Block
	Text   string
}

// Blocks returns the block sample of an HTML page (main content).
func Blocks(body []byte, pageURL string) (BlockSample, error) {
	var bs BlockSample
	if len(strings.TrimSpace(string(body))) == 0 {
		return bs, ErrEmpty
	}
	if !utf8.Valid(body) {
		body = []byte(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	root, err := html.Parse(lightBody(body))
	if err != nil {
		return bs, err
	}
	var got []leafBlock
	doc := fromTreeWith(root, pageURL, Options{OnlyMainContent: true}, &got)
	for _, b := range got {
		bs.Blocks = append(bs.Blocks, Block{Text: b.text, Features: append([]float64(nil), b.f[:]...), Caption: b.caption})
	}
	bs.Text = doc.Text
	return bs, nil
}
