package content

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A readability-style main-content extractor that works on the tree the
// pipeline already parsed and scanned (scripts, styles and hidden nodes
// are gone). Scoring does not modify the tree: elements a pass would
// drop are only marked, and the chosen article is copied out of the
// tree before it is cleaned, so a weak result can still be handed to
// trafilatura on the untouched page.
//
// The scoring follows the published readability heuristics: paragraphs
// (and divs holding only inline content) of 25 characters or more score
// one point, one per comma-separated part and one per 100 characters
// (at most three); the score goes to their ancestors, divided by the
// distance; ancestors start with a bonus or penalty from their tag and
// their class and id; the best candidate, scaled by its link density,
// wins, and its siblings join when they score close to it or read like
// prose. The article is then cleaned of forms, lists of links, share
// boxes and other boilerplate.

// Flags of one extraction attempt; each retry drops one of them.
const (
	flagStripUnlikely = 1 << iota
	flagWeightClasses
	flagCleanConditionally
)

// minArticleChars is the text length under which an attempt is retried
// with looser rules.
const minArticleChars = 500

type readable struct {
	body   *html.Node
	title  string
	flags  int
	scores map[*html.Node]float64
	// density is the link density of each candidate.
	density map[*html.Node]float64
	cands   []*html.Node
	// dropped marks nodes that the pass treats as removed (unlikely
	// candidates, bylines, the heading repeating the title, empty blocks).
	dropped map[*html.Node]bool
	// collapsed marks divs that hold a single <p> and nothing else: the
	// <p> takes their place.
	collapsed map[*html.Node]bool
	// asP marks divs without block descendants: they count as paragraphs.
	asP    map[*html.Node]bool
	byline bool
	titled bool
	// bodyLen is the body's text length once measured, else -1, and
	// bodyOver a length the body's text is known to exceed (see
	// bodyWithin).
	bodyLen, bodyOver int
	// spareRuns tells the conditional cleaning to keep the divs of a run
	// of items (a page taken for a listing, extractFacts.listing).
	spareRuns bool
	// host is the page's host without "www.", to tell links within the
	// site from links to other sites.
	host string
	// art is the article being cleaned (see prepare).
	art *html.Node
	// margin is the runner-up candidate's score over the best one's and
	// close the number of runners-up within 0.75 of it (confidence reads
	// them).
	margin float64
	close  int
	// unlikely tells whether the attempt dropped an element as an
	// unlikely candidate (flagStripUnlikely), cleaned whether its
	// cleaning removed an element (flagCleanConditionally): without,
	// the attempt without that flag gives the same article.
	unlikely, cleaned bool
	// bodyText is textStats(body, dropped) (length and link length),
	// summed by visit: the body's link density without a walk of its own.
	bodyText stats
	// nodes are zeroed nodes for copyTree, allocated nodeChunk at a time.
	nodes []html.Node
	// names keeps the matchFacts of the class values (of elements
	// without an id) that drop has read, for every attempt (see
	// matchFactsOf).
	names map[string]matchFacts
}

// matchFacts are what drop reads of an element's class and id values:
// their matchString and the hint lists it holds. They depend on the
// values only, and a page's values repeat on hundreds of elements in
// every attempt.
type matchFacts struct {
	match string
	hints uint8
}

// Hints of matchFacts.
const (
	hintByline   = 1 << iota // bylineHints
	hintUnlikely             // unlikelyHints and not maybeHints
	hintPopup                // popupHints
	hintHide                 // hideHints and hidingClass
)

// Bounds of readable.names: values longer than namesMaxLen bytes, and
// values past namesMax, are read each time.
const (
	namesMax    = 512
	namesMaxLen = 256
)

// matchFactsOf returns the matchFacts of an element with these class and
// id values. Those of a class without an id are read once a page; ids,
// seldom repeated, are read each time.
func (r *readable) matchFactsOf(class, id string) matchFacts {
	if class == "" && id == "" {
		return matchFacts{}
	}
	if id != "" || len(class) > namesMaxLen {
		return readMatchFacts(class, id)
	}
	if f, ok := r.names[class]; ok {
		return f
	}
	f := readMatchFacts(class, "")
	if r.names == nil {
		r.names = make(map[string]matchFacts)
	}
	if len(r.names) < namesMax {
		r.names[class] = f
	}
	return f
}

// readMatchFacts reads the matchFacts of these class and id values.
func readMatchFacts(class, id string) matchFacts {
	f := matchFacts{match: matchOf(class, id)}
	m := f.match
	if m == "" {
		return f
	}
	if bylineHints.in(m) {
		f.hints |= hintByline
	}
	if unlikelyHints.in(m) && !maybeHints.in(m) {
		f.hints |= hintUnlikely
	}
	if popupHints.in(m) {
		f.hints |= hintPopup
	}
	if hideHints.in(m) && hidingClass(m) {
		f.hints |= hintHide
	}
	return f
}

