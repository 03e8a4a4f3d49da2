package content

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// mainContent returns the article body of the page, or nil when none
// is found, and the languages of highlighted code blocks when the body
// comes from trafilatura (see trafilaturaContent). The readability-style
// extractor runs first; trafilatura, much slower, runs only when every
// readability attempt stays under minArticleChars (tiny or unusual
// pages), and the longest readability attempt is kept if it fails too.
// Pages of more than maxFallbackElements elements never go to trafilatura.
// facts, when not nil, receives what confidence reads of the extraction.
func mainContent(root *html.Node, base *url.URL, sig signals, title string, facts *extractFacts) (*html.Node, map[string]string) {
	if sig.h1 != "" {
		markH1(root)
	}
	art, ok := readableContent(root, base, title, facts)
	if facts != nil {
		facts.readableOK = ok
	}
	if ok || sig.elements > maxFallbackElements {
		return art, nil
	}
	fallbacks.Add(1)
	if n, langs := trafilaturaContent(root, base, art); n != nil {
		if facts != nil {
			facts.fallback = true
		}
		return n, langs
	}
	return art, nil
}

// h1Mark marks the page's <h1> elements before extraction: the
// readability pass demotes every <h1> it keeps to <h2>, as Readability
// does for a page shown under a title of its own, while the markdown is
// read on its own and the article's heading is its level-1 heading.
// absolutize gives marked headings their level back and drops the mark.
const h1Mark = "data-webacq-h1"

func markH1(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.H1 {
			c.Attr = append(c.Attr, html.Attribute{Key: h1Mark})
			continue
		}
		markH1(c)
	}
}

// unmarkH1 removes h1Mark from n; a marked heading becomes an <h1> again.
func unmarkH1(n *html.Node) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == h1Mark {
			n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			if n.Data == "h2" {
				n.Data, n.DataAtom = "h1", atom.H1
			}
			return
		}
	}
}

// maxFallbackElements bounds the pages trafilatura sees. It takes about
// 17 µs an element here (4.5 s for a 1 MB page of 260,000 <br>), so a large
// page of markup with little text, which is just what the readability pass
// gives up on, would hold a core for minutes; real pages have a few
// thousand elements (at most 10,112 in the 597 pages of both main-content
// corpora).
const maxFallbackElements = 50000

// fallbacks counts the pages handed to trafilatura (benchmarks report it),
// trafilaturaRuns its runs (one a page; tests read it).
var fallbacks, trafilaturaRuns atomic.Int64

// trafilaturaOptions are the options of every trafilatura run.
func trafilaturaOptions(base *url.URL) trafilatura.Options {
	return trafilatura.Options{
		OriginalURL:     base,
		ExcludeComments: true,
		IncludeImages:   true,
		IncludeLinks:    true,
		// Publication dates come from metadata; scanning the whole page
		// for dates is the slowest part of trafilatura and is not needed.
		// It must stay off: the date parser it would call is left out of
		// the build (third_party/README.md), so it would find nothing.
		HtmlDateMode:   trafilatura.Disabled,
		EnableFallback: true,
		// No TargetLanguage: the language detector trafilatura would
		// compare it with is left out of the build (third_party/README.md)
		// and detects none, so every page would fail the comparison.
	}
}

// trafilaturaContent returns the article body found by trafilatura, or
// nil when it finds nothing usable, and the languages of the page's
// highlighted code blocks keyed by their text: trafilatura drops class
// attributes, so absolutize puts the languages back by matching the code
// text. art, when not nil, is the readability pass's longest attempt:
// trafilatura weighs it as its readability candidate among its fallback
// extractors instead of running go-readability, a second readability pass over the
// same page (a tenth of wcxb-dev's conversion time). On the corpora it
// changes no readability or trafilatura-eval score and six of wcxb-dev
// half A's 749 pages, two of them by more than 0.1 (one up, one down);
// wcxb-dev all moves +0.0004 (bench/content/README.md).
func trafilaturaContent(root *html.Node, base *url.URL, art *html.Node) (*html.Node, map[string]string) {
	// One run, with the fallback extractors. A first run without them,
	// followed by this one when it found under 40 % of the page's words,
	// gave the same output on every page of the corpora (2,094) and of
	// bench/gyre's site (1,000), but paid trafilatura twice (metadata,
	// three copies of the page, language detection and extraction) on
	// the pages that needed the second run, most of those that come here
	// (33 of the site's 62; 98 of wcxb-dev's 108), for the fallback
	// extractors' time saved on the others (bench/gyre/README.md).
	opts := trafilaturaOptions(base)
	if art != nil {
		// Its readability candidate is our readability pass's article
		// (see above), not go-readability's.
		opts.FallbackCandidates = &trafilatura.FallbackCandidates{Readability: cloneTree(art)}
	}
	trafilaturaRuns.Add(1)
	r, err := trafilatura.ExtractDocument(root, opts)
	if !usable(r, err) {
		return nil, nil
	}
	host := ""
	if base != nil {
		host = siteHost(base.Host)
	}
	if !offRepair {
		repair(findBody(root), r.ContentNode, host)
	}
	dropBrRepeats(r.ContentNode)
	langs := make(map[string]string)
	codeLanguages(root, langs)
	return r.ContentNode, langs
}

