package content

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// scanResult is what one walk over the whole tree gathers.
type scanResult struct {
	base  *url.URL
	meta  Metadata
	links []Link
	sig   signals
	// resolved holds the page's links as scan resolved them, for
	// absolutize.
	resolved *resolvedLinks
	// texts are the body's texts scan counted that are still in the
	// tree, in document order, with their countWords: the page-type walk
	// takes its counts from them (see textCounts).
	texts textCounts
}

// textCount is a text and its countWords.
type textCount struct {
	text  string
	words int
}

// textCounts are texts with their countWords, in the order a walk meets
// them. words gives the count of the next one to a walk that meets the
// same texts in the same order, maybe with others between: a text equal
// to the next is counted, without reading it again, any other is
// counted anew. The counts are right whatever the order; only the work
// saved depends on it.
type textCounts struct {
	list []textCount
	// cursor is find's and words's place in list; its budget bounds
	// find's look-ups as tallies bound alone's.
	cursor
}

// textLists keeps the lists of textCounts between pages: scan takes one,
// pageFeaturesBound gives it back (done).
var textLists = sync.Pool{New: func() any { return new([]textCount) }}

// maxTextList bounds the lists kept in textLists.
const maxTextList = 1 << 16

// done gives the list back to textLists, emptied; t is empty after.
func (t *textCounts) done() {
	if t.list != nil && cap(t.list) <= maxTextList {
		l := t.list[:cap(t.list)]
		clear(l) // no text kept alive by the pool
		l = l[:0]
		textLists.Put(&l)
	}
	*t = textCounts{}
}

// find returns countWords(s), from the list when s is there at or after
// the text found last (a walk of a part of the page, in the document's
// order: the selector's peeks at its views), else counted; t may be nil.
// Like tallies.alone, the look-ups pass over a bounded number of texts.
func (t *textCounts) find(s string) int {
	if t != nil && len(s) >= tallyMin {
		if i := seek(&t.cursor, t.list, textCountText, s); i >= 0 {
			return t.list[i].words
		}
	}
	return countWords(s)
}

func textCountText(t *textCount) string { return t.text }

// rewind starts a new walk for find (t may be nil).
func (t *textCounts) rewind() {
	if t != nil {
		t.cursor.rewind()
	}
}

// words returns countWords(s), from the next text when it is s.
func (t *textCounts) words(s string) int {
	if t.next < len(t.list) && t.list[t.next].text == s {
		t.next++
		return t.list[t.next-1].words
	}
	return countWords(s)
}

// scanner carries state across the single document-order walk. The
// <base> element lives in <head>, so it is seen before any body link.
type scanner struct {
	base      *url.URL
	baseSet   bool
	wantLinks bool
	seen      map[string]struct{}
	links     []Link
	resolved  resolvedLinks

	htmlLang     string
	titleTag     string
	h1           string
	metas        map[string]string   // lower-cased name/property/http-equiv → first content
	metaProperty map[string]struct{} // metas keys whose value came from property=
	canonical    string
	relAuthor    string
	timeTag      string
	itemprop     map[string]string
	jsonLD       []string
	scripts      int
	words        int
	texts        []textCount // the body's texts counted, those removed taken off
	elements     int
	noscript     strings.Builder
	emptyRoot    bool
	// noscriptTries counts the <noscript> elements weighed as content.
	noscriptTries int
	// hidden are the body's hidden elements walked and not yet removed,
	// with their texts' span in texts, in the order their walks ended
	// (see settleHidden); hiddenGone counts the words of those removed at
	// once past maxHidden.
	hidden     []hiddenBlock
	hiddenGone int
	// ld is the JSON-LD of the page, parsed by metadata.
	ld jsonLD
	// slots are the placeholders of React's streamed boundaries by id
	// (<template id="B:0">), streamed the hidden blocks that fill them
	// (<div hidden id="S:0">), in document order (see streamSlot).
	slots    map[string]*html.Node
	streamed []*html.Node
	// fallbacks are the nodes each boundary shows until its content
	// arrives, by placeholder.
	fallbacks map[*html.Node][]*html.Node
	// fallbackSteps counts the siblings fallback has looked at, against
	// maxFallbackSteps.
	fallbackSteps int
}

// maxStreamSlots is the most placeholders of streamed boundaries a page
// may have filled, and maxFallbackSteps the most siblings fallback looks
// at on one page: each boundary's fallback is found by walking its
// siblings to the comment that closes it, so thousands of unclosed
// placeholders in one parent would cost the square of their number in
// time and memory. Past either bound, a placeholder is left as it is
// (its fallback shown, its hidden block hidden), as without the rule.
const (
	maxStreamSlots   = 512
	maxFallbackSteps = 1 << 16
)

func scan(root *html.Node, pageURL *url.URL, wantLinks bool) scanResult {
	s := walkPage(root, pageURL, wantLinks)

	r := scanResult{base: s.base, links: s.links, resolved: &s.resolved, texts: textCounts{list: s.texts}}
	r.meta = s.metadata()
	r.sig = signals{
		isHTML:       true,
		scripts:      s.scripts,
		bodyWords:    s.words,
		elements:     s.elements,
		noscriptText: strings.ToLower(s.noscript.String()),
		emptyRoot:    s.emptyRoot,
		titleTag:     s.titleTag,
		h1:           s.h1,
		ldTypes:      s.ld.types,
	}
	return r
}