// nodeChunk is how many nodes copyTree allocates at once: one
// allocation instead of one a node (an article is a few hundred).
const nodeChunk = 64

// newNode returns a zeroed node for a copy.
func (r *readable) newNode() *html.Node {
	if len(r.nodes) == 0 {
		r.nodes = make([]html.Node, nodeChunk)
	}
	k := &r.nodes[0]
	r.nodes = r.nodes[1:]
	return k
}

// pageWrapper tells whether n, named like a header, footer or popup,
// holds more than half of the page's text: then it wraps the page
// ("above-footer", "header-and-content"), and dropping it drops the
// article. match is n's class and id, lower-cased, or "" for any name.
func (r *readable) pageWrapper(n *html.Node, match string) bool {
	if match != "" && !pageRegion(match) {
		return false
	}
	l := textStats(n, nil).length
	return l > 0 && r.bodyWithin(2*l)
}

// bodyWithin tells whether the body's text is at most limit characters
// long. The body is read only as far as limit (most blocks asking are
// short and the answer comes early), and what a reading found is kept:
// the extraction does not change the tree, and every attempt asks again.
func (r *readable) bodyWithin(limit int) bool {
	if r.bodyLen >= 0 {
		return r.bodyLen <= limit
	}
	if limit <= r.bodyOver {
		return false
	}
	l := textWithin(r.body, limit)
	if l < 0 {
		r.bodyOver = limit
		return false
	}
	r.bodyLen = l
	return true
}

// pageRegion tells whether a class and id string names a region of the
// page layout, which may wrap the content, rather than what a block is.
func pageRegion(match string) bool {
	return strings.Contains(match, "footer") || strings.Contains(match, "header")
}

// skipRepeats turns on readableContent's skipping of attempts that give
// the article of the one before; tests turn it off to compare.
var skipRepeats = true

// readableContent returns the article of the page under root as a new
// detached <div>, or nil when no attempt yields text; ok tells whether
// an attempt reached minArticleChars (otherwise the longest is returned).
func readableContent(root *html.Node, base *url.URL, title string, facts *extractFacts) (article *html.Node, ok bool) {
	body := findBody(root)
	if body == nil {
		return nil, false
	}
	r := &readable{body: body, title: title, bodyLen: -1, bodyOver: -1, spareRuns: facts != nil && facts.listing}
	if base != nil {
		r.host = siteHost(base.Host)
	}
	var best *html.Node
	bestLen := 0
	prev := -1 // the flags of the attempt before
	for _, flags := range []int{
		flagStripUnlikely | flagWeightClasses | flagCleanConditionally,
		flagWeightClasses | flagCleanConditionally,
		flagCleanConditionally,
		0,
	} {
		// An attempt that drops a flag the one before never acted on
		// gives its article again: no longer, it changes nothing.
		if skipRepeats && (prev == flags|flagStripUnlikely && !r.unlikely || prev == flags|flagCleanConditionally && !r.cleaned) {
			continue
		}
		prev = flags
		art := r.attempt(flags)
		if art == nil {
			continue
		}
		// The length itself is read only under minArticleChars.
		n := lengthWithin(art, minArticleChars-1)
		if n >= minArticleChars || n > bestLen {
			facts.note(r)
		}
		if n >= minArticleChars {
			return art, true
		}
		if n > bestLen {
			best, bestLen = art, n
		}
	}
	return best, false
}

