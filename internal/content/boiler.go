package content

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Boilerplate inside the chosen article: blocks whose class or id names
// what they are (related stories, dates and bylines, author boxes,
// newsletter boxes, photo credits, ...) and teaser cards of other
// posts; lines whose words say it are in lines.go.
// Class and id values are read as words, split at punctuation and at
// lower-to-upper case changes and compared lower-cased, so that
// "related-article" is a list of related stories whatever "article"
// says, while "relative" or "unrelated" are nothing.

// boilerKind is a family of boilerplate.
type boilerKind uint8

const (
	kindRelated boilerKind = 1 << iota // related stories, recommendations, "more news"
	kindPopup                          // modals, popups, cookie banners, hover cards
	kindMeta                           // dates, bylines, categories, breadcrumbs, tag lists
	kindBio                            // about-the-author boxes
	kindCTA                            // newsletter, subscribe, follow us, ads, affiliate notes, paywalls
	kindCredit                         // photo credits and copyright lines
)

// classWords names the families by the words of class and id values.
// Two consecutive words of one name are also looked up joined
// ("most-read" as "mostread").
var classWords = map[string]boilerKind{
	"related": kindRelated, "recommended": kindRelated, "recommendations": kindRelated,
	"recirculation": kindRelated, "recirc": kindRelated, "outbrain": kindRelated, "taboola": kindRelated,
	"plista": kindRelated, "trending": kindRelated, "popular": kindRelated, "mostread": kindRelated,
	"mostpopular": kindRelated, "morestories": kindRelated, "morearticles": kindRelated, "morenews": kindRelated,
	"moreposts": kindRelated, "readnext": kindRelated, "nextpost": kindRelated, "prevpost": kindRelated,
	"postnavigation": kindRelated, "teasers": kindRelated, "backlink": kindRelated,

	"modal": kindPopup, "popup": kindPopup, "popover": kindPopup, "overlay": kindPopup, "cookie": kindPopup,
	"cookies": kindPopup, "cookiebanner": kindPopup, "consent": kindPopup, "gdpr": kindPopup,
	"tooltip": kindPopup, "hovercard": kindPopup, "interstitial": kindPopup,

	"meta": kindMeta, "postmeta": kindMeta, "entrymeta": kindMeta, "byline": kindMeta, "bylines": kindMeta,
	"dateline": kindMeta, "date": kindMeta, "dates": kindMeta, "timestamp": kindMeta, "published": kindMeta,
	"updated": kindMeta, "posted": kindMeta, "postedon": kindMeta, "pubdate": kindMeta, "author": kindMeta,
	"authors": kindMeta, "breadcrumb": kindMeta, "breadcrumbs": kindMeta, "crumbs": kindMeta,
	"category": kindMeta, "categories": kindMeta, "tag": kindMeta, "tags": kindMeta, "tagged": kindMeta,
	"taglist": kindMeta, "keywords": kindMeta, "kicker": kindMeta, "readtime": kindMeta,
	"postmetadata": kindMeta, "entryutility": kindMeta,

	"bio": kindBio, "authorbio": kindBio, "authorbox": kindBio, "abh": kindBio, "saboxplugin": kindBio,

	"newsletter": kindCTA, "subscribe": kindCTA, "subscription": kindCTA, "signup": kindCTA, "optin": kindCTA,
	"follow": kindCTA, "donate": kindCTA, "donation": kindCTA, "cta": kindCTA, "promo": kindCTA,
	"affiliate": kindCTA, "disclosure": kindCTA, "disclaimer": kindCTA, "advert": kindCTA,
	"advertisement": kindCTA, "ad": kindCTA, "ads": kindCTA, "adslot": kindCTA, "adspot": kindCTA,
	"adunit": kindCTA, "dfp": kindCTA, "sponsored": kindCTA, "anzeige": kindCTA, "werbung": kindCTA,
	"paywall": kindCTA, "regwall": kindCTA, "contact": kindCTA,

	"credit": kindCredit, "credits": kindCredit, "copyright": kindCredit, "photocredit": kindCredit,
	"imagecredit": kindCredit, "bildnachweis": kindCredit, "fotocredit": kindCredit,
}

// classWordStarts are the first two letters of classWords: most words
// of class names are passed over by them, without a map lookup.
var classWordStarts = func() *pairSet {
	var p pairSet
	for w := range classWords {
		p.add(w[0], w[1])
	}
	return &p
}()

// pairSet is a set of two-byte strings.
type pairSet [1 << 16 / 64]uint64

