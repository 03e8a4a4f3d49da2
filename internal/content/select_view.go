package content

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The selector measures its candidates cut out of the body (the item
// region, the body without landmarks, the h1 region) on the page's own
// tree, leaving out the subtrees their copies would drop (measure), and
// copies only the one it picks (candidate.tree). Every measure here gives
// exactly what the same measure gives on the copy: go run
// ./bench/content/outhash prints the same line for every page with the
// copies and with the views (bench/content/README.md, "the selector's
// cost").

// pruned tells whether prune removes the element n.
func pruned(n *html.Node) bool {
	switch n.Data {
	case "script", "style", "noscript", "template", "svg", "iframe", "link", "meta":
		return true
	}
	return false
}

// bodyStrips tells whether stripBoilerplate removes the element n:
// Landmark, a form, or BoilerplateName of its class or id, each value
// read once (pageBoilerOrHeaderWords).
func bodyStrips(n *html.Node, inArticle bool) bool {
	if Landmark(n, inArticle) || n.DataAtom == atom.Form {
		return true
	}
	words := pageBoilerOrHeaderWords
	if inArticle {
		words = pageBoilerWords
	}
	return classWordIn(attr(n, "class"), words) || classWordIn(attr(n, "id"), words)
}

// pageBoilerOrHeaderWords holds pageBoilerWords and pageHeaderWords:
// BoilerplateName(v, false), which reads v for each set, is whether v
// holds a word of either, classWordIn(v, pageBoilerOrHeaderWords), v
// read once (its words are the same whatever the set).
var pageBoilerOrHeaderWords = func() *wordSet {
	var words []string
	for _, set := range []*wordSet{pageBoilerWords, pageHeaderWords} {
		for w := range set.words {
			words = append(words, w)
		}
	}
	return newWordSet(words...)
}()

// artBag is the multiset of the article's lower-cased words (split at
// white space), as shared counts them, kept as counts per distinct word
// so that a candidate's overlap with it needs no multiset of its own.
type artBag struct {
	index map[string]int32 // word → position in count
	count []int32          // times each word occurs
	rem   []int32          // scratch: what overlap has not matched yet
	buf   []byte           // scratch: a lower-cased word
	n     int              // words in all
}

// newArtBag lower-cases text word by word (lookup, as overlap does: no
// character lower-cases to white space), not as one copy of the whole
// text; a word is copied only when it is new and not lower-case.
func newArtBag(text string) *artBag {
	b := &artBag{index: make(map[string]int32)}
	for w := range strings.FieldsSeq(text) {
		i, ok := b.lookup(w)
		if !ok {
			i = int32(len(b.count))
			b.index[strings.ToLower(w)] = i
			b.count = append(b.count, 0)
		}
		b.count[i]++
		b.n++
	}
	b.rem = make([]int32, len(b.count))
	return b
}

// overlap returns the number of words text shares with the article,
// each counted as often as the text holding it fewer times, and the
// number of words of text. Lower-casing each word alone gives the words
// of the lower-cased text: no character lower-cases to white space.
func (b *artBag) overlap(text string) (in, n int) {
	copy(b.rem, b.count)
	for w := range strings.FieldsSeq(text) {
		n++
		i, ok := b.lookup(w)
		if ok && b.rem[i] > 0 {
			b.rem[i]--
			in++
		}
	}
	return in, n
}

// lookup finds strings.ToLower(w) in the index.
func (b *artBag) lookup(w string) (int32, bool) {
	upper := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			i, ok := b.index[strings.ToLower(w)]
			return i, ok
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if !upper {
		i, ok := b.index[w]
		return i, ok
	}
	b.buf = b.buf[:0]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.buf = append(b.buf, c)
	}
	i, ok := b.index[string(b.buf)]
	return i, ok
}

// shareOf is wordBag's share: in of n words, 1 when there are none.
func shareOf(in, n int) float64 {
	if n == 0 {
		return 1
	}
	return float64(in) / float64(n)
}