func (r *readable) attempt(flags int) *html.Node {
	r.flags = flags
	// A later attempt reuses the maps of the one before (nothing keeps
	// them once an attempt returns its copy).
	if r.scores == nil {
		r.scores = make(map[*html.Node]float64, 256)
		r.density = make(map[*html.Node]float64, 256)
		r.dropped = make(map[*html.Node]bool)
		r.collapsed = make(map[*html.Node]bool)
		r.asP = make(map[*html.Node]bool)
	} else {
		clear(r.scores)
		clear(r.density)
		clear(r.dropped)
		clear(r.collapsed)
		clear(r.asP)
	}
	r.cands = r.cands[:0]
	r.byline, r.titled = false, false
	r.unlikely, r.cleaned = false, false
	r.bodyText = stats{}

	r.visit(r.body, 0)

	// Scale each candidate by the share of its text that is not links.
	// The body's share is not the one visit records per element: it is
	// textStats's, which visit sums too (bodyText), and it is applied only
	// when the body may rank among the five best. Scaling moves a score
	// towards 0, so a body whose score, or 0, is below five other
	// candidates' cannot, and its score is then read nowhere.
	var body *html.Node
	for _, c := range r.cands {
		d, ok := r.density[c]
		if !ok {
			if body == nil {
				body = c
				continue
			}
			d = r.linkDensity(c)
		}
		r.scores[c] *= 1 - d
	}
	if body != nil && !r.outranked(body, 5) {
		d := 0.0
		if body != r.body {
			d = r.linkDensity(body)
		} else if r.bodyText.length > 0 {
			d = r.bodyText.linkLen / float64(r.bodyText.length)
		}
		r.scores[body] *= 1 - d
	}
	var top []*html.Node // the five best, best first
	for _, c := range r.cands {
		s := r.scores[c]
		i := len(top)
		for i > 0 && r.scores[top[i-1]] < s {
			i--
		}
		if i < 5 {
			top = append(top, nil)
			copy(top[i+1:], top[i:])
			top[i] = c
			if len(top) > 5 {
				top = top[:5]
			}
		}
	}

	r.margin, r.close = 0, 0
	if len(top) > 1 && r.scores[top[0]] > 0 {
		r.margin = max(0, r.scores[top[1]]/r.scores[top[0]])
	}
	article := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	if len(top) == 0 || top[0] == r.body {
		for c := r.body.FirstChild; c != nil; c = c.NextSibling {
			if k := r.copyTree(c); k != nil {
				article.AppendChild(k)
			}
		}
		r.prepare(article)
		return article
	}

	best := top[0]
	bestScore := r.scores[best]
	// When several close runners-up share an ancestor, the article is
	// probably that ancestor (pages split into several blocks).
	var alts [][]*html.Node
	for _, c := range top[1:] {
		if r.scores[c]/bestScore >= 0.75 {
			alts = append(alts, ancestors(c))
		}
	}
	r.close = len(alts)
	if len(alts) >= 3 {
		for p := best.Parent; p != nil && p != r.body; p = p.Parent {
			n := 0
			for _, a := range alts {
				for _, x := range a {
					if x == p {
						n++
						break
					}
				}
			}
			if n >= 3 {
				best = p
				break
			}
		}
	}
	if _, ok := r.scores[best]; !ok {
		r.scores[best] = r.initScore(best)
	}
	// Climb while the parent scores better: the article is often split
	// over several children.
	last := r.scores[best]
	threshold := last / 3
	for p := best.Parent; p != nil && p != r.body; p = p.Parent {
		s, ok := r.scores[p]
		if !ok {
			continue
		}
		if s < threshold {
			break
		}
		if s > last {
			best = p
			break
		}
		last = s
	}
	// An only child stands for its parent.
	for p := best.Parent; p != nil && p != r.body && elementChildren(p) == 1; p = best.Parent {
		best = p
	}
	if _, ok := r.scores[best]; !ok {
		r.scores[best] = r.initScore(best)
	}
	bestScore = r.scores[best]

	// Siblings that score close to the best, or read like prose, join it.
	limit := max(10, bestScore*0.2)
	bestClass := attr(best, "class")
	parent := best.Parent
	var run []*html.Node // phrasing nodes between blocks: an implicit <p>
	// joined are the nodes copied into the article: findLead must not
	// copy one of them again.
	joined := make(map[*html.Node]bool)
	flushRun := func() {
		if len(run) == 0 {
			return
		}
		st := runStats(run, r.dropped)
		if r.proseLike(st, run) {
			p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
			for _, n := range run {
				if k := r.copyTree(n); k != nil {
					p.AppendChild(k)
					joined[n] = true
				}
			}
			article.AppendChild(p)
		}
		run = run[:0]
	}
	for c := parent.FirstChild; c != nil; c = c.NextSibling {
		if r.dropped[c] {
			continue
		}
		if c != best && isPhrasing(c) {
			if c.Type == html.TextNode || c.Type == html.ElementNode {
				run = append(run, c)
			}
			continue
		}
		flushRun()
		if c.Type != html.ElementNode {
			continue
		}
		keep := c == best
		if !keep {
			bonus := 0.0
			if bestClass != "" && attr(c, "class") == bestClass {
				bonus = bestScore * 0.2
			}
			if s, ok := r.scores[c]; ok && s+bonus >= limit {
				keep = true
			} else if c.DataAtom == atom.P || r.asP[c] || r.collapsed[c] {
				st := textStats(c, r.dropped)
				keep = r.proseLike(st, []*html.Node{c})
			}
			keep = keep || docBlock(c, r.host)
		}
		if keep {
			if k := r.copyTree(c); k != nil {
				article.AppendChild(k)
				joined[c] = true
			}
		}
	}
	flushRun()
	// A lead set apart from the body (in the article's header) is the
	// article's first paragraph.
	if lead := r.findLead(best, joined); lead != nil {
		if k := r.copyTree(lead); k != nil {
			trimLead(k)
			article.InsertBefore(k, article.FirstChild)
		}
	}
	r.prepare(article)
	return article
}

