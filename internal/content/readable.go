package content

import (
	"net/url"
	"slices"
	"strings"
	"sync"
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
	body  *html.Node
	title string
	flags int
	// scored holds the index in scores of each element that has a
	// score; cands are the candidates, those credit scored, the first
	// len(cands) of scores in the same order (the article's choice
	// scores a few elements more).
	scored map[*html.Node]int32
	scores []score
	cands  []*html.Node
	// dropped marks nodes that the pass treats as removed (unlikely
	// candidates, bylines, the heading repeating the title, empty blocks).
	dropped map[*html.Node]bool
	// collapsed marks divs that hold a single <p> and nothing else: the
	// <p> takes their place.
	collapsed map[*html.Node]bool
	// marks holds the marks copyTree reads (markDropped, markCollapsed,
	// markAsP: divs without block descendants, which count as
	// paragraphs), in one map: it looks an element up once.
	marks  map[*html.Node]uint8
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
	// nodes gives copyTree its zeroed nodes, and made is the number of
	// them the attempt took (the nodes of its article, and more).
	nodes nodeArena
	made  int
	// maps holds scored, dropped, collapsed and marks, taken from
	// readMapsPool (see putMaps).
	maps *readMaps
	// names keeps the matchFacts of the class values (of elements
	// without an id) that drop has read, for every attempt (see
	// matchFactsOf).
	names map[string]partFacts
	// weights keeps the weights of the class values classWeight has
	// read (valueWeight), for every attempt; bounded as names is.
	weights map[string]int
	// factNodes is the array of cleanLists.nodes, kept for the next
	// attempt (and, through factNodesPool, for the next page), and
	// factUsed the most of it an attempt used.
	factNodes []factNode
	factUsed  int
	// tallies are the counts of the longer texts visit counted in the
	// attempt, in its order (the document's): the cleaning reads the
	// same strings in the article's copy (see tallies).
	tallies *tallies
}

// factNodesPool keeps readable.factNodes from page to page: an array
// grown for each page was the attempt's largest allocation after its
// copy of the article.
var factNodesPool = sync.Pool{New: func() any { return new([]factNode) }}

// maxFactNodes bounds the arrays kept in factNodesPool.
const maxFactNodes = 1 << 16

// score is the score of an element and, for a candidate, the link
// density of its text that visit measured.
type score struct {
	score, density float64
	measured       bool // density is set
}

// scoreOf returns n's score, and whether it has one.
func (r *readable) scoreOf(n *html.Node) (float64, bool) {
	i, ok := r.scored[n]
	if !ok {
		return 0, false
	}
	return r.scores[i].score, true
}

// scoreAt returns a pointer to n's score, which n must have.
func (r *readable) scoreAt(n *html.Node) *float64 {
	return &r.scores[r.scored[n]].score
}

// addScore gives n, without a score, the score s.
func (r *readable) addScore(n *html.Node, s float64) {
	r.scored[n] = int32(len(r.scores))
	r.scores = append(r.scores, score{score: s})
}

// Marks of readable.marks.
const (
	markDropped   = 1 << iota // in dropped
	markCollapsed             // in collapsed
	markAsP                   // a div that counts as a paragraph
)

// matchFacts are what drop reads of an element's class and id values:
// the hint lists their matchString holds. They depend on the values
// only, and a page's values repeat on hundreds of elements in every
// attempt.
type matchFacts struct {
	hints uint8
}

// Hints of matchFacts.
const (
	hintByline   = 1 << iota // bylineHints
	hintUnlikely             // unlikelyHints and not maybeHints
	hintPopup                // popupHints
	hintHide                 // hideHints and hidingClass
	hintRegion               // pageRegion
)

// Bounds of readable.names: values longer than namesMaxLen bytes, and
// values past namesMax, are read each time.
const (
	namesMax    = 512
	namesMaxLen = 2048
)

