package detect

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/content"
)

// Bounds of one page read. Real pages hold a few thousand elements and
// blocks; hostile ones are read up to these limits and the rest of the
// page is not a candidate region.
const (
	maxPageElems  = 500_000
	maxPageBlocks = 200_000
	maxBlockText  = 4 << 10  // bytes of one block's text
	maxPageText   = 16 << 20 // bytes of all blocks' text
)

// page is a parsed page read for detection: its blocks in document
// order and its elements, each with the contiguous range of blocks its
// subtree holds.
type page struct {
	doc    *html.Node // the parsed page, not modified
	url    string
	base   *url.URL
	blocks []pblock
	elems  []elem
	depth  int32 // deepest nesting below body
	// visited counts the nodes the walk handled: each once, so reading a
	// page is linear in its size (the hostile tests check it).
	visited int
}

// pblock is a block of the page.
type pblock struct {
	Block
	elem int32 // the element the block belongs to
	// bpe is the innermost boilerplate element (navigation, aside,
	// footer …) holding the block, -1 when none (see settleBoilerplate).
	bpe int32
}

// elem is an element of <body> (body included).
type elem struct {
	node       *html.Node
	parent     int32 // -1 for body
	depth      int32 // body is 0
	start, end int32 // blocks[start:end] lie in the element's subtree
	// bpUp is the innermost boilerplate element enclosing this one, -1
	// when none (see settleBoilerplate).
	bpUp int32
	// boiler: the element looks like boilerplate; hint: only by a word
	// of its class or id, which settleBoilerplate may overrule.
	boiler, hint bool
	hasMain      bool // the subtree holds <main> or role=main
}

// frame is an open element during the walk.
type frame struct {
	elem    int32 // -1 when not recorded
	block   bool  // the element opened a block
	bpe     int32 // innermost boilerplate-looking element, -1 when none
	depth   int32
	article bool // inside article or main
	hasMain bool // the subtree seen so far holds <main> or role=main
}

// walker reads a page in one iterative walk: no recursion, so nesting
// depth costs memory for the open elements only.
type walker struct {
	p      *page
	origin string // scheme://host of the base, for root-relative links
	frames []frame
	open   []openBlock // blocks being filled, innermost last
	budget int         // text bytes left
}

// openBlock is a block element being read. Its block is created with
// its first word, link or source, so blocks come in reading order and
// empty ones never exist.
type openBlock struct {
	slot    int32 // index in page.blocks, -1 until created
	elem    int32
	bpe     int32
	b       []byte // text so far
	space   bool   // a space is due before the next word
	tr      bool   // the block is a table row: cells are joined by " | "
	hrefDoc bool   // Href is a document link
}

// block returns the block of ob, creating it, or nil when the page
// holds maxPageBlocks already.
func (w *walker) block(ob *openBlock) *pblock {
	if ob.slot < 0 {
		if len(w.p.blocks) >= maxPageBlocks {
			return nil
		}
		ob.slot = int32(len(w.p.blocks))
		w.p.blocks = append(w.p.blocks, pblock{elem: ob.elem, bpe: ob.bpe})
	}
	return &w.p.blocks[ob.slot]
}

// readPage reads the <body> of doc, or returns nil when there is none.
func readPage(doc *html.Node, pageURL string) *page {
	body := findBody(doc)
	if body == nil {
		return nil
	}
	p := &page{doc: doc, url: pageURL, base: baseURL(doc, pageURL)}
	w := &walker{p: p, budget: maxPageText}
	if b := p.base; b != nil && b.User == nil && b.Host != "" && (b.Scheme == "http" || b.Scheme == "https") {
		w.origin = b.Scheme + "://" + b.Host
	}
	w.run(body)
	p.settleBoilerplate()
	return p
}

