package content

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Boilerplate told by the words of a line rather than by a name: a line
// of its own that only says "Advertisement", credits a photo, announces
// other stories or asks the reader to follow or subscribe. Each test
// reads the start of an element's text first, so that the elements that
// cannot be such a line (nearly all) cost a few bytes each.

// adLabels are the words that mark an ad slot, in the languages of the
// web's larger sites (see labelLine).
var adLabels = map[string]bool{"ad": true, "ads": true, "advertisement": true, "advertising": true,
	"anzeige": true, "werbung": true, "publicidad": true, "publicité": true, "publicite": true,
	"pubblicità": true, "reklama": true, "sponsored": true, "gesponsert": true, "annonce": true,
	"advertentie": true, "реклама": true, "广告": true, "publicidade": true, "mainos": true, "annons": true}

// creditPrefixes start the credit line of a photo in the languages of
// the web's larger sites (see labelLine).
var creditPrefixes = []string{"foto:", "fotos:", "foto ©", "foto©", "fotos ©", "photo:", "photos:", "photo ©",
	"photo by", "photograph:", "photography:", "bild:", "bilder:", "bildquelle", "image:", "images:", "image by",
	"image credit", "credit:", "credits:", "copyright", "©", "(c)", "quelle:", "source:", "picture:",
	"zdjęcie:", "fot.", "crédit", "crédits", "imagen:", "fuente:", "illustration:", "grafik:", "abbildung:"}

// labelLine tells whether n is a short line of its own that only says
// "Advertisement" (an ad slot left empty) or credits a photo (it starts
// with a credit word or the copyright sign). It runs on every element
// of the article, so the start of the text is tested first and the
// length only when it may be such a line.
func labelLine(n *html.Node) bool {
	// Most elements are told by the first two bytes of their text.
	switch a, b, c, k := firstTwo(n); {
	case k == twoNone:
		return false
	case k >= twoFound && !labelStartTrim.ascii[a] && !labelPairs.has(a, b):
		return false
	case k == threeFound && !labelStartTrim.ascii[a] && !labelShort.has(a, b) && !labelTriples.has(a, b, c):
		return false
	}
	var head [24]byte
	h := firstText(n, head[:0])
	if len(h) == 0 {
		return false
	}
	t := labelStartTrim.trimLeft(h)
	if len(t) == 0 {
		return false
	}
	maybe := false
	for _, p := range labelStarts[t[0]] {
		if bytes.HasPrefix(t, p) {
			maybe = true
			break
		}
	}
	if !maybe {
		return false
	}
	l := textWithin(n, 100)
	if l <= 0 || (isPhrasing(n) && !alone(n, l)) {
		return false
	}
	full := strings.ToLower(collapse(nodeText(n)))
	if adLabels[strings.Trim(full, " -–—:|[]()*")] {
		return l <= 30
	}
	full = strings.TrimLeft(full, "([ ")
	// A credit inside a caption is part of it; a block that holds an
	// image is the picture with its credit, not a credit line.
	if inCaption(n) || hasMedia(n) {
		return false
	}
	for _, p := range creditPrefixes {
		if strings.HasPrefix(full, p) {
			return true
		}
	}
	return false
}

// labelStarts are the starts of the credit prefixes and ad labels, by
// their first byte: every element of the article is tested.
var labelStarts = func() *[256][][]byte {
	var b [256][][]byte
	for _, p := range creditPrefixes {
		b[p[0]] = append(b[p[0]], []byte(p))
	}
	for w := range adLabels {
		b[w[0]] = append(b[w[0]], []byte(w))
	}
	return &b
}()

// labelPairs are the first two bytes of labelStarts (all are two
// bytes long or more).
var labelPairs = func() *pairSet {
	var p pairSet
	for _, list := range labelStarts {
		for _, w := range list {
			p.add(w[0], w[1])
		}
	}
	return &p
}()

// labelShort are the labelStarts of two bytes, labelTriples the first
// three bytes of the others.
var labelShort, labelTriples = func() (*pairSet, *tripleSet) {
	var p pairSet
	var t tripleSet
	for _, list := range labelStarts {
		for _, w := range list {
			if len(w) == 2 {
				p.add(w[0], w[1])
			} else {
				t.add(w[0], w[1], w[2])
			}
		}
	}
	return &p, &t
}()