// partFacts are what drop reads of one part of a matchString, the
// class (as matchOf reads it) or the id, lower-cased. matchString joins
// the two with a space, which none of the hints holds and which
// separates the names hidingClass reads: the string's facts are those
// of its parts, joined.
type partFacts struct {
	in uint8 // the lists of matchHints the part holds a hint of
	// hide and show tell whether the part holds a name that hides its
	// element and one that shows it (hidingNames), read when it holds
	// hideHints.
	hide, show bool
	region     bool // pageRegion
}

// readPart reads the partFacts of a lower-cased part m.
func readPart(m string) partFacts {
	p := partFacts{in: uint8(matchHints.in(m)), region: pageRegion(m)}
	if p.in&matchHide != 0 {
		p.hide, p.show = hidingNames(m)
	}
	return p
}

// classMatch is the part of matchString that a class value makes.
func classMatch(class string) string {
	if strings.Contains(class, "-") || strings.Contains(class, "_") {
		class = withoutModifiers(class)
	}
	return strings.ToLower(class)
}

// Bits of partFacts.in: matchHints's lists.
const (
	matchByline = 1 << iota
	matchUnlikely
	matchMaybe
	matchPopup
	matchHide
)

// matchFactsOf returns the matchFacts of an element with these class and
// id values. Those of a class are read once a page (r.names); ids,
// seldom repeated, are read each time.
func (r *readable) matchFactsOf(class, id string) matchFacts {
	if class == "" && id == "" {
		return matchFacts{}
	}
	var c partFacts
	if class != "" {
		c = r.classPart(class)
	}
	if id == "" {
		return c.facts()
	}
	id = strings.ToLower(id)
	return joinParts(class, c, id, readPart(id))
}

// readMatchFacts reads the matchFacts of these class and id values
// without r.names.
func readMatchFacts(class, id string) matchFacts {
	var c partFacts
	if class != "" {
		c = readPart(classMatch(class))
	}
	if id == "" {
		return c.facts()
	}
	id = strings.ToLower(id)
	return joinParts(class, c, id, readPart(id))
}

// joinParts returns the matchFacts of a class value, of partFacts c,
// and a lower-cased id of partFacts i. A part without hideHints is read
// for the hiding names when the other holds some.
func joinParts(class string, c partFacts, id string, i partFacts) matchFacts {
	j := partFacts{in: c.in | i.in, region: c.region || i.region}
	if j.in&matchHide != 0 {
		if c.in&matchHide == 0 && class != "" {
			c.hide, c.show = hidingNames(classMatch(class))
		}
		if i.in&matchHide == 0 {
			i.hide, i.show = hidingNames(id)
		}
		j.hide, j.show = c.hide || i.hide, c.show || i.show
	}
	return j.facts()
}

// classPart returns the partFacts of a class value, through r.names.
func (r *readable) classPart(class string) partFacts {
	if len(class) > namesMaxLen {
		return readPart(classMatch(class))
	}
	if p, ok := r.names[class]; ok {
		return p
	}
	p := readPart(classMatch(class))
	if r.names == nil {
		r.names = make(map[string]partFacts)
	}
	if len(r.names) < namesMax {
		r.names[class] = p
	}
	return p
}

// facts are the matchFacts of a matchString of these partFacts.
func (p partFacts) facts() matchFacts {
	var f matchFacts
	if p.in&matchByline != 0 {
		f.hints |= hintByline
	}
	if p.in&matchUnlikely != 0 && p.in&matchMaybe == 0 {
		f.hints |= hintUnlikely
	}
	if p.in&matchPopup != 0 {
		f.hints |= hintPopup
	}
	if p.in&matchHide != 0 && p.hide && !p.show {
		f.hints |= hintHide
	}
	if p.region {
		f.hints |= hintRegion
	}
	return f
}

// matchHints are the lists readMatchFacts reads, in this order.
var matchHints = newHintLists(bylineHints, unlikelyHints, maybeHints, popupHints, hideHints)