func (w *walker) run(root *html.Node) {
	w.enter(root)
	n := root.FirstChild
	for n != nil {
		if w.visit(n) {
			if n.FirstChild != nil {
				n = n.FirstChild
				continue
			}
			w.leave()
		}
		for n != root && n.NextSibling == nil {
			n = n.Parent
			if n == root {
				break
			}
			w.leave()
		}
		if n == root {
			break
		}
		n = n.NextSibling
	}
	w.leave()
}

// visit handles n and tells whether an element was entered (its
// children are to be walked and leave called after them).
func (w *walker) visit(n *html.Node) bool {
	w.p.visited++
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return false
	case html.ElementNode:
	default:
		return false
	}
	if n.Namespace != "" || skipped(n) || content.Hidden(n) {
		return false
	}
	switch n.DataAtom {
	case atom.Br, atom.Hr, atom.Wbr:
		w.space()
		return false
	case atom.Img:
		w.src(n, "src")
		return false
	case atom.Embed, atom.Iframe, atom.Source:
		w.src(n, "src")
		return false
	case atom.Object:
		w.src(n, "data")
		return false
	case atom.Video, atom.Audio:
		w.src(n, "src")
		return false
	case atom.A:
		w.href(n)
	case atom.Td, atom.Th:
		if ob := w.top(); ob != nil && ob.tr && len(ob.b) > 0 {
			ob.b = append(ob.b, " |"...)
			ob.space = true
		}
	}
	w.enter(n)
	return true
}

// enter opens element n.
func (w *walker) enter(n *html.Node) {
	f := frame{elem: -1, bpe: -1}
	parent := int32(-1)
	if k := len(w.frames); k > 0 {
		top := w.frames[k-1]
		f.bpe, f.depth, f.article = top.bpe, top.depth+1, top.article
		parent = w.parentElem()
	}
	if n.DataAtom == atom.Article || n.DataAtom == atom.Main {
		f.article = true
	}
	f.hasMain = n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
	w.p.depth = max(w.p.depth, f.depth)
	boiler, hint := false, false
	if len(w.frames) > 0 {
		boiler, hint = boilerplate(n, f.article)
	}
	p := w.p
	// Only elements a region can be rooted at, a block belongs to, or
	// that look like boilerplate are recorded (custom elements may be
	// any of these).
	if (boiler || blockTags[n.DataAtom] || containerTags[n.DataAtom] || n.DataAtom == 0) && len(p.elems) < maxPageElems {
		f.elem = int32(len(p.elems))
		p.elems = append(p.elems, elem{node: n, parent: parent, depth: f.depth, start: int32(len(p.blocks)), bpUp: f.bpe})
		if boiler {
			p.elems[f.elem].boiler, p.elems[f.elem].hint = true, hint
			f.bpe = f.elem
		}
	}
	if blockTags[n.DataAtom] {
		if ob := w.top(); ob != nil {
			ob.space = len(ob.b) > 0
		}
		f.block = true
		w.open = append(w.open, openBlock{slot: -1, elem: f.elem, bpe: f.bpe, tr: n.DataAtom == atom.Tr})
	}
	w.frames = append(w.frames, f)
}

// parentElem is the innermost recorded open element.
func (w *walker) parentElem() int32 {
	for k := len(w.frames) - 1; k >= 0; k-- {
		if e := w.frames[k].elem; e >= 0 {
			return e
		}
	}
	return -1
}

// leave closes the innermost open element.
func (w *walker) leave() {
	k := len(w.frames) - 1
	f := w.frames[k]
	w.frames = w.frames[:k]
	if f.block {
		ob := &w.open[len(w.open)-1]
		if ob.slot >= 0 {
			w.p.blocks[ob.slot].Text = strings.TrimRight(string(ob.b), " |")
		}
		w.open = w.open[:len(w.open)-1]
		if top := w.top(); top != nil {
			top.space = len(top.b) > 0
		}
	}
	if f.elem >= 0 {
		w.p.elems[f.elem].end = int32(len(w.p.blocks))
		w.p.elems[f.elem].hasMain = f.hasMain
	}
	if f.hasMain && k > 0 {
		w.frames[k-1].hasMain = true
	}
}