// What firstTwo found.
const (
	twoNone    = iota // no text: firstText is empty
	twoOther          // a start firstTwo does not read: ask firstText
	twoFound          // the first two bytes of firstText
	threeFound        // and the third
)

// firstTwo returns the first two bytes of firstText(n, buf) (lower-cased
// as it does) when the first text of n's subtree that is not all white
// space (strings.TrimSpace) starts with two ASCII bytes that are not
// white space, and the third when it is one too (threeFound), without
// gathering the text; twoNone when n holds no such text; twoOther when
// that text starts otherwise.
func firstTwo(n *html.Node) (a, b, c byte, kind int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s := c.Data
			i := 0
			for i < len(s) && asciiSpace[s[i]] {
				i++
			}
			if i == len(s) {
				continue // TrimSpace leaves nothing: firstText passes over it
			}
			if i+1 < len(s) && s[i] < utf8.RuneSelf && s[i+1] < utf8.RuneSelf && !asciiSpace[s[i+1]] {
				if i+2 < len(s) && s[i+2] < utf8.RuneSelf && !asciiSpace[s[i+2]] {
					return lowerASCII(s[i]), lowerASCII(s[i+1]), lowerASCII(s[i+2]), threeFound
				}
				return lowerASCII(s[i]), lowerASCII(s[i+1]), 0, twoFound
			}
			return 0, 0, 0, twoOther
		case html.ElementNode:
			if c.DataAtom != atom.Script {
				if a, b, t, k := firstTwo(c); k != twoNone {
					return a, b, t, k
				}
			}
		}
	}
	return 0, 0, 0, twoNone
}

// asciiSpace are the ASCII bytes strings.TrimSpace trims.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// lowerASCII is c lower-cased as firstText does it.
func lowerASCII(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// firstText appends to buf, lower-cased, up to cap(buf) bytes of the
// text of n from its first character that is not white space, across
// elements ("(<a>Source: dpa</a>)" reads "(source: dpa)").
func firstText(n *html.Node, buf []byte) []byte {
	for c := n.FirstChild; c != nil && len(buf) < cap(buf); c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s := c.Data
			if len(buf) == 0 {
				s = strings.TrimSpace(s)
			}
			for i := 0; i < len(s) && len(buf) < cap(buf); i++ {
				b := s[i]
				if isUpper(b) {
					b += 'a' - 'A'
				}
				buf = append(buf, b)
			}
		case html.ElementNode:
			if c.DataAtom != atom.Script {
				buf = firstText(c, buf)
			}
		}
	}
	return buf
}

// Related-content labels: the heading over a list of other stories
// ("Mehr zum Thema", "À lire aussi", "You might also like"). Their
// class names often say nothing (the list under them is removed by its
// own name, leaving the heading), so they are told by their words, in
// the languages of the web's larger sites. Encyclopaedic "See also" and
// "Further reading" sections are not among them: they belong to the
// article. A label in front of one linked title inside the text
// ("Lesen Sie auch: <a>…</a>") stays: measured, readability's corpus
// keeps such lines (cnn, lemonde) and trafilatura-eval gained one
// snippet.

