package content

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Choosing the main content among candidates. The readability article
// suits prose; the page-type profiles (pagetype_profile.go,
// pagetype_forum.go) replace it by rules for a few types. On a page the
// classifier does not take for an article, several other regions of the
// one parsed tree are candidates too: the region of repeated items, the
// marked-up thread, the body without its landmarks, the region around
// the <h1> and the article with the product facts the page declares in
// JSON-LD. A small model fitted offline (bench/pagetype -train select,
// weights in select_model.go) predicts each candidate's word F1 from its
// structure, and the best one replaces the current choice when it is
// predicted to be clearly better (selectMargin).

// selectOn switches the selector on in HTML. On since i20-select2
// (variant v12 of bench/content/README.md): with the features of what a
// candidate adds to the article and the item region kept, it raised
// wcxb-dev by 0.012 on both halves and lowered no corpus or page type
// on either half; v7, without them, lowered readability's half B by
// 0.009. Candidates (the trainer's view) computes what it would choose
// either way.
const selectOn = true

// Candidate kinds, in the order of CandidateKinds.
const (
	kArticle = iota // the readability article (or trafilatura's)
	kItems          // the region of runs of items, climbed to its heading
	kForum          // the posts the page marks up
	kBody           // the body without landmarks and boilerplate names
	kH1             // the smallest region around the <h1> holding most text
	kProduct        // the article with the JSON-LD product facts it lacks
	numKinds
)

// CandidateKinds names the candidate kinds (bench/pagetype reports them).
var CandidateKinds = [numKinds]string{"article", "items", "forum", "body", "h1", "product"}

// candidate feature indexes; SelectFeatureNames keeps their names.
const (
	sBias = iota
	sWords
	sBodyShare
	sLinkDensity
	sArticleRatio
	sArticleCovered
	sWithinArticle
	sHeadings
	sHasH1
	sPrices
	sControls
	sWordsPerLine
	sCurrent
	sCurrentCovered
	sWithinCurrent
	sReadableOK
	sExtraShare
	sExtraShort
	sExtraLinks
	sArticleProse
	sDroppedProse
	sTypeProbs
	numSelectFeatures = sTypeProbs + len(PageTypes)
)

// SelectFeatureNames names the selector's candidate features.
var SelectFeatureNames = func() [numSelectFeatures]string {
	n := [numSelectFeatures]string{"bias", "log words", "share of body words", "link density",
		"log words over article's", "article's words it holds", "its words in the article", "log headings",
		"holds the h1", "log prices", "log forms and controls", "words per line", "current choice",
		"current's words it holds", "its words in the current", "article reached its length",
		"share of its words in lines the article lacks", "share of those in short lines", "link density of what it adds",
		"log words of the article's prose lines", "share of the article's prose it drops"}
	for i, t := range PageTypes {
		n[sTypeProbs+i] = "p(" + string(t) + ")"
	}
	return n
}()

type selectFeatures [numSelectFeatures]float64

// candidate is one possible main content of a page. Its features are
// measured on src: a region of the page itself for the kinds cut out of
// the body (items, body, h1), without what their copies leave out (view,
// strip; see measure), so that only the winner is copied (tree); the
// detached tree itself (node) for the others.
type candidate struct {
	kind  int
	node  *html.Node // the detached tree, nil until tree builds it
	src   *html.Node // what the features are measured on
	view  bool
	strip func(*html.Node, bool) bool
	f     selectFeatures
	skip  bool // unmeasured: it cannot win (candidates' bound)
	lazy  bool // src (a view's region) is found only when measured
	// text is the article's text (textOf of src as measured) and words
	// its countWords, on the article's candidate; empty on the others.
	text  string
	words int
}

// tree returns c's detached tree, copying its region the first time.
func (c *candidate) tree() *html.Node {
	if c.node == nil {
		switch c.kind {
		case kItems:
			c.node = itemsCopy(c.src)
		case kBody:
			c.node = bodyWithoutLandmarks(c.src)
		case kH1:
			c.node = h1Copy(c.src)
		}
	}
	return c.node
}