func (p *pairSet) add(a, b byte) {
	k := uint(a)<<8 | uint(b)
	p[k/64] |= 1 << (k % 64)
}

func (p *pairSet) has(a, b byte) bool {
	k := uint(a)<<8 | uint(b)
	return p[k/64]&(1<<(k%64)) != 0
}

// classPrefix is a word recognised at the start of a longer one.
type classPrefix struct {
	word string
	kind boilerKind
}

// classPrefixes are distinctive words also recognised at the start of a
// word written without separators ("relatedposts").
var classPrefixes = []classPrefix{
	{"related", kindRelated}, {"recommend", kindRelated}, {"breadcrumb", kindMeta}, {"byline", kindMeta},
	{"dateline", kindMeta}, {"timestamp", kindMeta}, {"newsletter", kindCTA}, {"subscribe", kindCTA},
	{"advert", kindCTA}, {"sponsor", kindCTA}, {"paywall", kindCTA},
}

// prefixesByFirst are the classPrefixes by their first byte: every
// word of a class or id value is looked up.
var prefixesByFirst = func() (b [256][]classPrefix) {
	for _, p := range classPrefixes {
		b[p.word[0]] = append(b[p.word[0]], p)
	}
	return b
}()

// classKinds returns the boilerplate families that the class and id of
// n name.
func classKinds(n *html.Node) boilerKind { return kindsMemo(nil).classKinds(n) }

// kindsMemo keeps wordsKinds of the class values one dropBoilerplate
// has read: the class values of a page repeat ("literal", "command" on
// hundreds of elements), its ids seldom (they are read each time). It
// holds at most kindsMemoMax values of at most kindsMemoLen bytes;
// others are read each time.
type kindsMemo map[string]boilerKind

const (
	kindsMemoMax = 256
	kindsMemoLen = 2048
)

// classKinds is classKinds(n), through the memo (none when m is nil).
func (m kindsMemo) classKinds(n *html.Node) boilerKind {
	var k boilerKind
	for _, a := range n.Attr {
		if a.Namespace == "" {
			switch a.Key {
			case "class":
				k |= m.wordsKinds(a.Val)
			case "id":
				k |= wordsKinds(a.Val)
			}
		}
	}
	return k
}

func (m kindsMemo) wordsKinds(v string) boilerKind {
	if m == nil || len(v) > kindsMemoLen {
		return wordsKinds(v)
	}
	if k, ok := m[v]; ok {
		return k
	}
	k := wordsKinds(v)
	if len(m) < kindsMemoMax {
		m[v] = k
	}
	return k
}

// wordsKinds reads a class or id value word by word without allocating:
// each word is lower-cased into a buffer and looked up, alone and joined
// to the word before it within the same name. A name that states a
// condition of the block ("has-related-posts", "with-sharing") says
// what the block holds or shows, not what it is, and is skipped.
func wordsKinds(v string) boilerKind {
	var k boilerKind
	var word, prev [32]byte
	prevLen := 0
	nameStart := true
	for i := 0; i < len(v); {
		for i < len(v) && !alnum(v[i]) {
			if v[i] == ' ' || v[i] == '\t' || v[i] == '\n' {
				prevLen = 0 // a new name
				nameStart = true
			}
			i++
		}
		if nameStart && stateModifier(v[i:]) {
			for i < len(v) && v[i] != ' ' && v[i] != '\t' && v[i] != '\n' {
				i++
			}
			continue
		}
		nameStart = false
		start := i
		for i < len(v) && alnum(v[i]) && !(i > start && isUpper(v[i]) && !isUpper(v[i-1])) {
			i++
		}
		if i == start {
			continue
		}
		if i-start > len(word) {
			prevLen = 0
			continue
		}
		n := copy(word[:], v[start:i])
		for j := range n {
			if isUpper(word[j]) {
				word[j] += 'a' - 'A'
			}
		}
		w := word[:n]
		if n > 1 && classWordStarts.has(w[0], w[1]) {
			k |= classWords[string(w)]
		}
		for _, p := range prefixesByFirst[w[0]] {
			if len(w) > len(p.word) && string(w[:len(p.word)]) == p.word {
				k |= p.kind
			}
		}
		if prevLen > 0 {
			var pair [64]byte
			m := copy(pair[:], prev[:prevLen])
			m += copy(pair[m:], w)
			if classWordStarts.has(pair[0], pair[1]) {
				k |= classWords[string(pair[:m])]
			}
		}
		prevLen = copy(prev[:], w)
	}
	return k
}