// artLines are the article's lines as addedFeatures compares them.
type artLines struct {
	text       string          // the article's text
	words      int             // countWords(text)
	prose      int             // words in the prose lines
	lines      map[string]bool // every line, collapsed; nil until addedFeatures needs it (all)
	proseLines []string        // the lines of proseLineWords words or more, in order, collapsed; nil until proseOf
	proseWords []int           // their words
	have       map[string]bool // scratch: a candidate's lines
}

// newArtLines counts the article's words and those of its prose lines,
// which every candidate's features read, in one pass over its lines.
// The lines themselves (proseOf) and the set of all its lines (all)
// are made only for a candidate that compares its own with them. A
// line's words are those of the line collapsed but where it holds a
// vertical tab, which collapse reads as white space and countWords as
// part of a word.
//
// countWords of the text is its lines' words plus half their CJK
// characters, summed (wordsCJK): the halves are rounded once, for the
// whole text, not per line.
func newArtLines(artText string) artLines {
	al := artLines{text: artText}
	sum, sumCJK := 0, 0
	for l := range strings.SplitSeq(artText, "\n") {
		n, cjk := wordsCJK(l)
		sum += n
		sumCJK += cjk
		w := n + cjk/2
		if strings.IndexByte(l, '\v') >= 0 {
			w = countWords(collapseLine(l))
		}
		if w >= proseLineWords {
			al.prose += w
		}
	}
	al.words = sum + sumCJK/2
	return al
}

// proseOf makes al's prose lines and their words (proseLines,
// proseWords), once.
func (al *artLines) proseOf() {
	if al.proseLines != nil || al.prose == 0 {
		return
	}
	for l := range strings.SplitSeq(al.text, "\n") {
		w := 0
		if strings.IndexByte(l, '\v') >= 0 {
			l = collapseLine(l)
			w = countWords(l)
		} else if w = countWords(l); w >= proseLineWords {
			l = collapseLine(l)
		}
		if w >= proseLineWords {
			al.proseLines = append(al.proseLines, l)
			al.proseWords = append(al.proseWords, w)
		}
	}
}

// all returns the set of the article's lines, collapsed.
func (al *artLines) all() map[string]bool {
	if al.lines == nil {
		al.lines = make(map[string]bool)
		for l := range strings.SplitSeq(al.text, "\n") {
			al.lines[collapseLine(l)] = true
		}
	}
	return al.lines
}

// collapseLine is collapse(s), without its copy when s is collapsed
// already (plainLine; textOf writes its lines so, but for other white
// space characters and <pre>).
func collapseLine(s string) string {
	if plainLine(s) {
		return s
	}
	return collapse(s)
}

// plainLine tells whether collapse(s) is s: s has no white space at
// either end and none inside but single ASCII spaces. collapse trims s
// and, when s holds other white space or runs of it, joins its fields
// (split at unicode.IsSpace) with single spaces; neither changes s.
func plainLine(s string) bool {
	space := true // at the start, as after a space
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ':
				if space {
					return false
				}
				space = true
			case '\t', '\n', '\v', '\f', '\r':
				return false
			default:
				space = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		space = false
		i += size
	}
	return !space || len(s) == 0
}

// longestField returns the longest of the space-separated words of a
// collapsed text.
func longestField(s string) string {
	long := ""
	for w := range strings.SplitSeq(s, " ") {
		if len(w) > len(long) {
			long = w
		}
	}
	return long
}

// h1Match tells whether a text holds the page's <h1> as the selector's
// feature reads it: strings.Contains(collapse(text), h1), h1 collapsed.
type h1Match struct {
	h1    string
	field string // h1's longest word
	plain bool   // plainLine(h1)
}

func newH1Match(h1 string) h1Match {
	return h1Match{h1: h1, field: longestField(h1), plain: plainLine(h1)}
}