// candidateLists keeps candidates' lists between pages: selectContent
// gives its list back when done with it (a list is a few kilobytes, the
// features of every kind).
var candidateLists = sync.Pool{New: func() any {
	l := make([]candidate, 0, numKinds)
	return &l
}}

// putCandidates gives cs, which nothing reads after, back to
// candidateLists.
func putCandidates(cs []candidate) {
	if cs == nil {
		return
	}
	clear(cs) // no tree kept alive by the pool
	cs = cs[:0]
	candidateLists.Put(&cs)
}

// candidates returns the page's candidates, art (the article) and cur
// (the pipeline's choice so far, art or a profile's copy) among them.
// Kinds that find nothing are left out.
//
// With bound (pick's use, when cur is art), a candidate whose score
// cannot reach the current choice's plus selectMargin, whatever its
// comparisons with the article, is left unmeasured (skip; mayWin). vb
// holds the body's bounds for that (boundBody's figures, which the
// pipeline takes from pageFeatures's walk), or is nil: boundBody then
// takes them when a view first needs them.
func candidates(root, art, cur *html.Node, sig signals, readableOK bool, probs [len(PageTypes)]float64, bound bool, runs *itemRuns, vb *viewBound, tallies *tallies) []candidate {
	body := findBody(root)
	if body == nil {
		return nil
	}
	cs := (*candidateLists.Get().(*[]candidate))[:0]
	add := func(kind int, n *html.Node) {
		if n != nil {
			cs = append(cs, candidate{kind: kind, node: n, src: n})
		}
	}
	// With bound, the item and h1 regions are found only for a view that
	// may win (viewMayWin): the item region's search walks the body's
	// runs of items. locate finds a view's region.
	lazy := bound && cur == art && art != nil
	locate := func(kind int) *html.Node {
		switch kind {
		case kItems:
			return itemRegionRootOf(body, runs)
		case kH1:
			return h1RegionRoot(body, tallies.scanned())
		}
		return body
	}
	view := func(kind int, strip func(*html.Node, bool) bool) {
		if lazy {
			cs = append(cs, candidate{kind: kind, view: true, strip: strip, lazy: true})
		} else if src := locate(kind); src != nil {
			cs = append(cs, candidate{kind: kind, src: src, view: true, strip: strip})
		}
	}
	add(kArticle, art)
	if cur != art && cur != nil {
		// A profile's copy stands in for its kind.
		if probs[typeIndex(TypeCollection)]+probs[typeIndex(TypeListing)] >= itemsProb {
			add(kItems, cur)
		} else {
			add(kForum, cur)
		}
	}
	have := func(kind int) bool {
		for _, c := range cs {
			if c.kind == kind {
				return true
			}
		}
		return false
	}
	if !have(kItems) {
		view(kItems, nil)
	}
	if !have(kForum) {
		add(kForum, forumContent(root, body, art))
	}
	view(kBody, bodyStrips)
	view(kH1, Landmark)

	artText := ""
	var artStats stats
	var artHeads, artControls int
	if art != nil {
		artText, artStats, artHeads, artControls = measureTree(art, false, nil, tallies)
		cs[0].text = artText // add(kArticle, art) came first
		add(kProduct, productContent(root, art, artText))
	}
	// The article's lines, and its words for the comparisons with it,
	// made when a candidate other than the article first needs them.
	var bag *artBag
	var al artLines
	artWords := 0
	if art != nil {
		al = newArtLines(artText)
		artWords = al.words
		cs[0].words = artWords
	}
	curText := artText
	if cur != art && cur != nil {
		curText = textOf(cur)
	}
	h1 := collapse(sig.h1)
	h1m := newH1Match(h1)
	bound = lazy
	curScore := math.Inf(1)
	for i := range cs {
		c := &cs[i]
		if bound && i > 0 && c.view {
			// A view that cannot win whatever region of the body it
			// measures is neither found nor measured.
			if vb == nil {
				vb = boundBody(body)
			}
			if !viewMayWin(c, vb, 1, artWords, sig.bodyWords, h1 != "", readableOK, al.prose, probs, curScore) {
				c.skip = true
				continue
			}
			if c.lazy {
				if c.src = locate(c.kind); c.src == nil {
					c.skip = true // no such region: no such candidate
					continue
				}
			}
			// The view's own bounds, its lines among them, from a walk
			// that writes no text: most views the body's bounds let
			// through fail here, the lines' bound on words per line
			// being the tightest.
			p := peekView(c.src, c.strip, tallies.scanned())
			if pb := p.bound(vb); !viewMayWin(c, &pb, 1+p.lines, artWords, sig.bodyWords, h1 != "", readableOK, al.prose, probs, curScore) {
				c.skip = true
				continue
			}
		}
		isArt := c.src == art && art != nil
		var text string
		var st stats
		var heads, controls, words int
		if isArt {
			text, st, heads, controls, words = artText, artStats, artHeads, artControls, artWords
		} else {
			text, st, heads, controls = measureTree(c.src, c.view, c.strip, tallies)
			words = countWords(text)
		}
		f := &c.f
		f[sBias] = 1
		f[sWords] = math.Log1p(float64(words))
		f[sBodyShare] = math.Min(1, float64(words)/float64(max(sig.bodyWords, 1)))
		if st.length > 0 {
			f[sLinkDensity] = st.linkLen / float64(st.length)
		}
		f[sArticleRatio] = math.Log(float64(words+1) / float64(artWords+1))
		f[sHeadings] = math.Log1p(float64(heads))
		if h1 != "" && h1m.in(text) {
			f[sHasH1] = 1
		}
		f[sPrices] = math.Log1p(float64(prices(text)))
		f[sControls] = math.Log1p(float64(controls))
		lines := strings.Count(text, "\n") + 1
		f[sWordsPerLine] = math.Log1p(float64(words) / float64(lines))
		if cur != nil && c.node == cur {
			// (A view's node is nil until copied; cur is nil when the
			// page has no article.)
			f[sCurrent] = 1
		}
		if readableOK {
			f[sReadableOK] = 1
		}
		if art != nil {
			f[sArticleProse] = math.Log1p(float64(al.prose))
		}
		copy(f[sTypeProbs:], probs[:])
		if bound && i > 0 && !mayWin(c, curScore, text) {
			// The comparisons with the article cannot lift it to the
			// current choice's score plus the margin: pick would not
			// return it, and without it returns the same.
			c.skip = true
			continue
		}
		if artWords > 0 {
			// shared(artText, text) and shared(text, artText), from one
			// count of the words they share.
			if isArt {
				f[sArticleCovered], f[sWithinArticle] = 1, 1
			} else {
				if bag == nil {
					bag = newArtBag(artText)
				}
				in, n := bag.overlap(text)
				f[sArticleCovered], f[sWithinArticle] = shareOf(in, bag.n), shareOf(in, n)
			}
		}
		if cur == art && artWords > 0 {
			// The same texts: the two measures against the article.
			f[sCurrentCovered], f[sWithinCurrent] = f[sArticleCovered], f[sWithinArticle]
		} else if curText != "" {
			f[sCurrentCovered] = shared(curText, text)
			f[sWithinCurrent] = shared(text, curText)
		}
		if art != nil && !isArt {
			// The article's own lines are all the article's: it adds and
			// drops nothing.
			addedFeatures(f, text, words, st, &al, artStats)
		}
		if bound && i == 0 {
			curScore = selectScore(c)
		}
		copy(f[sTypeProbs:], probs[:])
	}
	return cs
}