// relatedLabels are the labels, lower-cased, without the punctuation
// that ends them.
var relatedLabels = map[string]bool{
	// English
	"related": true, "related articles": true, "related stories": true, "related posts": true,
	"related content": true, "related coverage": true, "related news": true, "related links": true,
	"related reading": true, "related topics": true, "read more": true, "read next": true, "read also": true,
	"also read": true, "more on this": true, "more on this story": true, "more on this topic": true,
	"you may also like": true, "you might also like": true, "you may be interested in": true,
	"you might be interested in": true, "recommended for you": true, "recommended stories": true,
	"recommended articles": true, "more stories": true, "more news": true, "most popular": true,
	"most read": true, "popular posts": true, "recent posts": true, "latest news": true,
	"don't miss": true, "don’t miss": true, "what to read next": true, "keep reading": true,
	// German
	"mehr zum thema": true, "mehr zu diesem thema": true, "das könnte sie auch interessieren": true,
	"das könnte dich auch interessieren": true, "das könnte sie interessieren": true,
	"das könnte dich interessieren": true, "könnte sie auch interessieren": true,
	"könnte dich auch interessieren": true, "weiterführende links": true, "weiterführende artikel": true,
	"weiterlesen": true, "lesen sie auch": true, "lesen sie mehr": true, "lies auch": true,
	"auch interessant": true, "ebenfalls interessant": true, "ähnliche artikel": true,
	"ähnliche beiträge": true, "verwandte artikel": true, "verwandte beiträge": true,
	"zum weiterlesen": true, "empfohlene beiträge": true, "empfohlene artikel": true,
	"beliebte beiträge": true, "meistgelesen": true, "meistgelesene artikel": true, "neueste artikel": true,
	"neueste beiträge": true, "aktuelle beiträge": true, "letzte beiträge": true, "weitere artikel": true,
	"weitere beiträge": true, "weitere news": true, "weitere nachrichten": true, "passend zum thema": true,
	"mehr artikel": true, "mehr news": true,
	// French
	"à lire aussi": true, "a lire aussi": true, "lire aussi": true, "à lire également": true,
	"lire également": true, "sur le même sujet": true, "articles similaires": true, "articles liés": true,
	"dans la même rubrique": true, "les plus lus": true, "vous aimerez aussi": true,
	"vous aimerez aussi lire": true, "à découvrir aussi": true, "à voir aussi": true, "lire la suite": true,
	// Spanish
	"puedes ver": true, "lee también": true, "lea también": true, "leer también": true,
	"te puede interesar": true, "también te puede interesar": true, "le puede interesar": true,
	"noticias relacionadas": true, "artículos relacionados": true, "contenido relacionado": true,
	"mire": true, "mira también": true, "más noticias": true, "lo más leído": true, "te recomendamos": true,
	"te podría interesar": true, "sigue leyendo": true,
	// Italian
	"leggi anche": true, "potrebbe interessarti": true, "potrebbe interessarti anche": true,
	"articoli correlati": true, "notizie correlate": true, "ti potrebbe interessare": true,
	"i più letti": true,
	// Portuguese
	"leia também": true, "leia mais": true, "veja também": true, "notícias relacionadas": true,
	"você também pode gostar": true, "mais lidas": true,
	// Dutch
	"lees ook": true, "lees meer": true, "gerelateerde artikelen": true, "meer over dit onderwerp": true,
	"ook interessant": true,
	// Polish
	"czytaj także": true, "czytaj też": true, "czytaj również": true, "zobacz także": true,
	"zobacz też": true, "zobacz również": true, "polecamy": true, "przeczytaj także": true,
	"przeczytaj również": true, "powiązane artykuły": true,
	// The heading over an about-the-author box (the box goes by its
	// name, see kindBio)
	"about the author": true, "über den autor": true, "über die autorin": true, "zum autor": true,
	"à propos de l'auteur": true, "sobre el autor": true, "sobre o autor": true, "sull'autore": true,
	"o autorze": true, "over de auteur": true,
}

// relatedFirstWords are the first words of the labels: the test that
// runs on every element before any text is gathered.
var relatedFirstWords = func() map[string]bool {
	m := make(map[string]bool)
	for l := range relatedLabels {
		w, _, _ := strings.Cut(l, " ")
		m[w] = true
	}
	return m
}()

// relatedPairs are the first two bytes of the relatedFirstWords of two
// bytes or more.
var relatedPairs = func() *pairSet {
	var p pairSet
	for w := range relatedFirstWords {
		if len(w) >= 2 {
			p.add(w[0], w[1])
		}
	}
	return &p
}()

// relatedTriples are the first three bytes of the relatedFirstWords of
// three bytes or more.
var relatedTriples = func() *tripleSet {
	var t tripleSet
	for w := range relatedFirstWords {
		if len(w) >= 3 {
			t.add(w[0], w[1], w[2])
		}
	}
	return &t
}()

// tripleSet holds three-byte strings by a hash of 12 bits: has is true
// for every string added and for few others.
type tripleSet [1 << 12 / 64]uint64

func tripleHash(a, b, c byte) uint {
	return uint((uint32(a)|uint32(b)<<8|uint32(c)<<16)*0x9e3779b1) >> 20
}

func (t *tripleSet) add(a, b, c byte) {
	k := tripleHash(a, b, c)
	t[k/64] |= 1 << (k % 64)
}

func (t *tripleSet) has(a, b, c byte) bool {
	k := tripleHash(a, b, c)
	return t[k/64]&(1<<(k%64)) != 0
}