// in is strings.Contains(collapse(text), m.h1), mostly without
// collapsing text. Each word of h1 lies within one word of
// collapse(text), which is a word of text, so text lacking h1's longest
// word cannot hold it. A plain h1 (words without white space, single
// spaces between them) that text holds as it is, collapse(text) holds
// too: its inner words are whole words of text, joined there by single
// spaces, its first word ends one and its last word starts one.
func (m *h1Match) in(text string) bool {
	if !strings.Contains(text, m.field) {
		return false
	}
	if m.plain && strings.Contains(text, m.h1) {
		return true
	}
	return strings.Contains(collapse(text), m.h1)
}

// wordRun is what countWords needs to know of a run of text to count
// the words of a longer text it is part of: its words counted as from
// outside a word, its CJK characters, the kind of its first character
// that is not CJK (runNone when every character is), and whether it
// ends inside a word. CJK characters leave countWords's state as it is.
type wordRun struct {
	n, cjk int
	first  int8
	in     bool
	// broken: a text of the run ends in an incomplete character, which
	// the text after it could complete; the run then counts nothing
	// reliably.
	broken bool
}

const (
	runNone = iota
	runSpace
	runWord
)

// text returns the run of s, countWords's loop from outside a word.
func textRun(s string) wordRun {
	var r wordRun
	for i := 0; i < len(s); {
		switch byteKinds[s[i]] {
		case byteSpace:
			if r.first == runNone {
				r.first = runSpace
			}
			r.in = false
			i++
			continue
		case byteWord:
			if r.first == runNone {
				r.first = runWord
			}
			if !r.in {
				r.n++
			}
			r.in = true
			for i++; i < len(s) && byteKinds[s[i]] == byteWord; i++ {
			}
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(c) {
			if r.first == runNone {
				r.first = runSpace
			}
			r.in = false
			continue
		}
		if unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
			r.cjk++
			continue
		}
		if r.first == runNone {
			r.first = runWord
		}
		if !r.in {
			r.n++
		}
		r.in = true
	}
	if len(s) > 0 && s[len(s)-1] >= utf8.RuneSelf {
		if c, size := utf8.DecodeLastRuneInString(s); c == utf8.RuneError && size == 1 {
			r.broken = true
		}
	}
	return r
}

// join appends the run o to r.
func (r *wordRun) join(o wordRun) {
	r.n += o.n
	if r.first != runNone && r.in && o.first == runWord {
		r.n-- // o's first word goes on r's last
	}
	r.cjk += o.cjk
	if r.first == runNone {
		r.first = o.first
	}
	if o.first != runNone {
		r.in = o.in
	}
	r.broken = r.broken || o.broken
}

// words is countWords of the run's text.
func (r *wordRun) words() int { return r.n + r.cjk/2 }

// nodeRun is the run of nodeText(n): its text nodes in order, without
// scripts and styles; the run of the child known is given (kr).
func nodeRun(n, known *html.Node, kr wordRun) wordRun {
	var r wordRun
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			r.join(textRun(c.Data))
		case html.ElementNode:
			if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
				continue
			}
			if c == known {
				r.join(kr)
			} else {
				r.join(nodeRun(c, nil, wordRun{}))
			}
		}
	}
	return r
}

// measure is one walk of a candidate for what the selector reads of its
// tree: textOf's text, textStats's statistics and the headings and form
// controls walkElements meets. With views set, it walks the page's own
// tree and leaves out what the candidate's copy would lack: what prune
// removes and the elements for which strip (when not nil) holds.
type measure struct {
	t     textWriter
	st    stats
	el    viewBound // the headings and form controls met (element)
	views bool
	strip func(n *html.Node, inArticle bool) bool
	// peek, when not nil, takes the texts, newlines and spaces in place
	// of t, and the statistics are not counted (peekView).
	peek *viewPeek
	// tallies are the texts' counts the readability pass took (nil:
	// none).
	tallies *tallies
}

// measureTree measures n, with the counts tallies (nil: none) of the
// readability pass; see measure.
func measureTree(n *html.Node, views bool, strip func(*html.Node, bool) bool, tallies *tallies) (text string, st stats, heads, controls int) {
	tallies.rewind()
	m := measure{views: views, strip: strip, tallies: tallies}
	m.visit(n, false, true, 0, false)
	return strings.TrimSpace(m.t.b.String()), m.st, m.el.heads, m.el.controls
}