// walkPage walks the page once for scan, streamed boundaries filled.
func walkPage(root *html.Node, pageURL *url.URL, wantLinks bool) *scanner {
	s := &scanner{
		base:         pageURL,
		wantLinks:    wantLinks,
		metas:        make(map[string]string),
		metaProperty: make(map[string]struct{}),
		itemprop:     make(map[string]string),
	}
	if wantLinks {
		s.seen = make(map[string]struct{})
	}
	s.texts = (*textLists.Get().(*[]textCount))[:0]
	s.walk(root, false)
	s.settleHidden()
	s.fillSlots()
	return s
}

// hiddenBlock is a hidden element of the body that the walk kept for
// settleHidden, and the span of its texts in scanner.texts.
type hiddenBlock struct {
	node     *html.Node
	from, to int
}

// maxHidden is the most hidden elements of a page that settleHidden
// weighs; those past it are removed as they are walked.
const maxHidden = 4096

// shownFifths is the share of the body's words, in fifths, that must be
// hidden for settleHidden to show a page whole.
const shownFifths = 4

// settleHidden removes the hidden elements the walk kept, and their
// texts, unless four fifths or more of the body's words (of 100 or
// more) are hidden. Such a page is sent inside display:none wrappers
// that its script reveals (an eBay grid, a shop's product, a tutorial's
// tabs all hidden until the script runs): a browser shows what they
// hold, and without it the page would have no main content. Its hidden
// elements then stay, their hiding attributes taken off. Hidden menus,
// dialogs and panels beside a shown page hold far less of its words.
func (s *scanner) settleHidden() {
	if len(s.hidden) == 0 {
		return
	}
	// Spans nest (an inner element's walk ends first) or are disjoint:
	// keep the outermost, in document order.
	spans := make([]hiddenBlock, 0, len(s.hidden))
	for _, h := range s.hidden {
		for len(spans) > 0 && spans[len(spans)-1].from >= h.from {
			spans = spans[:len(spans)-1]
		}
		spans = append(spans, h)
	}
	hidden := s.hiddenGone
	for _, h := range spans {
		for _, t := range s.texts[h.from:h.to] {
			hidden += t.words
		}
	}
	if !offUnhide && s.words >= 100 && hidden*5 >= s.words*shownFifths {
		for _, h := range s.hidden {
			h.node.Attr = slices.DeleteFunc(h.node.Attr, func(a html.Attribute) bool {
				return a.Namespace == "" && (a.Key == "hidden" || a.Key == "aria-hidden" || a.Key == "style")
			})
		}
		s.hidden = nil
		return
	}
	for _, h := range s.hidden {
		if h.node.Parent != nil {
			h.node.Parent.RemoveChild(h.node)
		}
	}
	kept, next := s.texts[:spans[0].from], spans[0].from
	for _, h := range spans {
		kept = append(kept, s.texts[next:h.from]...)
		next = h.to
	}
	s.texts = append(kept, s.texts[next:]...)
	s.hidden = nil
}

// hiddenOnly tells whether removable would remove n for being hidden
// alone (not as a comment, script, style or other element never shown).
func hiddenOnly(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Rt, atom.Rp, atom.Script:
		return false
	}
	return true
}

// walk visits n and its subtree. inBody tells whether visible text counts.
func (s *scanner) walk(n *html.Node, inBody bool) {
	switch n.Type {
	case html.TextNode:
		// A soft hyphen is shown only where a line breaks inside the
		// word; in text and markdown it splits the word for search.
		// (Its first byte, 0xC2, is looked for first: most texts have
		// none, and IndexByte costs less than Contains on short texts.)
		if !offSoftHyphen && strings.IndexByte(n.Data, 0xC2) >= 0 && strings.Contains(n.Data, "\u00ad") {
			n.Data = strings.ReplaceAll(n.Data, "\u00ad", "")
		}
		if inBody {
			k := countWords(n.Data)
			s.words += k
			s.texts = append(s.texts, textCount{n.Data, k})
		}
		return
	case html.ElementNode:
		s.elements++
	default:
		s.walkChildren(n, inBody)
		return
	}

	switch n.DataAtom {
	case atom.Html:
		if v := attr(n, "lang"); v != "" && s.htmlLang == "" {
			s.htmlLang = v
		}
	case atom.Body:
		inBody = true
	case atom.Title:
		// An <svg> may hold its own <title>; only the first document title counts.
		if s.titleTag == "" && n.Namespace == "" {
			s.titleTag = collapse(nodeText(n))
		}
		return
	case atom.Base:
		if !s.baseSet {
			if href := attr(n, "href"); href != "" {
				if u := resolve(s.base, href); u != nil {
					s.base = u
				}
			}
			s.baseSet = true
		}
	case atom.Meta:
		s.meta(n)
	case atom.Link:
		rel := strings.ToLower(attr(n, "rel"))
		if hasToken(rel, "canonical") && s.canonical == "" {
			s.canonical = attr(n, "href")
		}
	case atom.Script:
		s.scripts++
		if strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") && len(s.jsonLD) < 8 {
			s.jsonLD = append(s.jsonLD, nodeText(n))
		}
		return
	case atom.Style, atom.Template:
		return
	case atom.Noscript:
		if s.noscript.Len() < 2048 {
			s.noscript.WriteString(nodeText(n))
			s.noscript.WriteByte(' ')
		}
		return
	case atom.H1:
		if s.h1 == "" {
			s.h1 = collapse(nodeText(n))
		}
	case atom.Time:
		if s.timeTag == "" {
			if v := attr(n, "datetime"); v != "" {
				s.timeTag = v
			}
		}
	case atom.Div, atom.Main, atom.Section:
		if inBody && !s.emptyRoot && isAppRoot(n) {
			s.emptyRoot = true
		}
	case atom.A:
		href := attr(n, "href")
		if hasToken(strings.ToLower(attr(n, "rel")), "author") && s.relAuthor == "" {
			s.relAuthor = collapse(nodeText(n))
		}
		if s.wantLinks && href != "" {
			s.addLink(href, n)
		}
	}
	if p := attr(n, "itemprop"); p != "" {
		s.itemprops(n, p)
	}
	s.walkChildren(n, inBody)
}