// wordEndASCII tells whether firstWordEnd ends a word at ASCII byte c.
func wordEndASCII(c byte) bool {
	return c == ' ' || c == ':' || c == '!' || c == '.' || c == '?'
}

// labelTrim is what surrounds a label: punctuation, arrows, quotes.
const labelTrim = " \t\n:!.…?»«›‹\"'„“”-–—|>*()[]"

// The tests on every element of the article trim the start of its text
// by these sets. bytes.TrimLeft reads a set holding characters beyond
// ASCII a character at a time; most texts start with a letter, which
// the set's ASCII bytes tell at once.
var (
	labelTrimSet   = newTrimSet(labelTrim)
	labelStartTrim = newTrimSet(" -–—:|[(*")
)

// trimSet is a cutset for bytes.TrimLeft with its ASCII bytes in a table.
type trimSet struct {
	cutset string
	ascii  [utf8.RuneSelf]bool
}

func newTrimSet(cutset string) *trimSet {
	t := &trimSet{cutset: cutset}
	for i := 0; i < len(cutset); i++ {
		if c := cutset[i]; c < utf8.RuneSelf {
			t.ascii[c] = true
		}
	}
	return t
}

// trimLeft is bytes.TrimLeft(b, t.cutset).
func (t *trimSet) trimLeft(b []byte) []byte {
	if len(b) > 0 && b[0] < utf8.RuneSelf && !t.ascii[b[0]] {
		return b
	}
	return bytes.TrimLeft(b, t.cutset)
}

// firstWordEnd is bytes.IndexAny(w, " :!.?…\u00a0"): where the first
// word of a label ends.
func firstWordEnd(w []byte) int {
	for i := 0; i < len(w); {
		switch c := w[i]; {
		case c == ' ' || c == ':' || c == '!' || c == '.' || c == '?':
			return i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(w[i:])
			if r == '…' || r == '\u00a0' {
				return i
			}
			i += size
		}
	}
	return -1
}

// relatedLabel tells whether n is a related-content label: a heading or
// a short line of its own whose whole text is the label.
func relatedLabel(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Div, atom.Strong, atom.B,
		atom.Span, atom.Header, atom.Dt, atom.Li:
	default:
		return false
	}
	if !relatedStart(n) {
		return false
	}
	l := textWithin(n, 80)
	if l <= 0 || (isPhrasing(n) && !alone(n, l) && !ownLine(n)) {
		return false
	}
	full := strings.ToLower(collapse(nodeText(n)))
	return relatedLabels[strings.Trim(full, labelTrim)]
}

// relatedStart tells whether the first word of n's text is the first
// word of a related-content label.
func relatedStart(n *html.Node) bool {
	// Runs on every element of the article. Most elements are told by
	// the first two bytes of their text: a first word of two bytes or
	// more starts with a pair of relatedPairs. The others' first word is
	// looked up from a stack buffer, without allocating, unless it has
	// letters firstText could not lower-case.
	switch a, b, c, k := firstTwo(n); {
	case k == twoNone:
		return false
	case k >= twoFound && !labelTrimSet.ascii[a] && !wordEndASCII(b) && !relatedPairs.has(a, b):
		return false
	case k == threeFound && !labelTrimSet.ascii[a] && !wordEndASCII(b) && !wordEndASCII(c) && !relatedTriples.has(a, b, c):
		// A first word of three bytes or more.
		return false
	}
	var head [32]byte
	w := labelTrimSet.trimLeft(firstText(n, head[:0]))
	if i := firstWordEnd(w); i >= 0 {
		w = w[:i]
	}
	return relatedFirstWords[string(w)] || hasNonASCII(w) && relatedFirstWords[strings.ToLower(string(w))]
}

// ownLine tells whether an inline element is set as a line of its own:
// between blocks (or line breaks), with no text beside it.
func ownLine(n *html.Node) bool {
	edge := func(s *html.Node, next func(*html.Node) *html.Node) bool {
		for ; s != nil; s = next(s) {
			switch s.Type {
			case html.TextNode:
				if strings.TrimSpace(s.Data) != "" {
					return false
				}
			case html.ElementNode:
				return s.DataAtom == atom.Br || !isPhrasing(s)
			}
		}
		return true
	}
	return edge(n.PrevSibling, func(s *html.Node) *html.Node { return s.PrevSibling }) &&
		edge(n.NextSibling, func(s *html.Node) *html.Node { return s.NextSibling })
}