// dropped tells whether c, inArticle telling whether an <article> or
// <main> lies between it and the measured node, is left out.
func (m *measure) dropped(c *html.Node, inArticle bool) bool {
	return m.views && (pruned(c) || m.strip != nil && m.strip(c, inArticle))
}

// visit does, for n's children, what textWriter.node does when text is
// on (pre as there), what addText does with link, and what
// walkElements does.
func (m *measure) visit(n *html.Node, pre, text bool, link float64, inArticle bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if m.peek != nil {
				if text {
					m.peek.text(c.Data, pre)
				}
				continue
			}
			if text {
				m.t.text(c.Data, pre)
			}
			m.tallies.count(c.Data, link, &m.st)
		case html.ElementNode:
			if m.dropped(c, inArticle) {
				continue
			}
			m.el.element(c.DataAtom)
			in := inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main
			if c.DataAtom == atom.Script {
				// Neither text nor statistics; its elements (in foreign
				// content) still count.
				elementsUnder(c, in, m.dropped, m.el.element)
				continue
			}
			ctext, block := text, false
			if text {
				var newline, space bool
				ctext, block, newline, space = textElement(c.DataAtom)
				if newline {
					m.newline()
				} else if space {
					m.space()
				}
			}
			clink := link
			if m.peek == nil {
				clink = linkWeight(c, link)
			}
			m.visit(c, pre || c.DataAtom == atom.Pre, ctext, clink, in)
			if block {
				m.newline()
			}
		}
	}
}

func (m *measure) newline() {
	if m.peek != nil {
		m.peek.newline()
	} else {
		m.t.newline()
	}
}

func (m *measure) space() {
	if m.peek != nil {
		m.peek.space = true
	} else {
		m.t.space = true
	}
}

// textElement tells what textWriter.node does with an element of atom
// a: whether it writes the element's text, whether the element is a
// block (a newline before and after), and whether a newline (<br>, a
// block) or a pending space (a cell, an image) goes before its text.
func textElement(a atom.Atom) (text, block, newline, space bool) {
	switch a {
	case atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head,
		atom.Iframe, atom.Noembed, atom.Noframes:
		return false, false, false, false
	case atom.Br:
		return false, false, true, false
	}
	if isBlock(a) {
		return true, true, true, false
	}
	return true, false, false, a == atom.Td || a == atom.Th || a == atom.Img
}

// elementsUnder calls count for each element under n, as walkElements
// meets them, but those drop leaves out (inArticle as for drop).
func elementsUnder(n *html.Node, inArticle bool, drop func(*html.Node, bool) bool, count func(atom.Atom)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !drop(c, inArticle) {
			count(c.DataAtom)
			elementsUnder(c, inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main, drop, count)
		}
	}
}

// viewBound holds what any view of the body can read at most: a view's
// text is some of the body's texts in order, white space collapsed and
// separators added, so its words, headings, form controls and currency
// signs are at most the body's (boundBody). viewMayWin scores a view
// with them before its region is found or measured.
type viewBound struct {
	words    int  // countWords summed over the body's texts
	high     int  // texts holding a byte of 0xE0 or more (see boundBody)
	heads    int  // h1-h6 elements
	controls int  // elements measure counts as controls
	signs    int  // currency signs prices may count
	broken   bool // a text ends inside a character: no bound holds
}

// maxWords is a bound of countWords of any view's text. countWords
// counts a CJK character as half a word, rounding down per text: the
// texts' sum undercounts the joined text by at most half a word for
// each text holding one, and every character it counts as CJK is
// written with a first byte of 0xE0 or more.
func (b *viewBound) maxWords() int { return b.words + (b.high+1)/2 }

// boundBody measures body for viewBound in one walk. Every element
// counts, scripts and all (bounds may be loose, never short). The
// pipeline takes the same figures from pageFeatures's walk of the body
// (typeWalk, bounds); boundBody is for callers without them.
func boundBody(body *html.Node) *viewBound {
	b := &viewBound{}
	b.walk(body)
	return b
}