// walkChildren walks the children of n and then drops those that never
// carry readable content (comments, scripts, styles, noscript, template,
// svg), once their facts are recorded: every later stage (extraction
// clones the tree three times, markdown, text) then works on a smaller
// tree. JSON-LD scripts stay, as extraction may fall back on articleBody.
func (s *scanner) walkChildren(n *html.Node, inBody bool) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if inBody && c.DataAtom == atom.Noscript && c.Type == html.ElementNode && s.noscriptTries < maxNoscriptTries && !offNoscript {
			if first := s.expandNoscript(n, c); first != nil {
				next = first // walk the parsed content in its place
				continue
			}
		}
		if inBody && c.Type == html.ElementNode && !offStream && s.streamSlot(c) {
			next = c.NextSibling
			continue
		}
		texts := len(s.texts)
		s.walk(c, inBody)
		if removable(c) {
			if inBody && hiddenOnly(c) {
				if len(s.hidden) < maxHidden {
					s.hidden = append(s.hidden, hiddenBlock{c, texts, len(s.texts)})
					continue
				}
				for _, t := range s.texts[texts:] {
					s.hiddenGone += t.words
				}
			}
			n.RemoveChild(c)
			s.texts = s.texts[:texts]
		}
	}
}

// React's streamed server rendering sends a boundary's fallback (a
// spinner, an empty shell) in place, marked <!--$?--><template
// id="B:0"></template>…<!--/$-->, and its content later in the page as
// <div hidden id="S:0">…</div> with a script that moves the content into
// the placeholder, replacing the fallback; a segment sent later fills
// its placeholder (<template id="P:5">) the same way, without a
// fallback. The ids of boundaries and segments come from one counter.
// Without scripts the article of such a page is hidden text at the end
// of the body. streamSlot keeps both for fillSlots, which puts the
// content in place of the fallback: it walks a hidden block whose
// placeholder came before it and keeps it, and returns whether it
// handled c. A hidden "S:" block without its placeholder stays hidden;
// a placeholder without its block keeps its fallback.
func (s *scanner) streamSlot(c *html.Node) bool {
	switch c.DataAtom {
	case atom.Template:
		id := attr(c, "id")
		boundary := strings.HasPrefix(id, "B:")
		if !boundary && !strings.HasPrefix(id, "P:") {
			return false
		}
		if s.slots == nil {
			s.slots = make(map[string]*html.Node)
		}
		if _, dup := s.slots[id[2:]]; dup || len(s.slots) >= maxStreamSlots {
			return false
		}
		s.slots[id[2:]] = c
		if boundary {
			s.fallback(c)
		}
		return true
	case atom.Div:
		if s.slots == nil {
			return false
		}
		id := attr(c, "id")
		if !strings.HasPrefix(id, "S:") || s.slots[id[2:]] == nil || !hasAttr(c, "hidden") {
			return false
		}
		s.walk(c, true)
		s.streamed = append(s.streamed, c)
		return true
	}
	return false
}