// outranked tells whether k other candidates score above c's score and
// above 0.
func (r *readable) outranked(c *html.Node, k int) bool {
	bound := max(r.scores[c], 0)
	for _, o := range r.cands {
		if o != c && r.scores[o] > bound {
			if k--; k == 0 {
				return true
			}
		}
	}
	return false
}

// proseLike tells whether a paragraph outside the best candidate reads
// like part of the article: long with few links, or a short sentence
// without links.
func (r *readable) proseLike(st stats, nodes []*html.Node) bool {
	if st.length == 0 {
		return false
	}
	density := st.linkLen / float64(st.length)
	if st.length > 80 {
		return density < 0.25
	}
	if density > 0 {
		return false
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(nodeText(n))
	}
	t := strings.TrimSpace(b.String())
	return strings.HasSuffix(t, ".") || strings.Contains(t, ". ")
}

// visit walks the subtree of n in document order: it marks what the
// pass drops on the way down and, on the way up, measures each element
// once and scores paragraphs. It returns the text facts of n's subtree
// and whether it holds a block that keeps a div from being a paragraph.
// link is the weight of text as link text (inside <a>).
func (r *readable) visit(n *html.Node, link float64) (st stats, block bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			before := st.length
			countText(c.Data, link, &st)
			if k := st.length - before; k > 0 {
				// The body's textStats counts a text's separation from
				// the text before with the text's link weight; st, made
				// per element, counts the separation between elements
				// without it (see bodyText).
				if before > 0 {
					k--
				}
				if r.bodyText.length > 0 {
					k++
				}
				r.bodyText.length += k
				r.bodyText.linkLen += link * float64(k)
			}
			continue
		case html.ElementNode:
		default:
			continue
		}
		if c.DataAtom == atom.Script {
			continue
		}
		if r.drop(c) {
			// Readability judges a div by its children before it drops
			// any of them: a dropped block still makes its parent a block.
			r.dropped[c] = true
			block = block || blockTag(c.DataAtom) || hasBlockDescendant(c)
			continue
		}
		cst, cblock := r.visit(c, linkWeight(c, link))
		switch c.DataAtom {
		case atom.P, atom.Td, atom.Pre, atom.Section, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if c.DataAtom == atom.P && n.DataAtom == atom.Div && density(cst) < 0.25 && singleP(n) == c {
				// The div holds only this <p>: the <p> takes its place.
				r.collapsed[n] = true
			}
			r.credit(cst, n)
		case atom.Div:
			if r.collapsed[c] {
				break
			}
			if !cblock {
				r.asP[c] = true
				r.credit(cst, n)
			} else {
				r.scoreRuns(c)
			}
		}
		if blockTag(c.DataAtom) {
			cblock = true
		}
		if _, ok := r.scores[c]; ok {
			r.density[c] = density(cst)
		}
		if cst.length > 0 {
			if st.length > 0 {
				st.length++
			}
			st.length += cst.length
			st.linkLen += cst.linkLen
			st.commas += cst.commas
		}
		block = block || cblock
	}
	return st, block
}

func density(st stats) float64 {
	if st.length == 0 {
		return 0
	}
	return st.linkLen / float64(st.length)
}

// drop tells whether the pass removes element n before scoring.
func (r *readable) drop(n *html.Node) bool {
	a := dropAttrsOf(n)
	if a.ariaModal == "true" && a.role == "dialog" {
		return true
	}
	names := r.matchFactsOf(a.class, a.id)
	if !r.byline && isByline(n, a.rel, a.itemprop, names.hints&hintByline != 0) {
		r.byline = true
		return true
	}
	if !r.titled && (n.DataAtom == atom.H1 || n.DataAtom == atom.H2) && r.title != "" &&
		similarity(r.title, collapse(nodeText(n))) > 0.75 {
		r.titled = true
		return true
	}
	if r.flags&flagStripUnlikely != 0 && n.DataAtom != atom.Body && n.DataAtom != atom.A && r.unlikelyNode(n, a, names) {
		r.unlikely = true
		return true
	}
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Header, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return withoutContent(n)
	}
	return false
}

// unlikelyNode tells whether n, of attributes a and class and id
// facts names, is an unlikely candidate (flagStripUnlikely).
func (r *readable) unlikelyNode(n *html.Node, a dropAttrs, names matchFacts) bool {
	if names.hints&hintUnlikely != 0 &&
		!hasAncestor(n, atom.Table, 3) && !hasAncestor(n, atom.Code, 3) && !r.pageWrapper(n, names.match) &&
		!embedsPost(n, 3) {
		return true
	}
	// A landmark by role, or a <nav> whatever its class, unless the
	// page is wrapped in one (see landmark.go).
	if a.role != "" && LandmarkRole(n) || n.DataAtom == atom.Nav && !r.pageWrapper(n, "") {
		return true
	}
	// Modals, cookie banners and hover cards are shown over the
	// page, not in it; their text would make them candidates or
	// inflate the link density of the article around them.
	if names.hints&hintPopup != 0 && classKinds(n)&kindPopup != 0 && !r.pageWrapper(n, "") {
		return true
	}
	// Popups, print-only blocks and screen-reader labels that a
	// stylesheet hides by class rather than by attribute.
	return names.hints&hintHide != 0
}