// walk adds the texts and elements under n.
func (b *viewBound) walk(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.text(c.Data, countWords(c.Data))
		case html.ElementNode:
			b.element(c.DataAtom)
			b.walk(c)
		}
	}
}

// text adds a text s of words words (countWords(s)).
func (b *viewBound) text(s string, words int) {
	b.textOf(s, words, dollarOrHigh(s))
}

// textOf is text, some telling dollarOrHigh(s).
func (b *viewBound) textOf(s string, words int, some bool) {
	b.words += words
	if !some {
		return // no '$' and no byte of 0x80 or more: most texts
	}
	b.signs += strings.Count(s, "$")
	if i := firstHighByte(s); i >= 0 {
		// Only texts with bytes of 0x80 or more hold characters of more
		// than one byte.
		if hasHighByte(s[i:]) {
			b.high++
			if c, size := utf8.DecodeLastRuneInString(s); c == utf8.RuneError && size == 1 {
				b.broken = true
			}
		}
		b.signs += currencySigns(s[i:])
	}
}

// element adds an element of atom a.
func (b *viewBound) element(a atom.Atom) {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		b.heads++
	case atom.Form, atom.Input, atom.Button, atom.Select, atom.Textarea:
		b.controls++
	}
}

// firstHighByte returns the index of the first byte of s of 0x80 or
// more, or -1.
func firstHighByte(s string) int {
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		if load8(s[i:i+8])&highBits != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return -1
}

// hasHighByte tells whether s holds a byte of 0xE0 or more (the first
// byte of a character of three bytes or four), or a byte of 0x80 or
// more at its end.
func hasHighByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xE0 {
			return true
		}
	}
	return len(s) > 0 && s[len(s)-1] >= 0x80
}

// currencySigns counts the signs of more than one byte prices looks for
// in s: £, ¥, € and ₹ ($ is counted apart).
func currencySigns(s string) int {
	n := 0
	for _, lead := range [2]byte{0xC2, 0xE2} {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], lead)
			if j < 0 {
				break
			}
			i += j
			switch t := s[i+1:]; {
			case lead == 0xC2 && len(t) >= 1 && (t[0] == 0xA3 || t[0] == 0xA5):
				n++
			case lead == 0xE2 && len(t) >= 2 && t[0] == 0x82 && (t[1] == 0xAC || t[1] == 0xB9):
				n++
			}
		}
	}
	return n
}

// viewPeek walks a view as measure does, without writing its text or
// counting its statistics, for bounds tighter than the body's: the
// words of the texts it writes (countWords of each), the headings and
// form controls it counts (exactly measure's), and lines, the newlines
// its text surely keeps: those written between two characters of ASCII
// that are not white space, which TrimSpace leaves, so that the text
// has lines+1 lines or more. It follows textWriter's state (a byte
// written, at the beginning of a line, a space pending) to know which
// newlines are written.
type viewPeek struct {
	own        viewBound // words, heads and controls only
	lines      int
	pending    int  // newlines written since the last such character
	solid      bool // such a character is written
	any        bool // a byte is written
	bol, space bool
	words      *textCounts // scan's counts of the texts' words (nil: none)
}

// bound returns the view's viewBound: its own words, headings and
// controls, the rest (texts with characters of three bytes or more,
// currency signs, broken texts) the body's, b.
func (p *viewPeek) bound(b *viewBound) viewBound {
	v := *b
	v.words, v.heads, v.controls = p.own.words, p.own.heads, p.own.controls
	return v
}

// peekView walks the view of n that measure would measure with views
// and strip; words (nil: none) are scan's word counts of the page's
// texts, taken rather than counted again (textCounts.find).
func peekView(n *html.Node, strip func(*html.Node, bool) bool, words *textCounts) viewPeek {
	words.rewind()
	p := viewPeek{words: words}
	m := measure{views: true, strip: strip, peek: &p}
	m.visit(n, false, true, 0, false)
	p.own.heads, p.own.controls = m.el.heads, m.el.controls
	return p
}