// hintLists reads several hint lists in one pass over a string: a
// position is passed over when no hint of any list starts with its two
// bytes.
type hintLists struct {
	pairs pairSet
	lists []*hints
}

// newHintLists returns the hintLists of lists, which may hold no hint
// of one byte.
func newHintLists(lists ...*hints) *hintLists {
	l := &hintLists{lists: lists}
	for _, h := range lists {
		for c, one := range h.single {
			if one {
				panic("content: a hint of one byte in a list read with others: " + string(rune(c)))
			}
		}
		for i := range l.pairs {
			l.pairs[i] |= h.pairs[i]
		}
	}
	return l
}

// in returns the lists that s holds a hint of: bit i for lists[i]
// (h.in(s) for each list h).
func (l *hintLists) in(s string) uint32 {
	var in uint32
	all := uint32(1)<<len(l.lists) - 1
	for i := 0; i+1 < len(s) && in != all; i++ {
		if !l.pairs.has(s[i], s[i+1]) {
			continue
		}
		for k, h := range l.lists {
			if in&(1<<k) == 0 && h.pairs.has(s[i], s[i+1]) && hintAtString(h, s, i) {
				in |= 1 << k
			}
		}
	}
	return in
}

// hintAtString tells whether one of h's hints of two bytes or more
// starts at s[i].
func hintAtString(h *hints, s string, i int) bool {
	for _, w := range h.byFirst[s[i]] {
		if len(s)-i >= len(w) && s[i:i+len(w)] == w {
			return true
		}
	}
	return false
}

// newNode returns a zeroed node for a copy.
func (r *readable) newNode() *html.Node {
	r.made++
	return r.nodes.node()
}

// nodeChunk is how many nodes a nodeArena takes at once: one allocation
// instead of one a node (an article is a few hundred).
const nodeChunk = 64

// nodeChunks keeps the chunks of nodeArenas from page to page, zeroed:
// the copies of the articles were a sixth of the bytes a page's
// conversion allocated, which the collector then paid for.
var nodeChunks = sync.Pool{New: func() any { return new([nodeChunk]html.Node) }}

// nodeArena hands out the zeroed nodes of the readability pass's
// copies, from chunks that go back to nodeChunks when the page is
// done (done: the pipeline's end, when no node of the page is read
// again). An arena never given back leaves its chunks to the collector.
type nodeArena struct {
	cur    *[nodeChunk]html.Node // the last chunk taken
	left   int                   // its nodes not handed out yet
	chunks []*[nodeChunk]html.Node
}

// node returns a zeroed node (inlined: grow is the rare call).
func (a *nodeArena) node() *html.Node {
	if a.left == 0 {
		a.grow()
	}
	a.left--
	return &a.cur[nodeChunk-1-a.left]
}

// grow takes a chunk from nodeChunks.
//
//go:noinline
func (a *nodeArena) grow() {
	a.cur = nodeChunks.Get().(*[nodeChunk]html.Node)
	a.chunks = append(a.chunks, a.cur)
	a.left = nodeChunk
}

// done zeroes the arena's chunks and gives them back to nodeChunks (a
// nil arena: none); no node a handed out is read after. The chunks go
// back without the pointers their nodes held, so the pool keeps no page
// alive.
func (a *nodeArena) done() {
	if a == nil || !reuseCopies {
		return
	}
	for i, c := range a.chunks {
		used := c[:]
		if i == len(a.chunks)-1 {
			used = c[:nodeChunk-a.left]
		}
		clear(used)
		nodeChunks.Put(c)
		a.chunks[i] = nil
	}
	a.chunks, a.cur, a.left = a.chunks[:0], nil, 0
}