// proseLineWords is the length from which a line of text reads as a
// paragraph of prose, shortLineWords the length under which it reads as
// a label, a link or a control.
const (
	proseLineWords = 20
	shortLineWords = 8
)

// addedFeatures sets the features of a candidate (text, words words,
// st its text statistics) that compare it line by line with the article
// (al: its lines and prose lines, artStats its statistics): what the
// candidate adds to the article and what of the article's prose it
// drops. On a page whose article is already whole prose, a wider region
// adds mostly short lines and links (menus, related links, footers); on
// a page whose article is a fragment, it adds the missing text.
func addedFeatures(f *selectFeatures, text string, words int, st stats, al *artLines, artStats stats) {
	extra, short := 0, 0
	// Which lines the candidate holds matters only for the article's
	// prose lines.
	have := al.prose > 0
	if have {
		if al.have == nil {
			al.have = make(map[string]bool)
		}
		clear(al.have)
	}
	lines := al.all()
	for l := range strings.SplitSeq(text, "\n") {
		l = collapseLine(l)
		if have {
			al.have[l] = true
		}
		if lines[l] {
			continue
		}
		w := countWords(l)
		extra += w
		if w < shortLineWords {
			short += w
		}
	}
	if words > 0 {
		f[sExtraShare] = float64(extra) / float64(words)
	}
	if extra > 0 {
		f[sExtraShort] = float64(short) / float64(extra)
	}
	if d := st.length - artStats.length; d > 0 {
		f[sExtraLinks] = math.Max(0, math.Min(1, (st.linkLen-artStats.linkLen)/float64(d)))
	}
	f[sArticleProse] = math.Log1p(float64(al.prose))
	if al.prose > 0 {
		al.proseOf()
		dropped := 0
		for i, l := range al.proseLines {
			if !al.have[l] {
				dropped += al.proseWords[i]
			}
		}
		f[sDroppedProse] = float64(dropped) / float64(al.prose)
	}
}