func (p *viewPeek) newline() {
	if p.any && !p.bol && p.solid {
		p.pending++
	}
	p.bol, p.space = true, false
}

// keep marks a character kept at both ends of the text.
func (p *viewPeek) keep() {
	p.lines += p.pending
	p.pending = 0
	p.solid = true
}

// text is textWriter.text without the writing.
func (p *viewPeek) text(s string, pre bool) {
	p.own.words += p.words.find(s)
	if pre {
		if p.space && !p.bol || len(s) > 0 {
			p.any = true
		}
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\n':
				if p.solid {
					p.pending++
				}
			case c > ' ' && c < 0x7f:
				p.keep()
			}
		}
		p.space = false
		p.bol = strings.HasSuffix(s, "\n")
		return
	}
	written, kept := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isSpaceByte(c) {
			written = true
			if c > ' ' && c < 0x7f {
				kept = true
				break
			}
		}
	}
	if !written {
		// White space only: a space pending, nothing written.
		p.space = p.space || len(s) > 0
		return
	}
	if kept {
		p.keep()
	}
	p.any, p.bol = true, false
	p.space = isSpaceByte(s[len(s)-1])
}

// viewMayWin is mayWin for a view candidate c not yet measured: its
// score with each feature of its text at whichever end of what b allows
// raises it (the compared features as in mayWin), the other features as
// candidates sets them; its text has lines lines or more. artWords and bodyWords are candidates' counts,
// hasH1 whether the page has an <h1> text, prose the article's words in
// prose lines.
func viewMayWin(c *candidate, b *viewBound, lines int, artWords, bodyWords int, hasH1, readableOK bool, prose int, probs [len(PageTypes)]float64, curScore float64) bool {
	if selectTreesOn {
		return viewTreeMayWin(c, b, lines, artWords, bodyWords, hasH1, readableOK, prose, probs, curScore)
	}
	return viewLinearBound(c, b, lines, artWords, bodyWords, hasH1, readableOK, prose, probs) >= curScore+selectMargin-1e-12
}

// viewLinearBound is the largest score the linear model gives the view
// c within the bounds b (+Inf when it cannot bound it).
func viewLinearBound(c *candidate, b *viewBound, lines int, artWords, bodyWords int, hasH1, readableOK bool, prose int, probs [len(PageTypes)]float64) float64 {
	w := &selectWeights[c.kind]
	if b.broken || w[sExtraShare] > 0 {
		// (mayWin lets a text holding a vertical tab always win then.)
		return math.Inf(1)
	}
	words := float64(b.maxWords())
	// up adds the larger of feature i's weighted ends lo and hi.
	z := 0.0
	up := func(i int, lo, hi float64) { z += max(w[i]*lo, w[i]*hi) }
	z += w[sBias]
	up(sWords, 0, math.Log1p(words))
	up(sBodyShare, 0, math.Min(1, words/float64(max(bodyWords, 1))))
	up(sLinkDensity, 0, 1)
	up(sArticleRatio, math.Log(1/float64(artWords+1)), math.Log((words+1)/float64(artWords+1)))
	up(sHeadings, 0, math.Log1p(float64(b.heads)))
	if hasH1 {
		up(sHasH1, 0, 1)
	}
	up(sPrices, 0, math.Log1p(float64(b.signs)))
	up(sControls, 0, math.Log1p(float64(b.controls)))
	up(sWordsPerLine, 0, math.Log1p(words/float64(lines)))
	if readableOK {
		z += w[sReadableOK]
	}
	z += w[sArticleProse] * math.Log1p(float64(prose))
	for i, p := range probs {
		z += w[sTypeProbs+i] * p
	}
	for _, i := range comparedFeatures {
		z += max(0, w[i])
	}
	// A wider slack than mayWin's: the same sum in another order.
	return 1 / (1 + math.Exp(-(z + 1e-6)))
}