// fallback records the siblings after a boundary's placeholder up to
// the comment that closes the boundary (<!--/$-->), nested boundaries
// counted: what a browser shows until the content arrives, and still
// shows when the page holds no content for it. None when the boundary
// is not closed.
func (s *scanner) fallback(slot *html.Node) {
	depth := 0
	end := slot.NextSibling
	for ; end != nil; end = end.NextSibling {
		if s.fallbackSteps >= maxFallbackSteps {
			return
		}
		s.fallbackSteps++
		if end.Type != html.CommentNode {
			continue
		}
		if end.Data == "$" || end.Data == "$?" || end.Data == "$!" {
			depth++
		} else if end.Data == "/$" {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	if end == nil || end == slot.NextSibling {
		return
	}
	if s.fallbacks == nil {
		s.fallbacks = make(map[*html.Node][]*html.Node)
	}
	for c := slot.NextSibling; c != end; c = c.NextSibling {
		if c.Type != html.CommentNode {
			s.fallbacks[slot] = append(s.fallbacks[slot], c)
		}
	}
}

// fillSlots moves each streamed block's content into its placeholder,
// as React's script does, and removes the placeholders left empty.
func (s *scanner) fillSlots() {
	for _, d := range s.streamed {
		id := attr(d, "id")[2:]
		slot := s.slots[id]
		if slot == nil || slot.Parent == nil || d.Parent == nil || isAncestor(d, slot) {
			continue
		}
		for _, f := range s.fallbacks[slot] {
			if f.Parent == slot.Parent {
				f.Parent.RemoveChild(f)
			}
		}
		for k := d.FirstChild; k != nil; k = d.FirstChild {
			d.RemoveChild(k)
			slot.Parent.InsertBefore(k, slot)
		}
		d.Parent.RemoveChild(d)
		slot.Parent.RemoveChild(slot)
		delete(s.slots, id)
	}
	for _, slot := range s.slots {
		if slot.Parent != nil {
			slot.Parent.RemoveChild(slot)
		}
	}
	for _, d := range s.streamed {
		if d.Parent != nil {
			d.Parent.RemoveChild(d)
		}
	}
}

// maxNoscript is the most markup of one <noscript> parsed as content,
// and maxNoscriptTries the most <noscript> elements of a page weighed
// for it: each is weighed against its siblings, so a page of thousands
// of them costs no more than a few passes over it.
const (
	maxNoscript      = 1 << 20
	maxNoscriptTries = 32
)

// noscriptsWeighed counts the <noscript> elements weighed as content,
// over all pages (tests read it, as they read fallbacks).
var noscriptsWeighed atomic.Int64

// expandNoscript replaces a <noscript> that stands in for a block a
// script renders (Blogger's posts are a <script type="text/template">
// followed by the same post in <noscript>) by its markup parsed as
// HTML, and returns the first node put in its place (nil when it stays
// a <noscript>). The HTTP tier runs no script, so the <noscript> is
// what such a page shows; it stands in for the block only when it
// holds prose (paragraphs, 200 characters of text or more) and
// nothing else in its parent has text (but the page's chrome or a
// shell's loading line of 40 characters or fewer, when the <noscript>
// holds a marked thread: crawlerThread), so a rendered page
// (the browser tier) that shows the block does not get it twice, and the usual
// "please enable JavaScript" or tracking-pixel <noscript> stays out.
func (s *scanner) expandNoscript(parent, ns *html.Node) *html.Node {
	raw := ns.FirstChild
	if raw == nil || raw.Type != html.TextNode || raw.NextSibling != nil || len(raw.Data) < 200 ||
		len(raw.Data) > maxNoscript || !strings.Contains(raw.Data, "<p") && !strings.Contains(raw.Data, "<P") {
		return nil
	}
	s.noscriptTries++
	noscriptsWeighed.Add(1)
	chrome := false // a sibling with text is the page's chrome or a loading line
	walked := true  // c comes before ns: the walk has been through it
	for c := parent.FirstChild; c != nil; c = c.NextSibling {
		if c == ns {
			walked = false
			continue
		}
		if c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Template ||
			c.DataAtom == atom.Style || c.DataAtom == atom.Noscript) {
			continue
		}
		if walked && hiddenOnly(c) && removable(c) {
			continue // kept for settleHidden, as good as removed
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" || c.Type == html.ElementNode && hasText(c) {
			if c.Type != html.ElementNode || offCrawler || !pageChrome(c) && textWithin(c, 40) < 0 {
				return nil
			}
			chrome = true
		}
	}
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(raw.Data), ctx)
	if err != nil || len(nodes) == 0 {
		return nil
	}
	holder := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, k := range nodes {
		holder.AppendChild(k)
	}
	// A <noscript> inside is never expanded in turn: its raw text is a
	// tail of this one's, and a chain of them would parse the same bytes
	// once per level.
	removeTags(holder, func(n *html.Node) bool { return n.DataAtom == atom.Noscript })
	if holder.FirstChild == nil || textWithin(holder, 199) >= 0 || chrome && !crawlerThread(holder) {
		return nil
	}
	first := holder.FirstChild
	for k := holder.FirstChild; k != nil; k = holder.FirstChild {
		holder.RemoveChild(k)
		parent.InsertBefore(k, ns)
	}
	parent.RemoveChild(ns)
	return first
}

// pageChrome reports whether n is the page's banner, navigation or
// footer (the element or its landmark role). Beside a script shell's
// <noscript> view of a thread (Discourse's crawler view, under a theme's
// custom header) it is not a rendered copy of the thread.
func pageChrome(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Header, atom.Nav, atom.Footer:
		return true
	}
	switch strings.ToLower(strings.TrimSpace(attr(n, "role"))) {
	case "banner", "navigation", "contentinfo":
		return true
	}
	return false
}

// crawlerThread reports whether n holds a thread of two posts or more
// marked with schema.org microdata (postType), as forum software writes
// its view for clients without scripts (Discourse's <noscript
// data-path> crawler view marks each post DiscussionForumPosting).
func crawlerThread(n *html.Node) bool {
	// An iterative walk: the markup is hostile input, nested at will.
	posts := 0
	for d := n.FirstChild; d != nil; d = nextWithin(d, n) {
		if postType(d) != "" {
			if posts++; posts >= 2 {
				return true
			}
		}
	}
	return false
}

// nextWithin is the node after d in document order inside root's
// subtree (d's first child, else the next sibling of d or of its nearest
// ancestor below root that has one), or nil past root's last node: a
// walk with it is iterative, however deep the page nests.
func nextWithin(d, root *html.Node) *html.Node {
	if d.FirstChild != nil {
		return d.FirstChild
	}
	for d != root && d.NextSibling == nil {
		d = d.Parent
	}
	if d == root {
		return nil
	}
	return d.NextSibling
}

func removable(n *html.Node) bool {
	switch n.Type {
	case html.CommentNode:
		return true
	case html.ElementNode:
		switch n.DataAtom {
		case atom.Style, atom.Noscript, atom.Template, atom.Svg:
			return true
		case atom.Rt, atom.Rp:
			// Ruby annotations (furigana) are set above the text they
			// read; inline they would break every word they gloss.
			return true
		case atom.Script:
			return !strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json")
		}
		return Hidden(n)
	}
	return false
}