func (r *readable) credit(st stats, parent *html.Node) {
	if st.length < 25 {
		return
	}
	points := 1 + float64(st.commas+1) + min(float64(st.length/100), 3)
	level := 0
	for a := parent; a != nil && level < 5; a = a.Parent {
		if r.collapsed[a] {
			continue
		}
		if a.Type != html.ElementNode || a.Parent == nil || a.Parent.Type != html.ElementNode {
			return
		}
		s, ok := r.scores[a]
		if !ok {
			s = r.initScore(a)
			r.cands = append(r.cands, a)
		}
		div := 1.0
		switch level {
		case 0:
		case 1:
			div = 2
		default:
			div = float64(level) * 3
		}
		r.scores[a] = s + points/div
		level++
	}
}

// scoreRuns scores the runs of inline content directly under a div that
// also holds blocks: each run is an implicit paragraph of the div.
func (r *readable) scoreRuns(div *html.Node) {
	var run []*html.Node
	for c := div.FirstChild; ; c = c.NextSibling {
		if c != nil && isPhrasing(c) && !r.dropped[c] {
			run = append(run, c)
			continue
		}
		if len(run) > 0 {
			r.credit(runStats(run, r.dropped), div)
			run = run[:0]
		}
		if c == nil {
			return
		}
	}
}

func (r *readable) initScore(n *html.Node) float64 {
	s := 0.0
	switch n.DataAtom {
	case atom.Div:
		s = 5
	case atom.Pre, atom.Td, atom.Blockquote:
		s = 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		s = -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		s = -5
	}
	return s + float64(r.classWeight(n))
}

func (r *readable) classWeight(n *html.Node) int {
	if r.flags&flagWeightClasses == 0 {
		return 0
	}
	return classWeight(n)
}

func classWeight(n *html.Node) int {
	w := 0
	for _, key := range []string{"class", "id"} {
		v := attr(n, key)
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		if negativeHint(v) {
			w -= 25
		}
		if positiveHints.in(v) {
			w += 25
		}
	}
	return w
}

func (r *readable) linkDensity(n *html.Node) float64 {
	st := textStats(n, r.dropped)
	if st.length == 0 {
		return 0
	}
	return st.linkLen / float64(st.length)
}

// copyTree copies n and its subtree without the dropped nodes; a div
// that stands for its single <p> becomes that <p>.
func (r *readable) copyTree(n *html.Node) *html.Node {
	// Only elements are marked (dropped, collapsed, asP): the text
	// nodes, about half, skip the lookups.
	elem := n.Type == html.ElementNode
	if elem && (n.DataAtom == atom.Script || r.dropped[n]) {
		return nil
	}
	if elem && r.collapsed[n] {
		if p := singleP(n); p != nil {
			k := r.copyTree(p)
			// The <p> keeps the div's names: cleaning reads them
			// ("author-bio" around a paragraph).
			if k != nil && (attr(n, "class") != "" || attr(n, "id") != "") {
				// The copy's attributes are the page's (see below):
				// its own before they change.
				k.Attr = slices.Clone(k.Attr)
				if v := attr(n, "class"); v != "" {
					setAttr(k, "class", strings.TrimSpace(attr(k, "class")+" "+v))
				}
				if v := attr(n, "id"); v != "" && attr(k, "id") == "" {
					setAttr(k, "id", v)
				}
			}
			return k
		}
	}
	// The copy shares the page's attributes, capacity cut to their
	// length so that an append makes a new array: nothing changes an
	// attribute in place before the pipeline's final choice (absolutize,
	// normalizeTables), after which the page's tree is not read again;
	// the one change before it, above, copies first
	// (TestPageAttributesUntilChoice).
	k := r.newNode()
	k.Type, k.Data, k.DataAtom, k.Namespace = n.Type, n.Data, n.DataAtom, n.Namespace
	if len(n.Attr) > 0 {
		k.Attr = n.Attr[:len(n.Attr):len(n.Attr)]
	}
	asP := elem && r.asP[n]
	if asP {
		k.Data, k.DataAtom = "p", atom.P
	}
	// A div that mixes blocks and inline content: each run of inline
	// content becomes a paragraph.
	wrap := elem && n.DataAtom == atom.Div && !asP
	var p *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		x := r.copyTree(c)
		if x == nil {
			continue
		}
		if wrap && isPhrasing(c) {
			if p == nil {
				if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
					k.AppendChild(x)
					continue
				}
				p = r.newNode()
				p.Type, p.Data, p.DataAtom = html.ElementNode, "p", atom.P
				k.AppendChild(p)
			}
			p.AppendChild(x)
			continue
		}
		p = nil
		k.AppendChild(x)
	}
	return k
}