// dropRelatedLabels removes the related-content labels of the article
// and the blocks of links that follow each (the list of other stories
// it announces), up to the first block that is not mostly links.
func dropRelatedLabels(art *html.Node) {
	var found []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if relatedLabel(c) {
				// An inline label alone in its block stands for it.
				x := c
				if isPhrasing(x) && x.Parent != art && elementChildren(x.Parent) == 1 {
					x = x.Parent
				}
				found = append(found, x)
				continue
			}
			walk(c)
		}
	}
	walk(art)
	for _, n := range found {
		if n.Parent == nil {
			continue
		}
		for s := n.NextSibling; s != nil; {
			next := s.NextSibling
			if s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" {
				break
			}
			if s.Type == html.ElementNode {
				st := textStats(s, nil)
				if st.length > 0 && st.linkLen < 0.5*float64(st.length) || st.length == 0 && hasMedia(s) {
					break
				}
			}
			traceClean(art, "related label's links", s)
			s.Parent.RemoveChild(s)
			s = next
		}
		traceClean(art, "related label", n)
		n.Parent.RemoveChild(n)
	}
}

// Calls to action written as a paragraph of the article, with no class
// to tell them: "Follow us on Twitter and Facebook", "Subscribe now to
// our edition for the full story". A paragraph is one when it is short
// (300 characters at most) and says so in words that rarely describe
// anything else: a follow verb with a social network, a subscribe verb,
// or three social networks named at once. An app's line ("download our
// app on Google Play") is not one: articles about apps say the same
// (measured: two readability pages lost a paragraph).

// followVerbs ask a reader to follow or join the site.
var followVerbs = []string{"follow us", "follow the ", "follow me", "follow @", "like us on", "join us on",
	"join our", "síguenos", "siguenos", "síganos", "folgen sie uns", "folge uns", "folgt uns", "suivez-nous",
	"suivez nous", "seguici", "siga-nos", "obserwuj nas", "volg ons", "únete"}

// subscribeVerbs ask a reader to subscribe, or tell them they must.
var subscribeVerbs = []string{"subscribe to", "subscribe now", "please subscribe", "subscribe today",
	"sign up for our", "sign up to our", "already a subscriber", "already subscribed", "suscríbete",
	"suscribete", "jetzt abonnieren", "abonnieren sie", "abonniere unseren", "abonnez-vous", "iscriviti",
	"assine já", "assine agora", "subskrybuj", "abonneer"}

// socialNames are the networks a follow line names.
var socialNames = []string{"twitter", "facebook", "instagram", "telegram", "whatsapp", "youtube", "tiktok",
	"linkedin", "threads", "mastodon", "bluesky", "pinterest"}

// socialHints prefilter socialNames: most paragraphs name no network.
var socialHints = newHints(socialNames...)

// subscribeStems prefilter subscribeVerbs: one of them is in each.
var subscribeStems = newHints("subscri", "sign up", "suscr", "abonn", "iscriv", "assine", "subskryb")

// ctaQuads are the four bytes at offsets 0 and 1 of every hint of both
// prefilters (all are five bytes long or more), as a set of quadHash
// values: most four bytes of a paragraph are none of them.
var ctaQuads = func() *[1 << quadBits / 64]uint64 {
	var q [1 << quadBits / 64]uint64
	for _, h := range []*hints{socialHints, subscribeStems} {
		for _, list := range h.byFirst {
			for _, w := range list {
				if len(w) < 5 {
					panic("content: a call-to-action hint shorter than five bytes: " + w)
				}
				for off := range 2 {
					k := quadHash(binary.LittleEndian.Uint32([]byte(w[off:])))
					q[k/64] |= 1 << (k % 64)
				}
			}
		}
	}
	return &q
}()

// quadBits is the size of quadHash's values.
const quadBits = 12

// quadHash hashes four bytes to quadBits bits.
func quadHash(x uint32) uint { return uint(x*0x9e3779b1) >> (32 - quadBits) }