func (s *scanner) meta(n *html.Node) {
	content := attr(n, "content")
	if content == "" {
		return
	}
	for _, key := range []string{"property", "name", "http-equiv", "itemprop"} {
		k := strings.ToLower(strings.TrimSpace(attr(n, key)))
		if k == "" {
			continue
		}
		// Some pages put several properties in one attribute ("og:title
		// twitter:title"); "DC.title" and "dc:title" are the same key.
		for f := range strings.FieldsSeq(k) {
			f = strings.ReplaceAll(f, ".", ":")
			_, seen := s.metas[f]
			_, fromProperty := s.metaProperty[f]
			// The first value wins, but a property= beats a name=.
			if !seen || (key == "property" && !fromProperty) {
				s.metas[f] = strings.TrimSpace(content)
				if key == "property" {
					s.metaProperty[f] = struct{}{}
				}
			}
		}
	}
}

func (s *scanner) itemprops(n *html.Node, p string) {
	for f := range strings.FieldsSeq(strings.ToLower(p)) {
		if _, ok := s.itemprop[f]; ok {
			continue
		}
		var v string
		switch f {
		case "datepublished":
			v = attr(n, "datetime")
			if v == "" {
				v = attr(n, "content")
			}
		case "author", "name", "headline":
			v = attr(n, "content")
			if v == "" {
				v = collapse(nodeText(n))
			}
		default:
			continue
		}
		if v != "" {
			s.itemprop[f] = v
		}
	}
}

func (s *scanner) addLink(href string, n *html.Node) {
	href = strings.TrimSpace(href)
	if href == "" || href[0] == '#' {
		return
	}
	r := s.resolved.resolve(s.base, href)
	if r == nil {
		return
	}
	switch r.Scheme {
	case "http", "https", "mailto", "tel", "ftp":
	default:
		return
	}
	u := *r // r is the memo's
	u.Fragment = ""
	u.RawFragment = ""
	abs := u.String()
	if _, dup := s.seen[abs]; dup {
		return
	}
	s.seen[abs] = struct{}{}
	text := collapse(nodeText(n))
	if text == "" {
		text = attr(n, "title")
	}
	if text == "" {
		text = attr(n, "aria-label")
	}
	s.links = append(s.links, Link{URL: abs, Text: text})
}

// isAppRoot tells whether n is an empty mount point of a client-side
// application: <div id="root"></div>, <div id="__next"></div>, ...
func isAppRoot(n *html.Node) bool {
	switch strings.ToLower(attr(n, "id")) {
	case "root", "app", "__next", "__nuxt", "___gatsby", "app-root", "main-app", "svelte":
	default:
		if _, ok := attrOK(n, "data-reactroot"); !ok {
			if _, ok := attrOK(n, "ng-app"); !ok {
				return false
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return false
			}
		case html.ElementNode:
			if c.DataAtom != atom.Script && c.DataAtom != atom.Noscript {
				return false
			}
		}
	}
	return true
}

// Hidden tells whether a browser would not display n: the hidden
// attribute, aria-hidden="true" or an inline display:none or
// visibility:hidden. It is the one test of hiding for the content
// pipeline and for monitors' change detection (internal/monitor/detect),
// so a page's hidden text is left out of both alike.
func Hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "style":
			if containsFold(a.Val, "none") || containsFold(a.Val, "hidden") {
				st := strings.ToLower(strings.ReplaceAll(a.Val, " ", ""))
				if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
					return true
				}
			}
		}
	}
	return false
}

// hasAttr tells whether n has the attribute key (any value).
func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