func (w *walker) top() *openBlock {
	if len(w.open) == 0 {
		return nil
	}
	return &w.open[len(w.open)-1]
}

func (w *walker) space() {
	if ob := w.top(); ob != nil && len(ob.b) > 0 {
		ob.space = true
	}
}

// text appends s to the innermost block with white space collapsed,
// within the block's and the page's text bounds.
func (w *walker) text(s string) {
	ob := w.top()
	if ob == nil || w.budget <= 0 {
		return
	}
	for i := 0; i < len(s); {
		// Skip white space.
		j := i
		for j < len(s) {
			c := s[j]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
				j++
				continue
			}
			if c >= utf8.RuneSelf {
				if r, n := utf8.DecodeRuneInString(s[j:]); unicode.IsSpace(r) {
					j += n
					continue
				}
			}
			break
		}
		if j > i && len(ob.b) > 0 {
			ob.space = true
		}
		// Copy the word.
		k := j
		for k < len(s) {
			c := s[k]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
				break
			}
			if c >= utf8.RuneSelf {
				if r, _ := utf8.DecodeRuneInString(s[k:]); unicode.IsSpace(r) {
					break
				}
			}
			k++
		}
		if k == j {
			return
		}
		word := s[j:k]
		if len(ob.b)+len(word)+1 > maxBlockText || w.budget < len(word)+1 || w.block(ob) == nil {
			return
		}
		if ob.space {
			ob.b = append(ob.b, ' ')
			w.budget--
			ob.space = false
		}
		ob.b = append(ob.b, word...)
		w.budget -= len(word)
		i = k
	}
}

// href records the first link of the innermost block; a document link
// (pdf, xlsx …) later in the block replaces a first link that is not one.
func (w *walker) href(n *html.Node) {
	ob := w.top()
	if ob == nil {
		return
	}
	raw := attr(n, "href")
	if ob.slot >= 0 && w.p.blocks[ob.slot].Href != "" && (ob.hrefDoc || !isDocumentLink(raw)) {
		return
	}
	u := w.resolve(raw)
	if u == "" {
		return
	}
	if b := w.block(ob); b != nil {
		b.Href = u
		ob.hrefDoc = isDocumentLink(u)
	}
}

// src records the first media source of the innermost block.
func (w *walker) src(n *html.Node, key string) {
	ob := w.top()
	if ob == nil || (ob.slot >= 0 && w.p.blocks[ob.slot].Src != "") {
		return
	}
	v := strings.TrimSpace(attr(n, key))
	if v == "" || strings.HasPrefix(v, "data:") {
		for _, k := range []string{"data-src", "data-original", "data-lazy-src"} {
			if v = strings.TrimSpace(attr(n, k)); v != "" {
				break
			}
		}
	}
	if u := w.resolve(v); u != "" {
		if b := w.block(ob); b != nil {
			b.Src = u
		}
	}
}

// resolve makes ref absolute against the page's base and cleans it
// (see cleanLink); only http and https links count.
func (w *walker) resolve(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || ref[0] == '#' || len(ref) > 4096 {
		return ""
	}
	// Fast paths for plain links, which url would return unchanged.
	if plainLink(ref) {
		switch {
		case w.origin != "" && ref[0] == '/' && (len(ref) == 1 || ref[1] != '/'):
			return w.origin + ref
		case strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://"):
			// With a host and a path: "http://x.com" alone gains nothing.
			if host, path, ok := strings.Cut(ref[strings.Index(ref, "://")+3:], "/"); ok && host != "" && path != "" {
				return ref
			}
		}
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if w.p.base != nil {
		u = w.p.base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return cleanLink(u)
}

// plainLink tells whether ref holds only characters that need no
// escaping and no dot segments, query, fragment or parameters.
func plainLink(ref string) bool {
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
			return false
		}
	}
	return !strings.Contains(ref, "/.") && !strings.Contains(ref, "://.")
}