// selectContent returns the candidate the model prefers to cur, the
// pipeline's choice so far (art, the readability article, or a
// profile's copy), or nil to keep cur. Pages the classifier takes for
// an article with probability SelectArticleProb or more keep cur
// without further work.
func selectContent(root, art, cur *html.Node, sig signals, readableOK bool, probs [len(PageTypes)]float64, runs *itemRuns, vb *viewBound) *html.Node {
	n, _, _, _ := selectContentText(root, art, cur, sig, readableOK, probs, runs, vb, nil)
	return n
}

// selectContentText is selectContent, with art's text as the selector
// measured it (textOf(art) at the time) and its countWords (words; ok
// false when it did not measure it).
func selectContentText(root, art, cur *html.Node, sig signals, readableOK bool, probs [len(PageTypes)]float64, runs *itemRuns, vb *viewBound, tallies *tallies) (n *html.Node, artText string, words int, ok bool) {
	if cur == nil {
		cur = art
	}
	if !selectable(art, cur, probs) {
		return nil, "", 0, false
	}
	cs := candidates(root, art, cur, sig, readableOK, probs, true, runs, vb, tallies)
	if art != nil && len(cs) > 0 && cs[0].kind == kArticle && cs[0].src == art {
		artText, words, ok = cs[0].text, cs[0].words, true
	}
	i := pick(cs, cur)
	if i < 0 {
		putCandidates(cs)
		return nil, artText, words, ok
	}
	n = cs[i].tree()
	putCandidates(cs)
	if n != art {
		prune(n)
	}
	return n, artText, words, ok
}

// selectable tells whether the selector judges a page: one the
// classifier does not take for an article with probability
// SelectArticleProb or more nor for a forum with profileProb or more,
// whose current choice is the article, not a profile's copy (the forum
// profile's thread: the selector overruling it lost half B's forum
// pages 0.02 of F1; the item profile's region).
func selectable(art, cur *html.Node, probs [len(PageTypes)]float64) bool {
	return selectOn && !offSelect && judged(art, cur, probs)
}

// judged tells whether the selector, when on, judges a page (see
// selectable).
func judged(art, cur *html.Node, probs [len(PageTypes)]float64) bool {
	if cur == nil || probs[typeIndex(TypeArticle)] >= SelectArticleProb {
		return false
	}
	// A thread without post markup keeps the article too: what the
	// selector took there lost half B's forum pages 0.007 of F1.
	if t := argmax(probs[:]); t == typeIndex(TypeForum) && probs[t] >= profileProb {
		return false
	}
	// A profile's copy stays: the forum profile's thread (the posts a
	// page marks up are the thread on every site that marks them) and
	// the item profile's region, which has guards of its own; on half A
	// overruling the item region gained 0.65 of F1 over 33 switches,
	// with single losses up to 0.54, against 9.0 over 25 switches away
	// from the article.
	if cur != art {
		return false
	}
	return !proseArticle(art)
}