// dropBrRepeats removes the paragraphs that trafilatura emits after a
// block broken by <br>: each line of that block comes again as its own
// <p>. A text-only <p> whose text equals a line of the nearest preceding
// <br>-broken sibling is such a repeat.
func dropBrRepeats(n *html.Node) {
	var lines map[string]struct{}
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type != html.ElementNode {
			continue
		}
		if c.Data == "p" && lines != nil && c.FirstChild != nil && c.FirstChild == c.LastChild && c.FirstChild.Type == html.TextNode {
			if _, dup := lines[collapse(c.FirstChild.Data)]; dup {
				n.RemoveChild(c)
				continue
			}
		}
		lines = brLines(c)
	}
}

// brLines returns the lines of a block broken by <br> children, or nil.
func brLines(n *html.Node) map[string]struct{} {
	var lines map[string]struct{}
	var cur strings.Builder
	flush := func() {
		if t := collapse(cur.String()); t != "" {
			lines[t] = struct{}{}
		}
		cur.Reset()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "br" {
			if lines == nil {
				lines = make(map[string]struct{})
			}
			flush()
			continue
		}
		if c.Type == html.TextNode {
			cur.WriteString(c.Data)
		} else if c.Type == html.ElementNode {
			cur.WriteString(nodeText(c))
		}
	}
	if lines != nil {
		flush()
	}
	return lines
}

// usable rejects empty results and trafilatura's "baseline" rescue, whose
// flat paragraphs are worse than the structured whole body.
func usable(r *trafilatura.ExtractResult, err error) bool {
	return err == nil && r != nil && r.ContentNode != nil &&
		strings.TrimSpace(r.ContentText) != "" && !isBaseline(r.ContentNode)
}

// isBaseline tells whether trafilatura fell back on its "baseline"
// extraction, which flattens the page into paragraphs of bare text (no
// headings, lists, links or emphasis) and may repeat text. Every child
// of the result is then a <p> holding a single text node.
func isBaseline(n *html.Node) bool {
	count := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
			continue
		}
		if c.Type != html.ElementNode || c.Data != "p" || c.FirstChild == nil || c.FirstChild != c.LastChild || c.FirstChild.Type != html.TextNode {
			return false
		}
		count++
	}
	return count > 0
}

// codeLanguages records the language of highlighted code blocks (class
// "language-go", "lang-go", "highlight-source-go", "brush: go", data-lang)
// keyed by the block's collapsed text.
func codeLanguages(n *html.Node, langs map[string]string) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.Pre || c.DataAtom == atom.Code {
			lang := codeLanguage(c)
			if k := firstElementChild(c); lang == "" && k != nil && k.DataAtom == atom.Code {
				lang = codeLanguage(k)
			}
			if lang != "" {
				langs[collapse(nodeText(c))] = lang
			}
			continue
		}
		codeLanguages(c, langs)
	}
}

func codeLanguage(n *html.Node) string {
	if v := attr(n, "data-lang"); v != "" {
		return strings.ToLower(strings.TrimSpace(v))
	}
	if v := attr(n, "data-language"); v != "" {
		return strings.ToLower(strings.TrimSpace(v))
	}
	class := attr(n, "class")
	if class == "" {
		return ""
	}
	if i := strings.Index(class, "brush:"); i >= 0 {
		rest := strings.TrimSpace(class[i+len("brush:"):])
		if f := strings.FieldsFunc(rest, func(r rune) bool { return r == ';' || r == ' ' }); len(f) > 0 {
			return strings.ToLower(f[0])
		}
	}
	for f := range strings.FieldsSeq(class) {
		for _, p := range []string{"language-", "lang-", "highlight-source-", "highlight-"} {
			if strings.HasPrefix(f, p) && len(f) > len(p) {
				return strings.ToLower(f[len(p):])
			}
		}
	}
	return ""
}