// stateModifier tells whether a class name starts with a word that makes
// it a condition of its block.
// It runs on every class name the passes read, so the first byte is
// tested before any prefix, and the prefixes are compared in ASCII: a
// prefix of these bytes in any other case folding (strings.EqualFold)
// would hold a character of two bytes or more, which leaves fewer
// characters than the prefix has.
func stateModifier(name string) bool {
	if name == "" {
		return false
	}
	switch name[0] | 0x20 {
	case 'h', 'w', 'n', 'e', 's':
	default:
		return false
	}
	for _, p := range stateModifiers {
		if len(name) >= len(p) && asciiPrefixFold(name, p) {
			return true
		}
	}
	return false
}

var stateModifiers = [...]string{"has-", "has_", "with-", "with_", "no-", "no_", "enable-", "show-"}

// asciiPrefixFold tells whether s starts with p (lower-case ASCII)
// in any case, s at least as long as p.
func asciiPrefixFold(s, p string) bool {
	for i := 0; i < len(p); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// dropBoilerplate removes from an extracted article the blocks whose
// class or id names a boilerplate family, the
// nested <article> elements that are teasers of other posts and the
// label lines (see labelLine). A block holding half of the article's
// text or more is kept whatever its name: it is the article's own
// wrapper ("content has-related-posts").
func dropBoilerplate(art *html.Node) {
	total := -1 // measured at the first block that needs it, before any removal
	holdsHalf := func(l int) bool {
		if total < 0 {
			total = textStats(art, nil).length
		}
		return 2*l >= total
	}
	// The article is a list of teasers (a guide's restaurants, a
	// blog's posts) when the teasers in runs hold half its text: they
	// are its content, not the other posts beside it. Measured at the
	// first teaser, before any removal.
	list := -1
	teaserList := func() bool {
		if list < 0 {
			length, count := runTeasers(art)
			list = 0
			if count >= minTeasers && holdsHalf(length) {
				list = 1
			}
		}
		return list == 1
	}
	memo := make(kindsMemo)
	removeTags(art, func(n *html.Node) bool {
		if !offLabelLines && labelLine(n) || !offCTAProse && ctaParagraph(n) {
			traceClean(art, "boiler label/cta line", n)
			return true
		}
		nested := !offTeasers && n.DataAtom == atom.Article && n.Parent != art
		k := memo.classKinds(n) &^ kindsOff
		if k == 0 && !nested {
			return false
		}
		st := textStats(n, nil)
		if holdsHalf(st.length) {
			return false
		}
		// Another post's teaser, but on a list of them.
		if nested && teaser(n, st) {
			if !offTeaserList && teaserList() {
				traceClean(art, "spared: teaser list", n)
				return false
			}
			if CleanTrace != nil {
				CleanTrace(art, fmt.Sprintf("boiler nested teaser (length %d, article %d)", st.length, total), n)
			}
			return true
		}
		// An inline element counts only as a line of its own: a
		// link with class "meta-loc" inside a sentence is words. A
		// credit is inline in its caption.
		if isPhrasing(n) && k&kindCredit == 0 && !alone(n, st.length) {
			return false
		}
		switch {
		case k&(kindRelated|kindBio|kindCTA) != 0:
			traceClean(art, "boiler named related/bio/cta", n)
			return true
		case k&kindCredit != 0:
			if st.length < 200 && !inCaption(n) {
				traceClean(art, "boiler named credit", n)
				return true
			}
			return false
		case k&kindMeta != 0:
			// Dates, bylines and tag lists are short lines; a long
			// block named "post-meta" holds more than that.
			if st.length < 200 {
				traceClean(art, "boiler named meta", n)
				return true
			}
			return false
		}
		return false
	})
}

// minTeasers is the fewest teasers in runs that make an article their
// list (runTeasers).
const minTeasers = 10

// teaser tells whether a nested <article> n of text counts st is
// another post's teaser: short, and mostly links or a linked title (a
// forum's posts are <article>s too, and longer).
func teaser(n *html.Node, st stats) bool {
	return st.length < 500 && (st.linkLen > 0.25*float64(st.length) || linkedHeading(n))
}

// runTeasers returns the text length and the number of the nested
// <article> elements of art that are teasers (teaser) and items of a
// run (inItemRun: three siblings of their tag and first class word or
// more). It does not look inside an <article> below art's children, so
// it reads each node once, and each teaser's siblings at most
// 2*maxRunLook times.
func runTeasers(art *html.Node) (length, count int) {
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Article && c.Parent != art {
				if st := textStats(c, nil); teaser(c, st) && inItemRun(c) {
					length += st.length
					count++
				}
				continue
			}
			walk(c)
		}
	}
	walk(art)
	return length, count
}