// proseArticle tells whether art reads as an article of prose, which
// the selector leaves alone: selectProseWords words or more, link
// density under 0.05.
func proseArticle(art *html.Node) bool {
	if selectProseWords == 0 {
		return false
	}
	st := textStats(art, nil)
	return st.linkLen < 0.05*float64(st.length) && countWords(textOf(art)) >= selectProseWords
}

// pick returns the index of the candidate of cs the model prefers to
// cur, or -1 to keep cur.
func pick(cs []candidate, cur *html.Node) int {
	best, curScore, bestScore := -1, math.Inf(-1), math.Inf(-1)
	for i := range cs {
		if cs[i].skip {
			continue
		}
		s := selectScore(&cs[i])
		if cur != nil && cs[i].node == cur {
			curScore = s
		}
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 || cs[best].node == cur || bestScore < curScore+selectMargin {
		return -1
	}
	return best
}

// comparedFeatures are the features that compare a candidate with the
// article (or the current choice), which candidates measures only for a
// candidate that may win; each lies in [0, 1].
var comparedFeatures = [...]int{sArticleCovered, sWithinArticle, sCurrentCovered, sWithinCurrent,
	sExtraShare, sExtraShort, sExtraLinks, sDroppedProse}

// mayWin tells whether c, its other features set and those of
// comparedFeatures still 0, could score curScore plus selectMargin or
// more: its score with each compared feature at whichever end of [0, 1]
// raises it. The share of added words (added words over text's words)
// exceeds 1 only when text holds a vertical tab, which countWords reads
// as part of a word and collapse as a space; then it may always win.
func mayWin(c *candidate, curScore float64, text string) bool {
	w := &selectWeights[c.kind]
	if w[sExtraShare] > 0 && strings.IndexByte(text, '\v') >= 0 {
		return true
	}
	z := 0.0
	for i, x := range c.f {
		z += w[i] * x
	}
	for _, i := range comparedFeatures {
		z += max(0, w[i])
	}
	// The slack covers rounding: the sum above in another order.
	return 1/(1+math.Exp(-(z+1e-9))) >= curScore+selectMargin-1e-12
}

// selectScore is the predicted word F1 of c.
func selectScore(c *candidate) float64 {
	w := &selectWeights[c.kind]
	z := 0.0
	for i, x := range c.f {
		z += w[i] * x
	}
	return 1 / (1 + math.Exp(-z))
}

// walkElements calls fn for every element under n.
func walkElements(n *html.Node, fn func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			fn(c)
			walkElements(c, fn)
		}
	}
}

// itemRegion returns a copy of the region of the body's runs of items
// with the heading above it (as itemsContent, without its guards), or
// nil when the page has no run of items.
func itemRegion(body *html.Node) *html.Node {
	grid := itemRegionRoot(body)
	if grid == nil {
		return nil
	}
	k := cloneTree(grid)
	prune(k)
	return k
}

// itemRegionRoot returns the element of the body that itemRegion copies,
// or nil.
func itemRegionRoot(body *html.Node) *html.Node {
	return itemRegionRootOf(body, nil)
}

// itemRegionRootOf is itemRegionRoot with the body's item run from runs.
func itemRegionRootOf(body *html.Node, runs *itemRuns) *html.Node {
	grid, _ := runs.of(body)
	if grid == nil {
		return nil
	}
	return climbRun(body, grid, nodeRun(grid, nil, wordRun{}))
}