func firstElementChild(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// absolutize prepares a content tree for output: URLs of links and media
// become absolute, javascript: links lose their target, lazy images get
// their real source, code blocks get back their "language-x" class,
// and multi-line <code> outside <pre> (trafilatura's form of a code
// block) is wrapped in <pre> so it renders as a fenced block.
func absolutize(n *html.Node, base *url.URL, langs map[string]string) {
	absolutizeWith(n, base, langs, nil)
}

// absolutizeWith is absolutize with the links scan resolved (nil: none).
//
// It reports whether it changed what textOf reads of n: the elements
// (their DataAtom) or the tree's shape (spaces set apart, <pre> added).
// Attributes textOf does not read.
func absolutizeWith(n *html.Node, base *url.URL, langs map[string]string, links *resolvedLinks) (changed bool) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling // fixCode may move c under a new <pre>
		if c.Type != html.ElementNode {
			continue
		}
		a := c.DataAtom
		if len(c.Attr) > 0 {
			unmarkH1(c)
		}
		// Extraction renames elements (pre → code) and creates new ones
		// without updating DataAtom; the switches below rely on it.
		if c.Namespace == "" && c.DataAtom.String() != c.Data {
			c.DataAtom = atom.Lookup([]byte(c.Data))
		}
		if c.DataAtom != a {
			changed = true
		}
		if isBlock(c.DataAtom) && inlineElement(n) {
			if apart(c) {
				changed = true
			}
		}
		switch c.DataAtom {
		case atom.A:
			fixLink(c, base, links)
		case atom.Img:
			fixImage(c, base)
		case atom.Source, atom.Video, atom.Audio, atom.Iframe:
			fixURLAttr(c, "src", base)
		case atom.Pre, atom.Code:
			if fixCode(n, c, langs) {
				changed = true
			}
		}
		if absolutizeWith(c, base, langs, links) {
			changed = true
		}
	}
	return changed
}

// apart sets a block inside an inline element (a card: a link holding
// a date and a heading) apart from the content around it with spaces:
// the converter writes such a block inline, and a browser shows it on
// a line of its own ("February 25, 2026" then "Issue 318", not
// "2026**Issue 318**").
// It reports whether it added a space.
func apart(c *html.Node) (added bool) {
	if p := c.PrevSibling; p != nil && !(p.Type == html.TextNode && strings.HasSuffix(p.Data, " ")) {
		c.Parent.InsertBefore(textNode(" "), c)
		added = true
	}
	if x := c.NextSibling; x != nil && !(x.Type == html.TextNode && strings.HasPrefix(x.Data, " ")) {
		c.Parent.InsertBefore(textNode(" "), x)
		added = true
	}
	return added
}

// inlineElement tells whether n is an element a browser lays out inline
// (and that may wrap blocks in real pages).
func inlineElement(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.A, atom.Span, atom.B, atom.Strong, atom.Em, atom.I, atom.U, atom.S, atom.Small, atom.Big, atom.Font,
		atom.Label, atom.Time, atom.Cite, atom.Mark, atom.Abbr, atom.Q:
		return true
	}
	return false
}

func fixLink(n *html.Node, base *url.URL, links *resolvedLinks) {
	for i := range n.Attr {
		a := &n.Attr[i]
		if a.Namespace != "" || a.Key != "href" {
			continue
		}
		v := strings.TrimSpace(a.Val)
		if v == "" || v[0] == '#' {
			return
		}
		u := links.known(base, v)
		if u == nil || !(u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto" || u.Scheme == "tel" || u.Scheme == "ftp") {
			n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			return
		}
		a.Val = u.String()
		return
	}
}

func fixImage(n *html.Node, base *url.URL) {
	src := strings.TrimSpace(attr(n, "src"))
	if src == "" || strings.HasPrefix(src, "data:") {
		for _, k := range []string{"data-src", "data-original", "data-lazy-src", "data-url"} {
			if v := strings.TrimSpace(attr(n, k)); v != "" {
				setAttr(n, "src", v)
				break
			}
		}
	}
	fixURLAttr(n, "src", base)
}

func fixURLAttr(n *html.Node, key string, base *url.URL) {
	for i := range n.Attr {
		a := &n.Attr[i]
		if a.Namespace == "" && a.Key == key {
			v := strings.TrimSpace(a.Val)
			if v == "" || strings.HasPrefix(v, "data:") {
				return
			}
			if u := resolve(base, v); u != nil {
				a.Val = u.String()
			}
			return
		}
	}
}