// containsFold tells whether s holds the lower-case ASCII word sub in any
// case, without allocating (CSS keywords are case-insensitive).
// It jumps from one place of sub's first letter, in either case, to the
// next with IndexByte, each case's next place looked for again only once
// passed (linear in s).
func containsFold(s, sub string) bool {
	lower, upper := sub[0], sub[0]&^0x20
	nextLower, nextUpper := -1, -1 // the next place of each at i or after, len(s) for none
	for i := 0; i+len(sub) <= len(s); i++ {
		if nextLower < i {
			nextLower = len(s)
			if k := strings.IndexByte(s[i:], lower); k >= 0 {
				nextLower = i + k
			}
		}
		if nextUpper < i {
			nextUpper = len(s)
			if k := strings.IndexByte(s[i:], upper); k >= 0 {
				nextUpper = i + k
			}
		}
		i = min(nextLower, nextUpper)
		if i+len(sub) > len(s) {
			return false
		}
		j := 1
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// containsLower is strings.Contains(strings.ToLower(s), sub) for sub in
// lower-case ASCII letters, without the lower-cased copy when s is ASCII
// (containsFold; an ASCII byte lower-cases to an ASCII letter only from
// one). Other text goes through strings.ToLower, where some characters
// lower-case to ASCII letters (U+0130 to 'i', the Kelvin sign to 'k').
func containsLower(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	return containsFold(s, sub)
}

// metadata settles each field from the candidates the walk collected.
func (s *scanner) metadata() Metadata {
	ld := parseJSONLD(s.jsonLD)
	s.ld = ld
	m := Metadata{OpenGraph: make(map[string]string)}
	for k, v := range s.metas {
		if strings.HasPrefix(k, "og:") || strings.HasPrefix(k, "article:") || strings.HasPrefix(k, "twitter:") {
			m.OpenGraph[k] = v
		}
	}
	m.Title = s.title(ld)
	m.Description = clean(first(s.metas["description"], s.metas["dc:description"], s.metas["dcterm:description"], s.metas["og:description"], s.metas["twitter:description"], ld.description))
	m.Language = normLang(first(s.htmlLang, s.metas["content-language"], s.metas["og:locale"], s.metas["dc:language"], s.metas["language"], ld.language))
	m.SiteName = clean(first(s.metas["og:site_name"], ld.publisher, s.metas["application-name"], s.metas["twitter:site"]))
	m.Author = clean(first(ld.author, s.metas["dc:creator"], s.metas["dcterm:creator"], s.metas["author"], s.metas["parsely-author"], s.metas["article:author"], s.itemprop["author"], s.relAuthor))
	if strings.HasPrefix(m.Author, "http://") || strings.HasPrefix(m.Author, "https://") {
		// article:author is often a profile URL; a name is more useful.
		m.Author = clean(first(ld.author, s.itemprop["author"], s.relAuthor))
	}
	m.PublishedTime = pubDate(s.metas["article:published_time"], ld.published, s.itemprop["datepublished"], s.metas["parsely-pub-date"], s.metas["date"], s.metas["dc:date"], s.metas["dc:date:issued"], s.metas["publish-date"], s.metas["pubdate"], s.timeTag)
	if c := strings.TrimSpace(first(s.canonical, s.metas["og:url"])); c != "" {
		if u := resolve(s.base, c); u != nil {
			m.Canonical = u.String()
		}
	}
	if img := strings.TrimSpace(first(s.metas["og:image"], s.metas["twitter:image"], s.metas["twitter:image:src"])); img != "" {
		if u := resolve(s.base, img); u != nil {
			m.Image = u.String()
		}
	}
	return m
}

// title picks the page title in the order readers of article metadata
// use: a JSON-LD article headline or name (the one closer to the <title>
// when both exist), Dublin Core, Open Graph, meta title, Twitter,
// Parse.ly; then the <title> without its trailing " | Site" part (see
// stripSite); then the first <h1>. Declared titles are kept as they are:
// sites that put their name in og:title mean it.
func (s *scanner) title(ld jsonLD) string {
	if t := clean(ld.headline); t != "" {
		if n := clean(ld.name); n != "" && n != t && overlap(n, s.titleTag) > overlap(t, s.titleTag) {
			return n
		}
		return t
	}
	if t := clean(first(ld.name, s.metas["dc:title"], s.metas["dcterm:title"])); t != "" {
		return t
	}
	if t := clean(first(s.metas["og:title"], s.metas["title"], s.metas["twitter:title"], s.metas["parsely-title"])); t != "" {
		return t
	}
	sites := []string{s.metas["og:site_name"], ld.publisher, s.metas["application-name"]}
	if t := stripSite(clean(s.titleTag), sites); t != "" {
		return t
	}
	return clean(s.h1)
}

// titleSeparators split a title from the site name that follows it.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " :: ", " » ", " / "}

// stripSite removes the last " | Part" of a title when that part names
// the site (equals a known site name) or is short (at most three words)
// after a title of at least four words.
func stripSite(t string, sites []string) string {
	best := -1
	var sep string
	for _, p := range titleSeparators {
		if i := strings.LastIndex(t, p); i > best {
			best, sep = i, p
		}
	}
	if best <= 0 {
		return t
	}
	head, tail := strings.TrimSpace(t[:best]), strings.TrimSpace(t[best+len(sep):])
	for _, site := range sites {
		if site = clean(site); site != "" && strings.EqualFold(site, tail) {
			return head
		}
	}
	if len(strings.Fields(tail)) <= 3 && len(strings.Fields(head)) >= 4 {
		return head
	}
	return t
}

// overlap counts the words of a that also occur in b, ignoring case.
func overlap(a, b string) int {
	words := make(map[string]struct{})
	for w := range strings.FieldsSeq(strings.ToLower(b)) {
		words[w] = struct{}{}
	}
	n := 0
	for w := range strings.FieldsSeq(strings.ToLower(a)) {
		if _, ok := words[w]; ok {
			n++
		}
	}
	return n
}

type jsonLD struct {
	headline, name, description, author, published, publisher, language string
	// types lists every @type met (the page-type classifier reads them).
	types []string
}

func parseJSONLD(blocks []string) jsonLD {
	var r jsonLD
	for _, b := range blocks {
		// Some pages wrap the JSON in <![CDATA[ ... ]]> or comments.
		b = strings.TrimSpace(b)
		b = strings.TrimPrefix(strings.TrimPrefix(b, "//"), "<![CDATA[")
		b = strings.TrimSuffix(strings.TrimSuffix(b, "]]>"), "//")
		var v any
		if json.Unmarshal([]byte(strings.TrimSpace(b)), &v) != nil {
			continue
		}
		visitLD(v, &r, 0)
	}
	return r
}

func visitLD(v any, r *jsonLD, depth int) {
	if depth > 4 {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			visitLD(e, r, depth+1)
		}
	case map[string]any:
		if g, ok := t["@graph"]; ok {
			visitLD(g, r, depth+1)
		}
		r.addTypes(t["@type"])
		if m, ok := t["mainEntity"]; ok {
			visitLD(m, r, depth+1)
		}
		typ := strings.ToLower(ldString(t["@type"]))
		article := strings.Contains(typ, "article") || strings.Contains(typ, "posting") || strings.Contains(typ, "report") || typ == "webpage" || typ == "blogposting"
		if !article {
			return
		}
		set := func(dst *string, val string) {
			if *dst == "" {
				*dst = strings.TrimSpace(val)
			}
		}
		set(&r.headline, ldString(t["headline"]))
		if typ != "webpage" {
			set(&r.name, ldString(t["name"]))
		}
		set(&r.description, ldString(t["description"]))
		set(&r.author, ldName(t["author"]))
		set(&r.published, ldString(t["datePublished"]))
		set(&r.publisher, ldName(t["publisher"]))
		set(&r.language, ldString(t["inLanguage"]))
	}
}

func ldString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			return ldString(t[0])
		}
	}
	return ""
}