// pageWrapper tells whether n, named like a header, footer or popup,
// holds more than half of the page's text: then it wraps the page
// ("above-footer", "header-and-content"), and dropping it drops the
// article. With named, n's class and id must name a region (names,
// their matchFacts, say so).
func (r *readable) pageWrapper(n *html.Node, named bool, names matchFacts) bool {
	if named && names.hints&hintRegion == 0 {
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
	r := &readable{body: body, title: title, bodyLen: -1, bodyOver: -1, spareRuns: !offSpareRuns && facts != nil && facts.listing}
	// The counts stay with facts for the selector; the pipeline gives
	// them back when the page is done.
	r.tallies = takeTallies()
	if facts != nil {
		facts.tallies = r.tallies
		facts.nodes = &r.nodes
	} else {
		defer r.tallies.done()
	}
	// The attempts' maps go back for the next page (see readMaps).
	defer r.putMaps()
	nodes := factNodesPool.Get().(*[]factNode)
	r.factNodes = (*nodes)[:0]
	defer func() {
		// The array goes back without the pointers to this page's
		// nodes (the arrays in the pool hold none).
		if b := r.factNodes; cap(b) <= maxFactNodes {
			clear(b[:r.factUsed])
			*nodes = b[:0]
			factNodesPool.Put(nodes)
		}
	}()
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
			traceClean(art, "returned", nil)
			return art, true
		}
		if n > bestLen {
			best, bestLen = art, n
		}
	}
	if best != nil {
		traceClean(best, "returned", nil)
	}
	return best, false
}

// readMaps are the maps of an attempt, kept from page to page
// (readMapsPool), empty: the scores' map alone was 3 % of the bytes a
// page's conversion allocated. Maps that grew past maxReadMap entries
// (a large page) are left to the collector, so the pool keeps few
// large maps and clearing one costs about what its page did.
type readMaps struct {
	scored    map[*html.Node]int32
	dropped   map[*html.Node]bool
	collapsed map[*html.Node]bool
	marks     map[*html.Node]uint8
}

var readMapsPool = sync.Pool{New: func() any {
	return &readMaps{
		scored:    make(map[*html.Node]int32, 256),
		dropped:   make(map[*html.Node]bool),
		collapsed: make(map[*html.Node]bool),
		marks:     make(map[*html.Node]uint8),
	}
}}

const maxReadMap = 4096

// reuseCopies gives the copies' chunks and the attempts' maps back for
// the next page; tests turn it off to compare.
var reuseCopies = true

// putMaps gives r's maps back to readMapsPool, empty; r takes new ones
// if it attempts again.
func (r *readable) putMaps() {
	m := r.maps
	if m == nil {
		return
	}
	if reuseCopies && len(m.scored) <= maxReadMap && len(m.dropped) <= maxReadMap && len(m.collapsed) <= maxReadMap && len(m.marks) <= maxReadMap {
		clear(m.scored)
		clear(m.dropped)
		clear(m.collapsed)
		clear(m.marks)
		readMapsPool.Put(m)
	}
	r.maps, r.scored, r.dropped, r.collapsed, r.marks = nil, nil, nil, nil, nil
}