// climbRun is climbItems from grid, whose run is run (nodeRun(grid)):
// countWords(nodeText(p)) of each ancestor p comes from the run of the
// one below it and the runs of its other children, without writing the
// texts out, unless a text ends inside a character.
func climbRun(body, grid *html.Node, run wordRun) *html.Node {
	start := grid
	if run.broken {
		return climbItems(body, start)
	}
	own := run.words()
	for p := grid.Parent; p != nil && p != body; p = p.Parent {
		run = nodeRun(p, grid, run)
		if run.broken {
			return climbItems(body, start)
		}
		if float64(run.words()) > 1.25*float64(own) {
			break
		}
		grid = p
	}
	return grid
}

// climbItems is itemRegionRoot's climb from grid, with the texts
// written out.
func climbItems(body, grid *html.Node) *html.Node {
	own := countWords(nodeText(grid))
	for p := grid.Parent; p != nil && p != body; p = p.Parent {
		if float64(countWords(nodeText(p))) > 1.25*float64(own) {
			break
		}
		grid = p
	}
	return grid
}

// bodyWithoutLandmarks returns a copy of body without its landmarks
// (Landmark), the elements whose class or id names page boilerplate
// (BoilerplateName) and forms.
func bodyWithoutLandmarks(body *html.Node) *html.Node {
	k := cloneTree(body)
	prune(k)
	stripBoilerplate(k)
	k.Data, k.DataAtom = "div", atom.Div
	return k
}

// h1Region returns a copy of the smallest ancestor of the body's first
// <h1> that holds half or more of the body's words outside links,
// without its landmarks, or nil when the body has no <h1>.
func h1Region(body *html.Node) *html.Node {
	region := h1RegionRoot(body, nil)
	if region == nil {
		return nil
	}
	return h1Copy(region)
}

// h1RegionRoot returns the element of the body that h1Region copies
// (the body itself when no smaller ancestor of the <h1> holds half of
// its words), or nil when the body has no <h1>. words, when not nil,
// are scan's counts of the page's texts (countWords), read in order
// with a cursor of this walk's own; the elements on the way to the <h1>
// are told by their depth, without a map.
func h1RegionRoot(body *html.Node, words *textCounts) *html.Node {
	var h1 *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil && h1 == nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				if c.DataAtom == atom.H1 {
					h1 = c
					return
				}
				find(c)
			}
		}
	}
	find(body)
	if h1 == nil {
		return nil
	}
	var path []*html.Node // from the body's child down to the <h1>
	for p := h1; p != nil && p != body; p = p.Parent {
		path = append(path, p)
	}
	slices.Reverse(path)
	plain := make([]int, len(path)) // the words outside links under each
	var texts textCounts
	if words != nil {
		texts.list = words.list
	}
	// count returns the words outside links under n, the path's element
	// at depth when on (the body: depth -1).
	var count func(n *html.Node, inLink bool, depth int, on bool) int
	count = func(n *html.Node, inLink bool, depth int, on bool) int {
		k := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if !inLink {
					k += texts.find(c.Data)
				}
			case html.ElementNode:
				if c.DataAtom != atom.Script && c.DataAtom != atom.Style {
					cOn := on && depth+1 < len(path) && path[depth+1] == c
					k += count(c, inLink || c.DataAtom == atom.A, depth+1, cOn)
				}
			}
		}
		if on && depth >= 0 {
			plain[depth] = k
		}
		return k
	}
	total := count(body, false, -1, true)
	region := body
	for i := len(path) - 1; i >= 0; i-- {
		if 2*plain[i] >= total {
			region = path[i]
			break
		}
	}
	return region
}

// h1Copy returns h1Region's copy of region: without what prune removes
// and without its landmarks.
func h1Copy(region *html.Node) *html.Node {
	k := cloneTree(region)
	prune(k)
	// Landmarks only: class and id names of boilerplate inside the
	// region are often the article's own (a "post-share" wrapper, a
	// "comments" section the reference keeps); removing them as the
	// body candidate does took the region's mean F1 on half A from
	// 0.825 to 0.764.
	var strip func(n *html.Node, inArticle bool)
	strip = func(n *html.Node, inArticle bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				if Landmark(c, inArticle) {
					n.RemoveChild(c)
				} else {
					strip(c, inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main)
				}
			}
			c = next
		}
	}
	strip(k, false)
	if k.DataAtom == atom.Body {
		k.Data, k.DataAtom = "div", atom.Div
	}
	return k
}