func ldName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		return ldString(t["name"])
	case []any:
		var names []string
		for _, e := range t {
			if n := ldName(e); n != "" {
				names = append(names, n)
			}
		}
		return strings.Join(names, ", ")
	}
	return ""
}

// normLang turns "en_US" or "en-us" into "en-US"-like tags and drops junk.
func normLang(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ",; "); i >= 0 {
		s = s[:i]
	}
	if len(s) < 2 || len(s) > 35 {
		return ""
	}
	s = strings.ReplaceAll(s, "_", "-")
	main, region, ok := strings.Cut(s, "-")
	main = strings.ToLower(main)
	if ok && len(region) == 2 {
		return main + "-" + strings.ToUpper(region)
	}
	if ok {
		return main + "-" + region
	}
	return main
}

// Helpers on nodes and strings.

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func setAttr(n *html.Node, key, val string) {
	for i := range n.Attr {
		if n.Attr[i].Namespace == "" && n.Attr[i].Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

// hasToken tells whether tok is one of the fields of list (strings.Fields).
// An ASCII list is searched for tok (IndexByte's speed, no field
// iterator) and a place counts when white space or an end is on each
// side: strings.Fields splits ASCII text at those bytes alone. A list
// with other bytes, or a tok that holds white space or other bytes or is
// empty, is read field by field (hasTokenFields).
func hasToken(list, tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf || asciiSpace[tok[i]] {
			return hasTokenFields(list, tok)
		}
	}
	for i := 0; i < len(list); i++ {
		if list[i] >= utf8.RuneSelf {
			return hasTokenFields(list, tok)
		}
	}
	for from := 0; ; {
		k := strings.Index(list[from:], tok)
		if k < 0 {
			return false
		}
		i := from + k
		end := i + len(tok)
		if (i == 0 || asciiSpace[list[i-1]]) && (end == len(list) || asciiSpace[list[end]]) {
			return true
		}
		from = i + 1
	}
}

// hasTokenFields is hasToken by strings.FieldsSeq.
func hasTokenFields(list, tok string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == tok {
			return true
		}
	}
	return false
}

// resolvedLinks remembers, for one base, what resolve gave for each
// link (by its trimmed href): scan resolves every link of the page and
// absolutize the links of the content again, a parse and a resolution
// each that the crawl paid twice for every link of a page's text. The
// URLs it returns are shared: they must not be modified.
type resolvedLinks struct {
	base *url.URL
	urls map[string]*url.URL
}

// maxResolved bounds the links remembered for a page.
const maxResolved = 4096

// resolve returns resolve(base, ref) for a trimmed ref, from memory when
// it was asked before with this base, and remembers it; another base than
// the last one starts again.
func (r *resolvedLinks) resolve(base *url.URL, ref string) *url.URL {
	if r.base != base || r.urls == nil {
		r.base, r.urls = base, make(map[string]*url.URL)
	}
	if u, ok := r.urls[ref]; ok {
		return u
	}
	u := resolve(base, ref)
	if len(r.urls) < maxResolved {
		r.urls[ref] = u
	}
	return u
}

// known is resolve(base, ref) for a trimmed ref, from memory when it
// is there; it remembers nothing new (a page converted without its links
// has nothing to gain from it).
func (r *resolvedLinks) known(base *url.URL, ref string) *url.URL {
	if r != nil && r.base == base {
		if u, ok := r.urls[ref]; ok {
			return u
		}
	}
	return resolve(base, ref)
}

func resolve(base *url.URL, ref string) *url.URL {
	ref = strings.TrimSpace(ref)
	if u := resolvePlain(base, ref); u != nil {
		return u
	}
	if u := resolveAbsolutePlain(ref); u != nil {
		return u
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	if base == nil {
		return u
	}
	return base.ResolveReference(u)
}

// resolvePlain is resolve(base, ref) for a trimmed ref and a base that
// are plain paths, the common link of a site (a page's name, a path from
// its root, with or without a fragment), or nil for any other. A plain
// path holds only the bytes that need no escape in a path or a fragment
// and read as no other part of a URL (plainPathBytes: letters, digits,
// '-', '.', '_', '~' and '/'). For them what url.Parse and
// ResolveReference do reduces to this: ref parses to its path and its
// fragment (after the first '#', plain too: Fragment as it is,
// RawFragment empty) alone (no scheme without ':', no host without a
// leading "//", no query, no escape); it takes base's scheme, user and host,
// and its path is ref itself when it begins with '/', else ref after
// base's path up to its last '/'; with no "." or ".." segment to
// remove, resolvePath returns that path with one leading '/'; and
// setPath keeps it, RawPath empty, since it holds nothing to escape.
// TestResolvePlainAsURL compares the two.
func resolvePlain(base *url.URL, ref string) *url.URL {
	ref, frag, _ := strings.Cut(ref, "#")
	if base == nil || ref == "" || base.Opaque != "" || base.RawPath != "" ||
		!plainPath(ref) || strings.HasPrefix(ref, "//") || !plainPath(frag) || !plainPath(base.Path) {
		return nil
	}
	full := ref
	if ref[0] != '/' {
		full = base.Path[:strings.LastIndexByte(base.Path, '/')+1] + ref
	}
	for seg := range strings.SplitSeq(full, "/") {
		if seg == "." || seg == ".." {
			return nil
		}
	}
	if full[0] != '/' {
		full = "/" + full
	}
	return &url.URL{Scheme: base.Scheme, User: base.User, Host: base.Host, Path: full, Fragment: frag}
}

// plainHost tells whether host is a non-empty run of ASCII letters,
// digits, '.' and '-'.
func plainHost(host string) bool {
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// resolveAbsolutePlain is resolve(base, ref) for a trimmed ref that is
// an absolute http or https URL of plain parts, the common link to
// another site, or nil for any other. Its scheme is "http" or "https"
// as written (lower-case), its host a non-empty run of ASCII letters,
// digits, '.' and '-' (no user, no port, nothing to unescape: parseHost
// keeps it), its path empty or a plain path from '/' without a "." or
// ".." segment, its fragment (after the first '#') plain, and it has no
// query. For it url.Parse sets the scheme, the host, the path (RawPath
// empty: nothing to escape) and the fragment (RawFragment empty) alone,
// and ResolveReference keeps them whatever the base: an absolute
// reference's path goes through resolvePath, which gives a path without
// dot segments back as it is (and "" for ""). TestResolvePlainAsURL
// compares the two.
func resolveAbsolutePlain(ref string) *url.URL {
	var scheme string
	switch {
	case strings.HasPrefix(ref, "https://"):
		scheme = "https"
	case strings.HasPrefix(ref, "http://"):
		scheme = "http"
	default:
		return nil
	}
	rest, frag, _ := strings.Cut(ref[len(scheme)+len("://"):], "#")
	host, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if !plainHost(host) || !plainPath(path) || !plainPath(frag) {
		return nil
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return nil
		}
	}
	return &url.URL{Scheme: scheme, Host: host, Path: path, Fragment: frag}
}

// plainPath tells whether s holds plainPathBytes only.
func plainPath(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainPathBytes[s[i]] {
			return false
		}
	}
	return true
}