// alone tells whether an inline element of text length l is all the
// text of its parent: a line of its own.
func alone(n *html.Node, l int) bool {
	return n.Parent != nil && textWithin(n.Parent, l+2) >= 0
}

// textWithin returns the collapsed text length of n's subtree, or -1 as
// soon as it exceeds limit: tests of short lines, run on every element,
// stop early on long ones.
func textWithin(n *html.Node, limit int) int {
	var st stats
	if !addTextWithin(n, limit, true, &st) {
		return -1
	}
	return st.length
}

// addTextWithin adds the text of n's subtree to st until its length
// passes limit, and then tells false. With prefix, a text too long to
// be within the limit may be judged by a prefix: the length st holds is
// then not the exact length read so far.
func addTextWithin(n *html.Node, limit int, prefix bool, st *stats) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			// A long text is first counted by a prefix: a text is at
			// least as long as any prefix of it, and four bytes a
			// character is the most UTF-8 takes.
			if s := c.Data; prefix && len(s) > 4*(limit+1) {
				var pre stats
				countText(s[:4*(limit+1)], 0, &pre)
				if st.length+pre.length > limit {
					return false
				}
			}
			countText(c.Data, 0, st)
		case html.ElementNode:
			if c.DataAtom != atom.Script && !addTextWithin(c, limit, prefix, st) {
				return false
			}
		}
		if st.length > limit {
			return false
		}
	}
	return true
}

// linkedHeading tells whether n holds a heading that is a link: the
// title of a teaser card.
func linkedHeading(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if hasLink(c) {
				return true
			}
			continue
		}
		if linkedHeading(c) {
			return true
		}
	}
	return false
}

func hasLink(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.A || hasLink(c)) {
			return true
		}
	}
	return false
}

// leadWords name the lead paragraph of an article (standfirst, deck,
// teaser) in class and id values; itemprop="description" says it too.
var leadWords = newWordSet("lead", "lede", "intro", "teaser", "summary", "excerpt", "deck", "dek",
	"standfirst", "abstract", "chapeau", "chapo", "sumario", "bajada", "entradilla", "vorspann", "subtitle",
	"subline", "leadtext")

func leadNamed(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "itemprop":
			if strings.Contains(a.Val, "description") {
				return true
			}
		case "class", "id":
			if leadWordIn(a.Val) {
				return true
			}
		}
	}
	return false
}

// leadWordIn tells whether a class or id value holds a lead word.
func leadWordIn(v string) bool { return classWordIn(v, leadWords) }

// wordSet is a set of lower-case class words. It runs on every class
// and id value the passes read, and most words of class names are in no
// set: a word is looked up only when a word of the set starts with its
// byte and has its length.
type wordSet struct {
	words map[string]bool
	lens  [256]uint64 // bit l: a word of l bytes starts with this byte
}

func newWordSet(words ...string) *wordSet {
	s := &wordSet{words: make(map[string]bool, len(words))}
	for _, w := range words {
		if len(w) == 0 || len(w) > classWordMax {
			panic("content: a class word of " + strconv.Itoa(len(w)) + " bytes")
		}
		s.words[w] = true
		s.lens[w[0]] |= 1 << len(w)
	}
	return s
}

// classWordMax is the longest word classWordIn reads.
const classWordMax = 32

// classWordIn tells whether a class or id value holds a word of words,
// reading it as wordsKinds does, without allocating.
func classWordIn(v string, words *wordSet) bool {
	var word [classWordMax]byte
	for i := 0; i < len(v); {
		for i < len(v) && !alnum(v[i]) {
			i++
		}
		start := i
		for i < len(v) && alnum(v[i]) && !(i > start && isUpper(v[i]) && !isUpper(v[i-1])) {
			i++
		}
		// The byte|0x20 of a letter or digit is its lower case.
		if l := i - start; l == 0 || l > len(word) || words.lens[v[start]|0x20]&(1<<l) == 0 {
			continue
		}
		n := copy(word[:], v[start:i])
		for j := range n {
			if isUpper(word[j]) {
				word[j] += 'a' - 'A'
			}
		}
		if words.words[string(word[:n])] {
			return true
		}
	}
	return false
}