// Hints in class and id values. They are matched as substrings of the
// lower-cased "class id" string.
var (
	unlikelyHints = newHints("-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community",
		"cover-wrap", "disqus", "extra", "footer", "gdpr", "header", "legends", "menu", "related", "remark",
		"replies", "rss", "shoutbox", "sidebar", "skyscraper", "social", "sponsor", "supplemental",
		"ad-break", "agegate", "pagination", "pager", "popup", "yom-remote")
	maybeHints    = newHints("and", "article", "body", "column", "content", "main", "mathjax", "shadow")
	positiveHints = newHints("article", "body", "content", "entry", "hentry", "h-entry", "main", "page",
		"pagination", "post", "text", "blog", "story")
	negativeHints = newHints("-ad-", "banner", "combx", "comment", "com-", "contact", "footer",
		"gdpr", "masthead", "media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox",
		"sidebar", "skyscraper", "sponsor", "shopping", "tags", "widget")
	bylineHints = newHints("byline", "author", "dateline", "writtenby", "p-author")
	// hideHints prefilter the names that hide (see hideTokens).
	hideHints = newHints("hid", "none", "sr-only", "screen-reader", "invisible", "offscreen", "print")
	// popupHints prefilter the names of popups (see kindPopup).
	popupHints = newHints("modal", "popup", "popover", "overlay", "cookie", "consent", "gdpr", "tooltip",
		"hovercard", "interstitial")
)

// hints is a list of substrings looked for in one pass over a string:
// a strings.Contains per hint, on every element's class and id in every
// extraction attempt, cost about 5 % of the pipeline's time. Most
// positions are passed over by their first two bytes.
type hints struct {
	pairs   pairSet       // the first two bytes of each longer hint
	single  [256]bool     // hints of one byte
	byFirst [256][]string // the longer hints by their first byte
}

func newHints(list ...string) *hints {
	h := &hints{}
	for _, w := range list {
		if len(w) == 1 {
			h.single[w[0]] = true
			continue
		}
		h.pairs.add(w[0], w[1])
		h.byFirst[w[0]] = append(h.byFirst[w[0]], w)
	}
	return h
}

// in tells whether s contains any of the hints.
func (h *hints) in(s string) bool { return hintsIn(h, s) }

// inBytes tells whether b contains any of the hints.
func (h *hints) inBytes(b []byte) bool { return hintsIn(h, b) }

func hintsIn[S string | []byte](h *hints, s S) bool {
	for i := 0; i < len(s); i++ {
		if h.single[s[i]] {
			return true
		}
		if i+1 == len(s) {
			break
		}
		if !h.pairs.has(s[i], s[i+1]) {
			continue
		}
		for _, w := range h.byFirst[s[i]] {
			if len(s)-i >= len(w) && string(s[i:i+len(w)]) == w {
				return true
			}
		}
	}
	return false
}

func negativeHint(v string) bool {
	if negativeHints.in(v) || hiddenHint(v) {
		return true
	}
	for f := range strings.FieldsSeq(v) {
		if f == "hid" {
			return true
		}
	}
	return false
}

// dropAttrs are the attributes drop reads, found in one pass over an
// element's attributes (it runs on every element of every attempt).
type dropAttrs struct {
	class, id, role, ariaModal, rel, itemprop string
}

// dropAttrsOf reads n's attributes as attr would: the first of each key.
func dropAttrsOf(n *html.Node) dropAttrs {
	var a dropAttrs
	var seen uint8
	for _, at := range n.Attr {
		if at.Namespace != "" {
			continue
		}
		var bit uint8
		var dst *string
		switch at.Key {
		case "class":
			bit, dst = 1, &a.class
		case "id":
			bit, dst = 2, &a.id
		case "role":
			bit, dst = 4, &a.role
		case "aria-modal":
			bit, dst = 8, &a.ariaModal
		case "rel":
			bit, dst = 16, &a.rel
		case "itemprop":
			bit, dst = 32, &a.itemprop
		default:
			continue
		}
		if seen&bit == 0 {
			seen |= bit
			*dst = at.Val
		}
	}
	return a
}

func matchString(n *html.Node) string {
	return matchOf(attr(n, "class"), attr(n, "id"))
}

// matchOf is matchString of an element with these class and id values.
func matchOf(class, id string) string {
	if class == "" && id == "" {
		return ""
	}
	if strings.Contains(class, "-") || strings.Contains(class, "_") {
		class = withoutModifiers(class)
	}
	if id == "" {
		// No copy when the class is lower-case already; the space that
		// would end the string matches no hint.
		return strings.ToLower(class)
	}
	return strings.ToLower(class + " " + id)
}