// stripBoilerplate removes from n its landmarks (Landmark), forms and
// the elements whose class or id names page boilerplate
// (BoilerplateName).
func stripBoilerplate(n *html.Node) {
	var strip func(n *html.Node, inArticle bool)
	strip = func(n *html.Node, inArticle bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				if Landmark(c, inArticle) || c.DataAtom == atom.Form ||
					BoilerplateName(attr(c, "class"), inArticle) || BoilerplateName(attr(c, "id"), inArticle) {
					n.RemoveChild(c)
				} else {
					strip(c, inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main)
				}
			}
			c = next
		}
	}
	strip(n, false)
}

// ldProduct is what a JSON-LD Product says of itself.
type ldProduct struct {
	name, description, price, currency, availability string
}

// productContent returns a copy of art (whose text is artText) with the name, price,
// availability and description of the page's JSON-LD Product that art
// lacks put first, or nil when the page declares no Product or art holds
// all of it.
func productContent(root, art *html.Node, artText string) *html.Node {
	p, ok := jsonLDProduct(root)
	if !ok {
		return nil
	}
	at := collapse(artText)
	var lines []*html.Node
	if p.name != "" && !strings.Contains(at, collapse(p.name)) {
		h := &html.Node{Type: html.ElementNode, Data: "h1", DataAtom: atom.H1}
		h.AppendChild(&html.Node{Type: html.TextNode, Data: collapse(p.name)})
		lines = append(lines, h)
	}
	if p.price != "" && !strings.Contains(at, p.price) {
		lines = append(lines, line(strings.TrimSpace(p.price+" "+p.currency)))
	}
	if p.availability != "" {
		lines = append(lines, line(p.availability))
	}
	if d := collapse(html.UnescapeString(p.description)); d != "" && shared(d, at) < 0.5 {
		if n := describedBy(root, d); n != nil {
			lines = append(lines, cloneTree(n))
		} else {
			lines = append(lines, line(d))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	k := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, l := range lines {
		k.AppendChild(l)
	}
	k.AppendChild(cloneTree(art))
	return k
}

// describedBy returns the element of the page that holds the product
// description d (collapsed) as its own text, or nil. A JSON-LD
// description is often the page's description with its markup stripped:
// its lines and list items run together ("Slim fit- Lightweight"), where
// the page's element (an accordion or a sheet the main content left out)
// sets them apart. It is the smallest element, found from one of the
// first eight text nodes of 20 characters or more that d holds, whose
// text is most of d (shared words at least 0.7 both ways: the words d
// runs together count as others).
func describedBy(root *html.Node, d string) *html.Node {
	body := findBody(root)
	if body == nil {
		return nil
	}
	var found *html.Node
	tries := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && found == nil && tries < 8; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				t := collapse(c.Data)
				if len(t) < 20 || !strings.Contains(d, t) {
					continue
				}
				tries++
				for a, up := c.Parent, 0; a != nil && a != body && up < 8; a, up = a.Parent, up+1 {
					at := collapse(textOf(a))
					if len(at) < len(d)*4/5 {
						continue
					}
					if len(at) <= len(d)*3/2 && shared(d, at) >= 0.7 && shared(at, d) >= 0.7 {
						found = a
					}
					break
				}
			case html.ElementNode:
				switch c.DataAtom {
				case atom.Script, atom.Style, atom.Template, atom.Noscript:
					continue
				}
				walk(c)
			}
		}
	}
	walk(body)
	return found
}