// findLead looks for the article's lead outside the chosen block: a
// block before it (among the preceding siblings of the block and of its
// six nearest ancestors, and three levels inside them) named as a lead,
// of prose length, with few links and no media (a "lede" image and its
// caption are not the lead). Headers that the pass dropped as unlikely
// are searched too: that is where leads live. A sibling of the block
// that joined the article (joined) is in it already: its lead would be
// copied twice.
func (r *readable) findLead(best *html.Node, joined map[*html.Node]bool) *html.Node {
	n := best
	for level := 0; level < 6 && n != nil && n != r.body; level++ {
		for c := n.PrevSibling; c != nil; c = c.PrevSibling {
			if level == 0 && joined[c] {
				continue
			}
			if l := r.leadIn(c, 3); l != nil {
				return l
			}
		}
		n = n.Parent
	}
	return nil
}

func (r *readable) leadIn(n *html.Node, depth int) *html.Node {
	if n.Type != html.ElementNode || Hidden(n) || hidingClass(strings.ToLower(attr(n, "class"))) {
		return nil
	}
	switch n.DataAtom {
	case atom.Figure, atom.Figcaption, atom.Img, atom.Picture, atom.Video, atom.Table, atom.Ul, atom.Ol, atom.Nav:
		return nil
	}
	if (leadNamed(n) || !offHgroup && subtitle(n)) && !hasMedia(n) && classKinds(n) == 0 {
		st := textStats(n, nil)
		if st.length >= 40 && st.length <= 1200 && st.linkLen < 0.2*float64(st.length) {
			// A wrapper named for the lead ("standfirst-wrapper")
			// may hold a caption beside it: the innermost block
			// named so is the lead.
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if l := r.leadIn(c, 2); l != nil {
					return l
				}
			}
			return n
		}
	}
	if depth == 0 {
		return nil
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if l := r.leadIn(c, depth-1); l != nil {
			return l
		}
	}
	return nil
}

// subtitle tells whether n is the subtitle that an <hgroup> sets under
// the article's title: a heading after its <h1>. (An <h2> that merely
// follows the <h1> was measured too: two readability pages whose
// expected text leaves the header out lost 0.0006, for two eval
// snippets.)
func subtitle(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
	default:
		return false
	}
	if n.Parent == nil || n.Parent.DataAtom != atom.Hgroup {
		return false
	}
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.H1 {
			return true
		}
	}
	return false
}

// trimLead removes from the copy of a lead what sits beside the lead
// paragraph in its block: captions, and the byline line (one that links
// or names the author: rel=author, itemprop=author).
func trimLead(lead *html.Node) {
	removeTags(lead, func(n *html.Node) bool {
		if n.DataAtom == atom.Figcaption {
			return true
		}
		return (n.DataAtom == atom.P || n.DataAtom == atom.Div) && namesAuthor(n, 3) && textWithin(n, 200) >= 0
	})
}

// namesAuthor tells whether n or an element depth levels below it is
// marked as the author (rel=author, itemprop=author).
func namesAuthor(n *html.Node, depth int) bool {
	return within(n, depth, func(e *html.Node) bool {
		return attr(e, "rel") == "author" || strings.Contains(attr(e, "itemprop"), "author")
	})
}

// within tells whether n or an element at most depth levels below it
// is one that match accepts.
func within(n *html.Node, depth int, match func(*html.Node) bool) bool {
	if match(n) {
		return true
	}
	if depth == 0 {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && within(c, depth-1, match) {
			return true
		}
	}
	return false
}

// postEmbeds are the class names of the quotes that embed a post of a
// social network: the post is text of the article, even inside a block
// named "social-embed".
var postEmbeds = newHints("twitter-tweet", "instagram-media", "tiktok-embed", "reddit-embed", "reddit-card",
	"bluesky-embed", "mastodon-embed", "fb-post", "threads-post")

// embedsPost tells whether n is or holds, depth levels down at most, the
// <blockquote> of an embedded post.
func embedsPost(n *html.Node, depth int) bool {
	return within(n, depth, func(e *html.Node) bool {
		if e.DataAtom != atom.Blockquote {
			return false
		}
		c := attr(e, "class")
		return c != "" && postEmbeds.in(c)
	})
}

// inCaption tells whether n is part of an image's caption: a
// <figcaption>, or a <figure> a few levels up. A credit there is part of
// the caption, which stays with its image.
func inCaption(n *html.Node) bool {
	for p, d := n, 0; p != nil && d < 6; p, d = p.Parent, d+1 {
		if p.DataAtom == atom.Figcaption || p.DataAtom == atom.Figure {
			return true
		}
	}
	return false
}