var plainPathBytes = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '/'
	}
	return t
}()

// nodeText concatenates the text nodes under n, skipping scripts and styles.
func nodeText(n *html.Node) string {
	if n.FirstChild != nil && n.FirstChild == n.LastChild && n.FirstChild.Type == html.TextNode {
		return n.FirstChild.Data
	}
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
					continue
				}
				rec(c)
			}
		}
	}
	rec(n)
	return b.String()
}

// collapse trims s and folds runs of white space into one space.
func collapse(s string) string {
	s = strings.TrimSpace(s)
	if !needsCollapse(s) {
		return s
	}
	// strings.Join(strings.Fields(s), " ") without the slice of fields.
	var b strings.Builder
	b.Grow(len(s))
	for f := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

func needsCollapse(s string) bool {
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return true // non-ASCII spaces (nbsp...) need the slow path
		}
		sp := c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
		if sp && (prevSpace || c != ' ') {
			return true
		}
		prevSpace = sp
	}
	return false
}

// clean collapses white space and unescapes entities left double-escaped.
func clean(s string) string {
	s = collapse(s)
	if strings.Contains(s, "&") {
		s = html.UnescapeString(s)
	}
	return s
}

func first(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// countWords counts white-space separated words; CJK text, written
// without spaces, counts one word per two ideographs. White space is
// what byteKinds calls so in ASCII (' ', '\n', '\t', '\r', '\f') and
// unicode.IsSpace beyond it.
//
// It is called on every text the pipeline measures (a few percent of a
// page's instructions), so it reads eight bytes at a time where they are
// ASCII with no white space but ' ' and '\n' and no control character:
// there a byte of 0x21 or more is a word byte and any other a space, and
// the words that start in the eight are counted at once. Other bytes go
// one at a time, as before.
// load8 reads eight bytes of s as a little-endian word (the compiler
// makes it one load): the word-at-a-time loops of countWords, countText
// and spacedRun.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func countWords(s string) int {
	n, cjk := wordsCJK(s)
	return n + cjk/2
}

// wordsCJK is countWords in two parts: the words other than CJK text
// and the CJK characters, which countWords halves. countWords of texts
// joined by '\n' is the sum of their words plus half the sum of their
// CJK characters: '\n' ends a word, and no character spans it.
func wordsCJK(s string) (words, cjk int) {
	n := 0
	in := false
	for i := 0; i < len(s); {
		for ; len(s)-i >= 8; i += 8 {
			x := load8(s[i : i+8])
			if x&highBits != 0 {
				break
			}
			// Bytes under 0x80 add 0x60 or 0x5f without carrying into the
			// next: the high bit says 0x20 or more, 0x21 or more.
			if ^(x+0x6060606060606060)&highBits != zeroBytes(x^0x0a0a0a0a0a0a0a0a) {
				break // a control character other than '\n' ('\t', '\r', '\f' among them)
			}
			// The rest, ' ' and '\n', are spaces; prev is each byte's
			// predecessor in the eight.
			word := (x + 0x5f5f5f5f5f5f5f5f) & highBits
			prev := word << 8
			if in {
				prev |= 0x80
			}
			// One bit a byte at most: the product sums the bytes in the top one.
			n += int((word &^ prev >> 7) * 0x0101010101010101 >> 56)
			in = word>>63 != 0
		}
		// One byte or character at a time up to the end of the eight
		// bytes the fast path left (at least one, so that the loop moves).
		for end := min(i+8, len(s)); i < end; {
			switch byteKinds[s[i]] {
			case byteSpace:
				in = false
				i++
				continue
			case byteWord:
				if !in {
					n++
				}
				in = true
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if unicode.IsSpace(r) {
				in = false
				continue
			}
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
				cjk++
				continue
			}
			if !in {
				n++
			}
			in = true
		}
	}
	return n, cjk
}

// highBits has the high bit of each of eight bytes.
const highBits = 0x8080808080808080

// zeroBytes sets the high bit of each zero byte of x, and no other bit.
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((x&low7 + low7) | x) & highBits
}