// ctaHints is (socialHints.inBytes(t), subscribeStems.inBytes(t)) in one
// pass over t that reads four bytes at every other position: a hint, of
// five bytes or more, that starts at i holds the four bytes at the even
// one of i and i+1, p, at its offset 0 or 1, and the hints are looked
// for at p-1 and p only where those four bytes are in ctaQuads.
func ctaHints(t []byte) (social, subscribe bool) {
	for p := 0; p+4 <= len(t) && !(social && subscribe); p += 2 {
		k := quadHash(binary.LittleEndian.Uint32(t[p:]))
		if ctaQuads[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for i := max(p-1, 0); i <= p; i++ {
			social = social || hintAt(socialHints, t, i)
			subscribe = subscribe || hintAt(subscribeStems, t, i)
		}
	}
	return social, subscribe
}

// hintAt tells whether one of h's hints of two bytes or more starts at
// t[i].
func hintAt(h *hints, t []byte, i int) bool {
	for _, w := range h.byFirst[t[i]] {
		if len(t)-i >= len(w) && string(t[i:i+len(w)]) == w {
			return true
		}
	}
	return false
}

// ctaParagraph tells whether a <p> of the article is a call to action.
func ctaParagraph(n *html.Node) bool {
	if n.DataAtom != atom.P {
		return false
	}
	l := textWithin(n, 300)
	if l < 15 {
		return false
	}
	var buf [1280]byte
	t := lowerText(n, buf[:0])
	hasSocial, hasSubscribe := ctaHints(t)
	social := 0
	if hasSocial {
		for _, s := range socialNames {
			if bytes.Contains(t, []byte(s)) {
				social++
			}
		}
	}
	switch {
	case social >= 3 && l <= 200:
		return true
	case social >= 1 && bytesContainAny(t, followVerbs):
		return true
	}
	return hasSubscribe && bytesContainAny(t, subscribeVerbs)
}

func bytesContainAny(t []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(t, []byte(w)) {
			return true
		}
	}
	return false
}

// lowerText appends the text of n's subtree to buf, white space
// collapsed to single spaces and lower-cased, up to cap(buf) bytes
// (a short text fits: four bytes a character at most).
func lowerText(n *html.Node, buf []byte) []byte {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s := c.Data
			for i := 0; i < len(s); {
				// ASCII, most of the text, is read through lowerKinds
				// (unicode.IsSpace and unicode.ToLower agree with it
				// there), and a run of bytes it keeps as they are is
				// copied at once.
				switch lowerKinds[s[i]] {
				case lowerKeep:
					j := i + 1
					for j < len(s) && lowerKinds[s[j]] == lowerKeep {
						j++
					}
					if room := cap(buf) - len(buf); j-i > room {
						return append(buf, s[i:i+room]...)
					}
					buf = append(buf, s[i:j]...)
					i = j
					continue
				case lowerUpper:
					if len(buf) == cap(buf) {
						return buf
					}
					buf = append(buf, s[i]+'a'-'A')
					i++
					continue
				case lowerSpace:
					i++
					if len(buf) > 0 && buf[len(buf)-1] != ' ' && len(buf) < cap(buf) {
						buf = append(buf, ' ')
					}
					continue
				}
				r, size := utf8.DecodeRuneInString(s[i:])
				i += size
				if unicode.IsSpace(r) {
					if len(buf) > 0 && buf[len(buf)-1] != ' ' && len(buf) < cap(buf) {
						buf = append(buf, ' ')
					}
					continue
				}
				r = unicode.ToLower(r)
				if len(buf)+utf8.RuneLen(r) > cap(buf) {
					return buf
				}
				buf = utf8.AppendRune(buf, r)
			}
		case html.ElementNode:
			if c.DataAtom != atom.Script {
				buf = lowerText(c, buf)
			}
		}
	}
	return buf
}

// What lowerText does with a byte: an ASCII byte kept as it is, an ASCII
// capital letter lower-cased, ASCII white space (unicode.IsSpace's
// '\t', '\n', '\v', '\f', '\r' and ' ') collapsed, the first byte of
// another character decoded.
const (
	lowerKeep = iota
	lowerUpper
	lowerSpace
	lowerRune
)

var lowerKinds = func() (k [256]uint8) {
	for c := utf8.RuneSelf; c < 256; c++ {
		k[c] = lowerRune
	}
	for c := 'A'; c <= 'Z'; c++ {
		k[c] = lowerUpper
	}
	for _, c := range "\t\n\v\f\r " {
		k[c] = lowerSpace
	}
	return k
}()

// hasNonASCII tells whether s has a byte firstText did not lower-case.
func hasNonASCII(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}