func (r *readable) attempt(flags int) *html.Node {
	r.flags = flags
	// A later attempt reuses the maps of the one before (nothing keeps
	// them once an attempt returns its copy).
	if r.scored == nil {
		r.maps = readMapsPool.Get().(*readMaps)
		r.scored, r.dropped, r.collapsed, r.marks = r.maps.scored, r.maps.dropped, r.maps.collapsed, r.maps.marks
	} else {
		clear(r.scored)
		clear(r.dropped)
		clear(r.collapsed)
		clear(r.marks)
	}
	r.cands = r.cands[:0]
	r.scores = r.scores[:0]
	r.made = 0
	r.byline, r.titled = false, false
	r.unlikely, r.cleaned = false, false
	r.bodyText = stats{}
	r.tallies.reset()

	r.visit(r.body, 0)

	// Scale each candidate by the share of its text that is not links.
	// The body's share is not the one visit records per element: it is
	// textStats's, which visit sums too (bodyText), and it is applied only
	// when the body may rank among the five best. Scaling moves a score
	// towards 0, so a body whose score, or 0, is below five other
	// candidates' cannot, and its score is then read nowhere.
	var body *html.Node
	for i, c := range r.cands {
		sc := &r.scores[i]
		d := sc.density
		if !sc.measured {
			if body == nil {
				body = c
				continue
			}
			d = r.linkDensity(c)
		}
		sc.score *= 1 - d
	}
	if body != nil && !r.outranked(body, 5) {
		d := 0.0
		if body != r.body {
			d = r.linkDensity(body)
		} else if r.bodyText.length > 0 {
			d = r.bodyText.linkLen / float64(r.bodyText.length)
		}
		*r.scoreAt(body) *= 1 - d
	}
	var top []*html.Node    // the five best, best first
	var topScores []float64 // their scores
	for k, c := range r.cands {
		s := r.scores[k].score
		i := len(top)
		for i > 0 && topScores[i-1] < s {
			i--
		}
		if i < 5 {
			top, topScores = append(top, nil), append(topScores, 0)
			copy(top[i+1:], top[i:])
			copy(topScores[i+1:], topScores[i:])
			top[i], topScores[i] = c, s
			if len(top) > 5 {
				top, topScores = top[:5], topScores[:5]
			}
		}
	}

	r.margin, r.close = 0, 0
	if len(top) > 1 && topScores[0] > 0 {
		r.margin = max(0, topScores[1]/topScores[0])
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
	bestScore := topScores[0]
	// When several close runners-up share an ancestor, the article is
	// probably that ancestor (pages split into several blocks).
	var alts [][]*html.Node
	for i, c := range top[1:] {
		if topScores[1+i]/bestScore >= 0.75 {
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
	last, ok := r.scoreOf(best)
	if !ok {
		last = r.initScore(best)
		r.addScore(best, last)
	}
	// Climb while the parent scores better: the article is often split
	// over several children.
	threshold := last / 3
	for p := best.Parent; p != nil && p != r.body; p = p.Parent {
		s, ok := r.scoreOf(p)
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
	bestScore, ok = r.scoreOf(best)
	if !ok {
		bestScore = r.initScore(best)
		r.addScore(best, bestScore)
	}

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
			if s, ok := r.scoreOf(c); ok && s+bonus >= limit {
				keep = true
			} else if c.DataAtom == atom.P || r.marks[c]&(markAsP|markCollapsed) != 0 {
				st := textStats(c, r.dropped)
				keep = r.proseLike(st, []*html.Node{c})
			}
			keep = keep || !offDocBlock && docBlock(c, r.host)
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
	if lead := r.findLead(best, joined); lead != nil && !offLead {
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
	s, _ := r.scoreOf(c)
	bound := max(s, 0)
	for i, o := range r.cands {
		if o != c && r.scores[i].score > bound {
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
			before, commas := st.length, st.commas
			countText(c.Data, link, &st)
			if len(c.Data) >= tallyMin {
				// The text's counts alone: countText adds one for the
				// separation from the text before when both have a
				// character.
				n := st.length - before
				if n > 0 && before > 0 {
					n--
				}
				r.tallies.add(c.Data, n, st.commas-commas)
			}
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
			r.marks[c] |= markDropped
			block = block || blockTag(c.DataAtom) || hasBlockDescendant(c)
			continue
		}
		cst, cblock := r.visit(c, linkWeight(c, link))
		switch c.DataAtom {
		case atom.P, atom.Td, atom.Pre, atom.Section, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if c.DataAtom == atom.P && n.DataAtom == atom.Div && density(cst) < 0.25 && singleP(n) == c {
				// The div holds only this <p>: the <p> takes its place.
				r.collapsed[n] = true
				r.marks[n] |= markCollapsed
			}
			r.credit(cst, n)
		case atom.Div:
			if r.collapsed[c] {
				break
			}
			if !cblock {
				r.marks[c] |= markAsP
				r.credit(cst, n)
			} else {
				r.scoreRuns(c)
			}
		}
		if blockTag(c.DataAtom) {
			cblock = true
		}
		if i, ok := r.scored[c]; ok {
			r.scores[i].density, r.scores[i].measured = density(cst), true
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
		!hasAncestor(n, atom.Table, 3) && !hasAncestor(n, atom.Code, 3) && !r.pageWrapper(n, true, names) &&
		(offEmbeds || !embedsPost(n, 3)) {
		return true
	}
	// A landmark by role, or a <nav> whatever its class, unless the
	// page is wrapped in one (see landmark.go).
	if a.role != "" && LandmarkRole(n) || n.DataAtom == atom.Nav && !offNav && !r.pageWrapper(n, false, names) {
		return true
	}
	// Modals, cookie banners and hover cards are shown over the
	// page, not in it; their text would make them candidates or
	// inflate the link density of the article around them.
	if names.hints&hintPopup != 0 && classKinds(n)&kindPopup&^kindsOff != 0 && !r.pageWrapper(n, false, names) {
		return true
	}
	// Popups, print-only blocks and screen-reader labels that a
	// stylesheet hides by class rather than by attribute.
	return !offHiddenClass && names.hints&hintHide != 0
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
		i, ok := r.scored[a]
		if !ok {
			i = int32(len(r.scores))
			r.addScore(a, r.initScore(a))
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
		r.scores[i].score += points / div
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

// classWeight is the weight of n's class and id values (valueWeight)
// when the attempt weighs classes, else 0. The weight of a class value
// is read once a page (the values repeat), through r.weights.
func (r *readable) classWeight(n *html.Node) int {
	if r.flags&flagWeightClasses == 0 {
		return 0
	}
	class, id := attr(n, "class"), attr(n, "id")
	w := 0
	if class != "" {
		if len(class) > namesMaxLen {
			w = valueWeight(class)
		} else if cw, ok := r.weights[class]; ok {
			w = cw
		} else {
			w = valueWeight(class)
			if r.weights == nil {
				r.weights = make(map[string]int)
			}
			if len(r.weights) < namesMax {
				r.weights[class] = w
			}
		}
	}
	if id != "" {
		w += valueWeight(id)
	}
	return w
}

// valueWeight is the weight of a class or id value: -25 when it holds a
// negative hint, +25 when it holds a positive one (both: 0).
func valueWeight(v string) int {
	v = strings.ToLower(v)
	w := 0
	if negativeHint(v) {
		w -= 25
	}
	if positiveHints.in(v) {
		w += 25
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
	var m uint8
	if elem {
		m = r.marks[n]
	}
	if elem && (n.DataAtom == atom.Script || m&markDropped != 0) {
		return nil
	}
	if m&markCollapsed != 0 {
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
	asP := m&markAsP != 0
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
			// A block left out still ends the line it stood on: the
			// inline runs around it stay apart ("honey.<div
			// class=spacer></div>Stir" is two lines on the page).
			if c.Type == html.ElementNode && isBlock(c.DataAtom) {
				if wrap {
					p = nil
				} else if l := k.LastChild; l != nil && isPhrasing(l) {
					sp := r.newNode()
					sp.Type, sp.Data = html.TextNode, " "
					k.AppendChild(sp)
				}
			}
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
	// A name "hid" is in the string.
	if !strings.Contains(v, "hid") {
		return false
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
		return linkWeights[anchorKind(n)]
	}
	return w
}

// Kinds of <a> for the weight of their text (linkWeights).
const (
	anchorInPage = iota // to a place on the page
	anchorDoc           // to a document
	anchorOut           // to another page
)

// linkWeights are the weights of the text of each kind of <a>.
var linkWeights = [...]float64{anchorInPage: 0.3, anchorDoc: 0, anchorOut: 1}

// anchorKind is the kind of <a> n.
func anchorKind(n *html.Node) uint8 {
	href := attr(n, "href")
	if strings.HasPrefix(href, "#") {
		return anchorInPage
	}
	if docLink(href) {
		// A link to a document is content (a release, a filing), not
		// a way to another page.
		return anchorDoc
	}
	return anchorOut
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