// fixCode reports whether it wrapped c in a <pre>.
func fixCode(parent, c *html.Node, langs map[string]string) bool {
	if len(langs) > 0 && parent.DataAtom != atom.Pre && parent.DataAtom != atom.Code && codeLanguage(c) == "" {
		if lang := langs[collapse(nodeText(c))]; lang != "" {
			setAttr(c, "class", "language-"+lang)
		}
	}
	// A multi-line <code> is a block unless it stands in running text
	// ("tools such as <code>git log\n--oneline</code>."): a line break of
	// the page's source does not make it one.
	if c.DataAtom == atom.Code && parent.DataAtom != atom.Pre && parent.DataAtom != atom.Code &&
		(blockCode(parent, c) || strings.Contains(nodeText(c), "\n") && (blockNeighbour(c, false) || blockNeighbour(c, true))) {
		pre := &html.Node{Type: html.ElementNode, Data: "pre", DataAtom: atom.Pre}
		parent.InsertBefore(pre, c)
		parent.RemoveChild(c)
		pre.AppendChild(c)
		return true
	}
	return false
}

// blockCode tells whether c, a <code> outside <pre>, stands where a block
// does: trafilatura writes a code block as a <code> in place of its
// <pre>, one line or many, among the article's blocks. The neighbours
// are looked at, not all siblings, so that a page of many <code> stays
// linear. parent's DataAtom may be stale (see absolutize): its name is read.
func blockCode(parent, c *html.Node) bool {
	switch parent.Data {
	case "body", "div", "article", "section", "main", "blockquote", "figure":
	default:
		return false
	}
	return blockNeighbour(c, false) && blockNeighbour(c, true)
}

// blockNeighbour tells whether the previous (or next) sibling of n, white
// space skipped, is a block, another <code>, or nothing.
func blockNeighbour(n *html.Node, next bool) bool {
	s := n.PrevSibling
	if next {
		s = n.NextSibling
	}
	for s != nil {
		switch s.Type {
		case html.TextNode:
			if strings.TrimSpace(s.Data) != "" {
				return false
			}
		case html.ElementNode:
			a := atom.Lookup([]byte(s.Data))
			return a == atom.Code || isBlock(a)
		}
		if next {
			s = s.NextSibling
		} else {
			s = s.PrevSibling
		}
	}
	return true
}

// MarkdownHook, when not nil, receives a copy of every tree about to be
// rendered as markdown (its ancestors copied as bare elements above it)
// and the markdown rendered from the tree. It is meant for
// bench/content/mdcompare, which renders the copy with another converter;
// set it before converting pages, never while pages are converted.
var MarkdownHook func(tree *html.Node, markdown string)

// toMarkdown converts n and its subtree (see markdown.go). It modifies n.
func toMarkdown(n *html.Node) string {
	if MarkdownHook == nil {
		return markdown(n)
	}
	k := cloneTree(n)
	top := k
	for p := n.Parent; p != nil; p = p.Parent {
		q := &html.Node{Type: p.Type, Data: p.Data, DataAtom: p.DataAtom, Namespace: p.Namespace}
		q.AppendChild(top)
		top = q
	}
	md := markdown(n)
	MarkdownHook(k, md)
	return md
}

// textOf renders n as plain text: one line per block, white space
// collapsed except inside <pre>.
func textOf(n *html.Node) string {
	var t textWriter
	t.node(n, false)
	return strings.TrimSpace(t.b.String())
}

type textWriter struct {
	b     textBuf
	space bool // a space is pending before the next word
	bol   bool // at the beginning of a line
}

// textBuf is textWriter's buffer. It borrows its bytes from textBufs
// and hands them back when the text is taken (String): a text written
// by appending to a fresh buffer allocated every size it grew through,
// about twice the text (the plain text of the outputs and of every
// candidate the selector measures was the pipeline's largest allocation
// outside the parser), where a buffer kept from page to page allocates
// the text's string alone.
type textBuf struct{ b []byte }

// textBufs holds textBuf's buffers between texts.
var textBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxTextBuf bounds the buffers kept in textBufs.
const maxTextBuf = 1 << 22

func (t *textBuf) grow() {
	if t.b == nil {
		t.b = (*textBufs.Get().(*[]byte))[:0]
	}
}

func (t *textBuf) WriteString(s string) {
	t.grow()
	t.b = append(t.b, s...)
}

func (t *textBuf) WriteByte(c byte) error {
	t.grow()
	t.b = append(t.b, c)
	return nil
}