// jsonLDProduct returns the first Product of the page's JSON-LD blocks.
func jsonLDProduct(root *html.Node) (ldProduct, bool) {
	var p ldProduct
	found := false
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		if found || depth > 8 {
			return
		}
		switch t := v.(type) {
		case []any:
			for _, e := range t {
				visit(e, depth+1)
			}
		case map[string]any:
			if ldTypeIs(t["@type"], "product") {
				found = true
				p.name = ldString(t["name"])
				p.description = ldString(t["description"])
				offer := t["offers"]
				if a, ok := offer.([]any); ok && len(a) > 0 {
					offer = a[0]
				}
				if o, ok := offer.(map[string]any); ok {
					p.price = ldScalar(o["price"])
					if p.price == "" {
						p.price = ldScalar(o["lowPrice"])
					}
					p.currency = ldString(o["priceCurrency"])
					av := ldString(o["availability"])
					if i := strings.LastIndexByte(av, '/'); i >= 0 {
						av = av[i+1:]
					}
					p.availability = av
				}
				return
			}
			for _, k := range []string{"@graph", "mainEntity", "itemListElement"} {
				if g, ok := t[k]; ok {
					visit(g, depth+1)
				}
			}
		}
	}
	walkElements(root, func(n *html.Node) {
		if found || n.DataAtom != atom.Script || !strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") {
			return
		}
		var v any
		if json.Unmarshal([]byte(nodeText(n)), &v) == nil {
			visit(v, 0)
		}
	})
	return p, found
}

// ldTypeIs tells whether a JSON-LD @type value is, or lists, want
// (lower case).
func ldTypeIs(v any, want string) bool {
	switch t := v.(type) {
	case string:
		return strings.EqualFold(t, want)
	case []any:
		for _, e := range t {
			if ldTypeIs(e, want) {
				return true
			}
		}
	}
	return false
}

// ldScalar returns a JSON-LD string or number as text.
func ldScalar(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return ""
}

// Candidate is one candidate main content of a page, for the trainer
// (bench/pagetype -train select).
type Candidate struct {
	Kind     string    // one of CandidateKinds
	Text     string    // its text, as Document.Text would be
	Features []float64 // the selector's input, in the order of SelectFeatureNames
	Score    float64   // the selector's predicted gain (selectScore)
	Current  bool      // the pipeline's choice before the selector
	Chosen   bool      // the pipeline's final choice
	// Selectable tells whether the selector judges the page at all
	// (the article probability under SelectArticleProb, and not the
	// forum profile's thread).
	Selectable bool
}

// Candidates returns every candidate main content of an HTML page, for
// any page type (HTML computes them only for pages it does not take for
// an article; see SelectArticleProb), with the page-type probabilities.
func Candidates(body []byte, pageURL string) ([]Candidate, []float64, error) {
	root, s, _, probs, err := parseClassified(body, pageURL)
	if err != nil {
		return nil, nil, err
	}
	facts := extractFacts{listing: argmax(probs[:]) == typeIndex(TypeListing)}
	art, _ := mainContent(root, s.base, s.sig, s.title, &facts)
	cur := art
	var runs itemRuns
	if k := typedContent(root, art, PageTypes[argmax(probs[:])], probs, &runs); k != nil {
		cur = k
	}
	cs := candidates(root, art, cur, s.sig, facts.readableOK, probs, false, &runs, nil, facts.tallies)
	facts.tallies.done()
	final := cur
	if judged(art, cur, probs) {
		if i := pick(cs, cur); i >= 0 {
			final = cs[i].tree()
		}
	}
	out := make([]Candidate, len(cs))
	for i := range cs {
		cs[i].tree()
	}
	for i, c := range cs {
		out[i] = Candidate{Selectable: judged(art, cur, probs), Kind: CandidateKinds[c.kind], Features: append([]float64(nil), c.f[:]...), Score: selectScore(&cs[i]),
			Current: c.node == cur, Chosen: c.node == final}
	}
	// Rendering modifies a tree; a product candidate holds a copy of
	// the article, so the copies go first.
	for i := len(cs) - 1; i >= 0; i-- {
		n := cs[i].node
		if n != art {
			prune(n)
		}
		normalizeTables(n)
		absolutize(n, s.base, nil)
		out[i].Text = composed(textOf(n))
	}
	return out, probs[:], nil
}