// withoutModifiers drops the class names that state a condition of the
// block ("has-related-posts", "with-sidebar"; see stateModifier): the
// hints read what a block is.
func withoutModifiers(class string) string {
	found := false
	// Each name that starts the string or follows a space (the next
	// space found by IndexByte, not byte by byte: long utility class
	// lists are common).
	for i := 0; i < len(class) && !found; {
		found = stateModifier(class[i:])
		j := strings.IndexByte(class[i:], ' ')
		if j < 0 {
			break
		}
		i += j + 1
	}
	if !found {
		return class
	}
	var b strings.Builder
	for f := range strings.FieldsSeq(class) {
		if !stateModifier(f) {
			b.WriteString(f)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// isByline tells whether n, with these rel and itemprop values and
// named whether its matchString holds a byline hint, is a short byline.
func isByline(n *html.Node, rel, itemprop string, named bool) bool {
	if rel != "author" && !strings.Contains(itemprop, "author") && !named {
		return false
	}
	l := textStats(n, nil).length
	return l > 0 && l < 100
}

// similarity is the share of b's words (by length) that also occur in a.
func similarity(a, b string) float64 {
	ta, tb := wordsOf(a), wordsOf(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	in := make(map[string]bool, len(ta))
	for _, w := range ta {
		in[w] = true
	}
	total, uniq := -1, -1
	for _, w := range tb {
		total += len(w) + 1
		if !in[w] {
			uniq += len(w) + 1
		}
	}
	if uniq < 0 {
		uniq = 0
	}
	return 1 - float64(uniq)/float64(total)
}

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

func hasAncestor(n *html.Node, a atom.Atom, depth int) bool {
	for p, d := n.Parent, 0; p != nil; p, d = p.Parent, d+1 {
		if depth > 0 && d == depth {
			return false
		}
		if p.DataAtom == a {
			return true
		}
	}
	return false
}

func elementChildren(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			k++
		}
	}
	return k
}

// singleP returns the only child of n when it is a <p> and n holds no
// other element and no text.
func singleP(n *html.Node) *html.Node {
	var p *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.ElementNode:
			if p != nil || c.DataAtom != atom.P {
				return nil
			}
			p = c
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return nil
			}
		}
	}
	return p
}

func blockTag(a atom.Atom) bool {
	switch a {
	case atom.Blockquote, atom.Dl, atom.Div, atom.Img, atom.Ol, atom.P, atom.Pre, atom.Table, atom.Ul:
		return true
	}
	return false
}

// hasBlockDescendant tells whether n contains an element that keeps a
// div from counting as a paragraph.
func hasBlockDescendant(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if blockTag(c.DataAtom) || hasBlockDescendant(c) {
			return true
		}
	}
	return false
}

// withoutContent: no text, and no children but <br> and <hr>.
func withoutContent(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return false
			}
		case html.ElementNode:
			if c.DataAtom != atom.Br && c.DataAtom != atom.Hr {
				return false
			}
		}
	}
	return !hasText(n)
}

// isPhrasing tells whether n is inline content.
func isPhrasing(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		return true
	case html.ElementNode:
	default:
		return false
	}
	switch n.DataAtom {
	case atom.Abbr, atom.Audio, atom.B, atom.Bdo, atom.Br, atom.Button, atom.Cite, atom.Code, atom.Data,
		atom.Datalist, atom.Dfn, atom.Em, atom.Embed, atom.I, atom.Img, atom.Input, atom.Kbd, atom.Label,
		atom.Mark, atom.Math, atom.Meter, atom.Noscript, atom.Object, atom.Output, atom.Progress, atom.Q,
		atom.Ruby, atom.Samp, atom.Script, atom.Select, atom.Small, atom.Span, atom.Strong, atom.Sub,
		atom.Sup, atom.Textarea, atom.Time, atom.Var, atom.Wbr,
		// Presentational inline elements of older pages: "um i<u>ronische</u>"
		// is one word, not a paragraph's end.
		atom.U, atom.S, atom.Strike, atom.Font, atom.Big, atom.Tt, atom.Acronym, atom.Nobr, atom.Bdi:
		return true
	case atom.A, atom.Del, atom.Ins:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !isPhrasing(c) {
				return false
			}
		}
		return true
	}
	return false
}

// stats are text facts of a subtree.
type stats struct {
	length  int     // characters, white space collapsed
	linkLen float64 // characters inside links, in-page links count 0.3
	commas  int
}

func textStats(n *html.Node, dropped map[*html.Node]bool) stats {
	var st stats
	addText(n, dropped, 0, &st)
	return st
}

// lengthWithin returns textStats(n, nil).length when it is at most
// limit, else a length over limit, read only as far as it (a long
// article is not read to its end).
func lengthWithin(n *html.Node, limit int) int {
	var st stats
	addTextWithin(n, limit, false, &st)
	return st.length
}