func (t *textBuf) Len() int { return len(t.b) }

// String returns the text written and gives the buffer back: the
// buffer is empty after.
func (t *textBuf) String() string {
	if t.b == nil {
		return ""
	}
	s := string(t.b)
	if cap(t.b) <= maxTextBuf {
		b := t.b[:0]
		textBufs.Put(&b)
	}
	t.b = nil
	return s
}

func (t *textWriter) newline() {
	if t.b.Len() > 0 && !t.bol {
		t.b.WriteByte('\n')
	}
	t.bol = true
	t.space = false
}

func (t *textWriter) text(s string, pre bool) {
	if pre {
		if t.space && !t.bol {
			t.b.WriteByte(' ')
		}
		t.b.WriteString(s)
		t.space = false
		t.bol = strings.HasSuffix(s, "\n")
		return
	}
	for i := 0; i < len(s); {
		if isSpaceByte(s[i]) {
			t.space = true
			i++
			continue
		}
		// Words separated by one ' ' are written as they stand, at once:
		// j goes to the end of such a run.
		j := spacedRun(s, i)
		if t.space && !t.bol {
			t.b.WriteByte(' ')
		}
		t.b.WriteString(s[i:j])
		t.space = false
		t.bol = false
		i = j
	}
}

// spacedRun returns the end of the run of s from i (a byte that is not
// white space) made of bytes that are not white space and single ' '
// between them: the index of the first white space byte (isSpaceByte)
// that is not such a single ' ', or len(s). It reads eight bytes at a
// time where they hold no byte under 0x21 but ' ' and no two ' ' in a
// row, and the bytes after one at a time.
func spacedRun(s string, i int) int {
	j := i + 1
	for j < len(s) {
		j = skipSpaced8(s, j)
		// One byte at a time up to the end of the eight bytes the fast
		// path left (at least one, so that the loop moves).
		for end := min(j+8, len(s)); j < end; {
			c := s[j]
			if c == ' ' && j+1 < len(s) && !isSpaceByte(s[j+1]) {
				j += 2
				continue
			}
			if isSpaceByte(c) {
				return j
			}
			j++
		}
	}
	return len(s)
}

// skipSpaced8 passes over s from i eight bytes at a time while they hold
// no byte under 0x21 but ' ' and no two ' ' in a row (counting a ' ' that
// ended the eight before), and returns where the bytes must be read one
// at a time: the first of eight that do not pass, or the ' ' that ended
// the last eight that did, since what follows it decides.
func skipSpaced8(s string, i int) int {
	prev := uint64(0) // 0x80 when the byte before the eight is ' '
	for ; len(s)-i >= 8; i += 8 {
		x := load8(s[i : i+8])
		// With the high bits set no byte borrows from the next: the
		// high bit of x|highBits - 0x21 is clear for bytes whose low
		// seven bits are under 0x21, which are under 0x21 when their
		// own high bit is clear too.
		low := ^((x | highBits) - 0x2121212121212121) &^ x & highBits
		sp := zeroBytes(x ^ 0x2020202020202020)
		if low != sp || sp&(sp<<8|prev) != 0 {
			break
		}
		prev = sp >> 56
	}
	if prev != 0 {
		i-- // the ' ' that ended the last eight, for the bytes below
	}
	return i
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

func (t *textWriter) node(n *html.Node, pre bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			t.text(c.Data, pre)
		case html.ElementNode:
			switch c.DataAtom {
			// iframe, noembed and noframes hold fallback markup as raw text.
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head,
				atom.Iframe, atom.Noembed, atom.Noframes:
				continue
			case atom.Br:
				t.newline()
				continue
			}
			block := isBlock(c.DataAtom)
			if block {
				t.newline()
			} else if c.DataAtom == atom.Td || c.DataAtom == atom.Th || c.DataAtom == atom.Img {
				// An image between two words sets them apart on screen:
				// "More options<img>Option: blue" is not one word.
				t.space = true
			}
			t.node(c, pre || c.DataAtom == atom.Pre)
			if block {
				t.newline()
			}
		}
	}
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Ul, atom.Ol, atom.Li, atom.Dl, atom.Dt, atom.Dd, atom.Table, atom.Tr,
		atom.Pre, atom.Blockquote, atom.Section, atom.Article, atom.Header, atom.Footer,
		atom.Nav, atom.Aside, atom.Main, atom.Figure, atom.Figcaption, atom.Hr,
		atom.Address, atom.Details, atom.Summary, atom.Caption, atom.Form, atom.Body:
		return true
	}
	return false
}