// findBody returns the <body> of a parsed document.
func findBody(doc *html.Node) *html.Node {
	for n := doc; n != nil; {
		var next *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Body {
				return c
			}
			if next == nil && c.Type == html.ElementNode && c.DataAtom == atom.Html {
				next = c
			}
		}
		if next == nil && n.Type == html.ElementNode && n.DataAtom == atom.Body {
			return n
		}
		n = next
	}
	return nil
}

// baseURL is pageURL resolved against the first <base href> of <head>.
func baseURL(doc *html.Node, pageURL string) *url.URL {
	base, err := url.Parse(pageURL)
	if err != nil {
		base = nil
	}
	var head *html.Node
	for c := doc.FirstChild; c != nil && head == nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Html {
			for h := c.FirstChild; h != nil; h = h.NextSibling {
				if h.Type == html.ElementNode && h.DataAtom == atom.Head {
					head = h
					break
				}
			}
		}
	}
	if head == nil {
		return base
	}
	for c := head.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Base {
			if href := strings.TrimSpace(attr(c, "href")); href != "" {
				if u, err := url.Parse(href); err == nil {
					if base != nil {
						return base.ResolveReference(u)
					}
					return u
				}
			}
			break
		}
	}
	return base
}

// blockTags are the elements whose own text forms a block; text inside
// a nested one belongs to the nested block. Table cells are not blocks:
// a row is one block, its cells joined by " | ".
var blockTags = map[atom.Atom]bool{
	atom.Body: true, atom.P: true, atom.Li: true, atom.Dt: true, atom.Dd: true, atom.Tr: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Pre: true, atom.Figcaption: true, atom.Caption: true,
	atom.Address: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Aside: true,
	atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Main: true, atom.Ul: true,
	atom.Ol: true, atom.Dl: true, atom.Table: true, atom.Thead: true, atom.Tbody: true,
	atom.Tfoot: true, atom.Form: true, atom.Figure: true, atom.Fieldset: true, atom.Details: true,
	atom.Summary: true, atom.Legend: true, atom.Center: true, atom.Hgroup: true, atom.Menu: true,
}

// skipped tells whether n never carries watched content: scripts,
// styles, form controls, dialogs and the like.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Head,
		atom.Title, atom.Meta, atom.Link, atom.Base, atom.Button, atom.Select, atom.Textarea,
		atom.Input, atom.Option, atom.Dialog, atom.Canvas:
		return true
	}
	return false
}

// boilerplate tells whether n looks like navigation, an aside, a
// footer, a page header or a widget (share bar, comments, cookie notice
// …): a landmark by its tag or ARIA role (content.Landmark, whose roles
// the main content drops too), or a word of its class or id
// (content.BoilerplateName); hint tells that only a class or id word
// says so.
// inArticle: n lies in an <article> or <main>, where a <header> holds
// the article's title.
func boilerplate(n *html.Node, inArticle bool) (boiler, hint bool) {
	if content.Landmark(n, inArticle) {
		return true, false
	}
	for _, a := range n.Attr {
		if (a.Key == "class" || a.Key == "id") && content.BoilerplateName(a.Val, inArticle) {
			return true, true
		}
	}
	return false, false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// documentExts are the extensions of links that name a document rather
// than a page.
var documentExts = set(".pdf", ".doc", ".docx", ".xls", ".xlsx", ".xlsm", ".ppt", ".pptx", ".odt",
	".ods", ".odp", ".rtf", ".csv", ".zip", ".xbrl")

// isDocumentLink tells whether u names a document (pdf, xlsx, docx …)
// by the extension of its path.
func isDocumentLink(u string) bool {
	path := u
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	dot := strings.LastIndexByte(path, '.')
	if dot < 0 || dot < strings.LastIndexByte(path, '/') || len(path)-dot > 6 {
		return false
	}
	return documentExts[strings.ToLower(path[dot:])]
}