func runStats(nodes []*html.Node, dropped map[*html.Node]bool) stats {
	var st stats
	for _, n := range nodes {
		if n.Type == html.TextNode {
			countText(n.Data, 0, &st)
		} else {
			addText(n, dropped, linkWeight(n, 0), &st)
		}
	}
	return st
}

func linkWeight(n *html.Node, w float64) float64 {
	if n.DataAtom == atom.A && w == 0 {
		href := attr(n, "href")
		if strings.HasPrefix(href, "#") {
			return 0.3
		}
		if docLink(href) {
			// A link to a document is content (a release, a
			// filing), not a way to another page.
			return 0
		}
		return 1
	}
	return w
}

func addText(n *html.Node, dropped map[*html.Node]bool, link float64, st *stats) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			countText(c.Data, link, st)
		case html.ElementNode:
			if c.DataAtom == atom.Script || dropped[c] {
				continue
			}
			addText(c, dropped, linkWeight(c, link), st)
		}
	}
}

// countText adds the collapsed length and the commas of s. Runs of
// ASCII bytes that are not white space are counted in an inner loop:
// this is the pipeline's most called function.
//
// Like countWords it reads eight bytes at a time where they are ASCII
// with no control character but the white space ones ('\t', '\n', '\f',
// '\r'): there a byte of 0x21 or more is a character, any other is white
// space, and the characters, the separators before the words that start
// after white space and the commas of the eight are counted at once.
// Other bytes go one at a time, as before.
func countText(s string, link float64, st *stats) {
	n, space, started := 0, false, false
	for i := 0; i < len(s); {
		for ; len(s)-i >= 8; i += 8 {
			x := load8(s[i : i+8])
			if x&highBits != 0 {
				break
			}
			// Bytes under 0x80 add without carrying into the next: the
			// high bit of x+0x60 says 0x20 or more, of x+0x5f 0x21 or
			// more, of x+0x77 0x09 or more, of x+0x72 0x0e or more and
			// of (x^c)+0x7f that the byte is not c.
			if ctl := ^(x + 0x6060606060606060) & highBits; ctl != 0 &&
				ctl != (x+0x7777777777777777)&^(x+0x7272727272727272)&((x^0x0b0b0b0b0b0b0b0b)+low7s)&highBits {
				break // a control character that is not white space ('\v' among them)
			}
			word := (x + 0x5f5f5f5f5f5f5f5f) & highBits
			if word == 0 {
				space = true
				continue
			}
			// A word starts at a character after white space; prev is each
			// byte's predecessor in the eight.
			prev := word << 8
			if !space {
				prev |= 0x80
			}
			starts := word &^ prev
			if !started {
				// No separator before the first character of s.
				starts &^= word & -word
				started = true
			}
			// At most two a byte: the product sums the bytes in the top one.
			n += int((word>>7 + starts>>7) * 0x0101010101010101 >> 56)
			if c := ^((x ^ 0x2c2c2c2c2c2c2c2c) + low7s) & highBits; c != 0 {
				st.commas += int(c >> 7 * 0x0101010101010101 >> 56)
			}
			space = word>>63 == 0
		}
		// One byte or character at a time up to the end of the eight
		// bytes the fast path left (at least one, so that the loop moves).
		for end := min(i+8, len(s)); i < end; {
			switch byteKinds[s[i]] {
			case byteSpace:
				space = true
				i++
				continue
			case byteOther:
				r, size := utf8.DecodeRuneInString(s[i:])
				i += size
				if unicode.IsSpace(r) {
					space = true
					continue
				}
				switch r {
				case '\u060C', '\uFE50', '\uFE10', '\uFE11', '\u2E41', '\u2E34', '\u2E32', '\uFF0C':
					st.commas++
				}
			default:
				if s[i] == ',' {
					st.commas++
				}
				i++
			}
			n++
			if space && started {
				n++
			}
			space, started = false, true
		}
	}
	if started && st.length > 0 {
		n++ // the separation from the text before
	}
	st.length += n
	st.linkLen += link * float64(n)
}

// low7s has the low seven bits of each of eight bytes.
const low7s = 0x7f7f7f7f7f7f7f7f

// Kinds of bytes for countText: ASCII white space, ASCII that is not,
// and the bytes of other characters.
const (
	byteSpace = iota
	byteOther
	byteWord
)

var byteKinds = func() (k [256]uint8) {
	for c := range k {
		switch {
		case c >= utf8.RuneSelf:
			k[c] = byteOther
		case c == ' ', c == '\n', c == '\t', c == '\r', c == '\f':
			k[c] = byteSpace
		default:
			k[c] = byteWord
		}
	}
	return k
}()

func ancestors(n *html.Node) []*html.Node {
	var a []*html.Node
	for p := n.Parent; p != nil; p = p.Parent {
		a = append(a, p)
	}
	return a
}
