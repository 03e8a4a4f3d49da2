//go:build corpus

package content

import (
	"bytes"
	"compress/gzip"
	"index/suffixarray"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/fetch"
)

// corpusRoot holds the shared page corpora; a fresh clone has none.
const corpusRoot = "../../../shared/corpus"

// TestMainContentKeepsWords is the glue property over every page of the
// three shared corpora: every word of the whole-body text that lies inside
// the chosen main content appears as a separate word in the markdown and
// in the text.
//
// Definitions:
//   - The whole-body text is the <body> after the pipeline's own scan
//     (scripts, styles, comments, hidden elements removed), rendered as a
//     browser lays it out: its text nodes in document order, with a word
//     break at white space and at the edge of every element a browser
//     shows as a box of its own (blocks, list items, table cells and
//     rows, <br>, <img>, <hr>), and none at the edge of an inline element
//     (<b>x</b>y is one word, "xy").
//   - The main content is the tree the outputs are made from (contentNode).
//     Its character stream is the non-space characters of its text nodes
//     in document order, leaving out what markdown does not render
//     (buttons, forms, selects and the like); its words are that tree laid
//     out as above. Gluing merges words of the stream, never splits them.
//   - Body word k lies inside the main content when the stream holds it
//     together with its neighbours: the characters of a window of three
//     consecutive body words, k among them, widened to the right to at
//     least minWindow bytes, occur in the stream starting where one of its
//     words starts and ending where one of its words ends (a body of fewer
//     words: all of them). So a word that the main content glued to its
//     neighbour still lies inside it, while "ran a" does not lie inside
//     "arrangements", nor "a long" inside "along", nor ". . ." inside
//     "...", nor "deliver and set up" inside "delivery and setup". The
//     window's characters must occur only once in the body's (white space
//     removed): where a page holds the same text twice, glued in one place
//     (<a>Terms</a><a>Privacy</a> styled as buttons) and apart in the
//     other, the main content's copy is not known.
//   - A word appears as a separate word of the markdown when it equals a
//     white-space-separated field of the markdown once markdown syntax is
//     removed (link targets; the characters \ * ` [ ] ~ | < > _ # from
//     both sides), and of the text when it equals a field of the text.
//
// The test reads the corpora from ../shared and skips without them. It
// converts about 2,100 pages; under -short it converts every tenth.
func TestMainContentKeepsWords(t *testing.T) {
	if _, err := os.Stat(corpusRoot); err != nil {
		t.Skip("no corpus at " + corpusRoot)
	}
	var files []string
	for _, g := range []string{"readability/test-pages/*/source.html", "trafilatura-eval/pages/*.html", "wcxb-dev/html/*.html.gz"} {
		m, _ := filepath.Glob(filepath.Join(corpusRoot, g))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no pages under " + corpusRoot)
	}
	var failedPages, failedWords, insideWords, splitWords, knownSeen int
	for i, f := range files {
		if testing.Short() && i%10 != 0 {
			continue
		}
		body, err := readPage(f)
		if err != nil {
			t.Fatal(err)
		}
		missing, inside, split := missingWords(body, "https://example.com/page")
		insideWords += inside
		splitWords += split
		rel, _ := filepath.Rel(corpusRoot, f)
		gap, known := knownGaps[rel]
		if known {
			knownSeen++
			if len(missing) == 0 {
				t.Errorf("%s passes now: take it out of knownGaps", rel)
			}
		}
		if len(missing) > 0 {
			failedPages++
			failedWords += len(missing)
			if known && len(missing) <= gap.words {
				continue
			}
			if len(missing) > 8 {
				missing = missing[:8]
			}
			t.Errorf("%s: %d words inside the main content are not separate words: %q", rel, len(missing), missing)
		}
	}
	if !testing.Short() && knownSeen != len(knownGaps) {
		t.Errorf("%d of the %d pages of knownGaps were converted", knownSeen, len(knownGaps))
	}
	t.Logf("%d pages, %d words inside main content; %d set apart at element edges the page runs together; %d pages and %d words fail",
		len(files), insideWords, splitWords, failedPages, failedWords)
}

// knownGaps are the pages where the property fails for a reason that is
// not a defect of the outputs, each with the most words it may fail on
// and why. Any other page failing, or one of these failing on more
// words, fails the test.
var knownGaps = map[string]struct {
	words int
	why   string
}{
	// "visualizations<span class=visually-hidden> </span></a>—compared":
	// the only space is in a span a style sheet hides (screen readers
	// read it); the readability pass drops it by class, as a browser
	// shows the page ("visualizations—compared", "AI Mode.").
	"wcxb-dev/html/0041.html.gz": {8, "a space only inside a visually hidden span"},
	// The space that sets a "/" apart lies inside a control (filter
	// links) that the main content leaves out, as 0041's lies in a
	// hidden span (bench/content/README.md, "words never glued").
	"wcxb-dev/html/0656.html.gz": {1, "a space only inside a dropped control"},
	// "Loading..." (a trending placeholder) and "Loading ..." (the page's
	// loader) are the same words in two shapes; the content keeps the
	// second, the window matches the first.
	"wcxb-dev/html/1795.html.gz": {2, "the same text twice in two shapes"},
	// The post's "(<b>Update April, 2011:</b>" and a sidebar snippet's
	// "( Update April, 2011:" are the same words in two shapes.
	"wcxb-dev/html/4456.html.gz": {4, "the same text twice in two shapes"},
}

func readPage(f string) ([]byte, error) {
	b, err := os.ReadFile(f)
	if err == nil && strings.HasSuffix(f, ".gz") {
		var r *gzip.Reader
		if r, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
			b, err = io.ReadAll(r)
		}
	}
	if err != nil {
		return nil, err
	}
	b, _ = fetch.ToUTF8(b, "text/html", "text/html")
	return b, nil
}

// missingWords converts body as HTML does with OnlyMainContent and
// returns the body words that lie inside the main content but are not
// separate words of the markdown or the text (each once, with "md:" or
// "text:" before it), and how many body words lie inside.
func missingWords(body []byte, pageURL string) (missing []string, inside, split int) {
	root, err := html.Parse(bytes.NewReader(bytes.ToValidUTF8(body, []byte("\uFFFD"))))
	if err != nil {
		return nil, 0, 0
	}
	base, _ := url.Parse(pageURL)
	s := scan(root, base, false)
	var words []string
	var edges [][]int
	if b := findBody(root); b != nil {
		var w boxWords
		w.node(b)
		words = w.flush()
		edges = w.edges
	}
	bodyIdx := suffixarray.New([]byte(strings.Join(words, "")))
	opt := Options{OnlyMainContent: true}
	doc := &Document{Metadata: s.meta, signals: s.sig}
	node := contentNode(root, s, opt, doc).node
	var st contentStream
	st.node(node)
	st.edge = append(st.edge, true)
	render(doc, node, opt)

	idx := suffixarray.New(st.b)
	has := func(s string) bool {
		for _, i := range idx.Lookup([]byte(s), -1) {
			if st.edge[i] && st.edge[i+len(s)] {
				return true
			}
		}
		return false
	}
	mdWords := fieldSet(mdPlain(doc.Markdown))
	textWords := fieldSet(doc.Text)
	mdStream, textStream := fieldStream(mdPlain(doc.Markdown)), fieldStream(doc.Text)
	seen := make(map[string]bool)
	for k, w := range words {
		in := false
		for i := max(0, k-2); i <= k && !in; i++ {
			w := strings.Join(words[i:min(len(words), i+3)], "")
			for j := i + 3; j < len(words) && len(w) < minWindow; j++ {
				w += words[j]
			}
			in = (len(w) >= minWindow || len(words) < 3) && has(w) && len(bodyIdx.Lookup([]byte(w), 2)) == 1
		}
		if !in {
			continue
		}
		inside++
		// A page's text may hold markdown itself: the markdown's fields
		// are read as markdown, the word too.
		mdNorm := func(s string) string { return normWord(mdPlain(s)) }
		if n := mdNorm(w); n != "" && !mdWords[n] && !seen["md:"+n] {
			seen["md:"+n] = true
			if splitAtEdges(mdStream, w, edges[k], mdNorm) {
				split++
			} else {
				missing = append(missing, "md:"+w)
			}
		}
		if n := normWord(w); n != "" && !textWords[n] && !seen["text:"+n] {
			seen["text:"+n] = true
			if splitAtEdges(textStream, w, edges[k], normWord) {
				split++
			} else {
				missing = append(missing, "text:"+w)
			}
		}
	}
	sort.Strings(missing)
	return missing, inside, split
}

// fieldStream is s's white-space-separated fields, markdown syntax
// removed (normWord), each with one space before and after.
func fieldStream(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	for f := range strings.FieldsSeq(s) {
		if n := normWord(f); n != "" {
			b.WriteString(n)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// splitAtEdges reports whether the body word w appears in stream as
// consecutive fields whose only breaks fall at w's element edges: the
// page runs the word together only across inline elements (a price in
// one <span> and its unit in the next, pager links with no space
// between), which a style sheet can set apart, and the outputs set
// apart there. A break inside a text node, or a word glued to its
// neighbour, still fails.
func splitAtEdges(stream, w string, edges []int, norm func(string) string) bool {
	var segs []string
	last := 0
	for _, e := range append(edges, len(w)) {
		if n := norm(w[last:e]); n != "" {
			segs = append(segs, regexp.QuoteMeta(n))
		}
		last = e
	}
	if len(segs) < 2 {
		return false
	}
	return regexp.MustCompile(" " + strings.Join(segs, " ?") + " ").MatchString(stream)
}

// minWindow is the least length in bytes of the run of body words that
// must occur in the main content for them to lie inside it.
const minWindow = 12

// boxWords collects the words of a tree as a browser lays them out.
// For each word it also keeps its element edges: the byte offsets inside
// the word where an inline element starts or ends (or a skipped element
// such as a <select> stood), the only places where a style sheet can
// break what the markup alone runs together.
type boxWords struct {
	words []string
	edges [][]int
	cur   strings.Builder
	ce    []int
}

func (w *boxWords) brk() {
	if w.cur.Len() > 0 {
		w.words = append(w.words, w.cur.String())
		w.edges = append(w.edges, w.ce)
		w.cur.Reset()
		w.ce = nil
	}
}

// edge marks an element edge at the current place of the word being
// built.
func (w *boxWords) edge() {
	if n := w.cur.Len(); n > 0 && (len(w.ce) == 0 || w.ce[len(w.ce)-1] != n) {
		w.ce = append(w.ce, n)
	}
}

func (w *boxWords) flush() []string {
	w.brk()
	return w.words
}

func (w *boxWords) node(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			for _, r := range c.Data {
				if unicode.IsSpace(r) {
					w.brk()
				} else {
					w.cur.WriteRune(r)
				}
			}
		case html.ElementNode:
			switch c.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Noembed,
				atom.Noframes, atom.Textarea, atom.Select:
				w.edge()
				continue
			}
			box := isBlock(c.DataAtom)
			switch c.DataAtom {
			case atom.Td, atom.Th, atom.Br, atom.Img, atom.Option, atom.Tbody, atom.Thead, atom.Tfoot:
				box = true
			}
			if box {
				w.brk()
			} else {
				w.edge()
			}
			w.node(c)
			if box {
				w.brk()
			} else {
				w.edge()
			}
		}
	}
}

// contentStream is the character stream of a main-content tree: its
// non-space characters, and for each position whether a word of the
// tree starts or ends there.
type contentStream struct {
	b    []byte
	edge []bool // edge[i]: a word boundary lies before b[i] (or at the end)
	gap  bool
}

func (s *contentStream) node(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			for _, r := range c.Data {
				if unicode.IsSpace(r) {
					s.gap = true
					continue
				}
				k := len(s.b)
				s.b = utf8.AppendRune(s.b, r)
				for ; k < len(s.b); k++ {
					s.edge = append(s.edge, s.gap || len(s.edge) == 0)
					s.gap = false
				}
			}
		case html.ElementNode:
			switch c.Data {
			case "script", "style", "noscript", "template", "svg", "iframe", "noembed", "noframes",
				"button", "select", "form", "dialog", "textarea", "input", "head":
				continue
			}
			box := isBlock(atom.Lookup([]byte(c.Data)))
			switch c.Data {
			case "td", "th", "br", "img", "option", "tbody", "thead", "tfoot":
				box = true
			}
			if box {
				s.gap = true
			}
			s.node(c)
			if box {
				s.gap = true
			}
		}
	}
}

// mdPlain removes images (their alt text is no text of the page) and
// link targets ("](url)", "](url "title")", nested parentheses and all)
// from markdown; escaped brackets are text.
func mdPlain(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); i++ {
		switch {
		case md[i] == '\\' && i+1 < len(md):
			b.WriteString(md[i : i+2])
			i++
			continue
		case md[i] == '!' && i+1 < len(md) && md[i+1] == '[':
			if end := closing(md, i+1, '[', ']'); end > 0 && end+1 < len(md) && md[end+1] == '(' {
				if e := closing(md, end+1, '(', ')'); e > 0 {
					b.WriteByte(' ')
					i = e
					continue
				}
			}
		case md[i] == ']' && i+1 < len(md) && md[i+1] == '(':
			if e := closing(md, i+1, '(', ')'); e > 0 {
				b.WriteByte(']')
				i = e
				continue
			}
		}
		b.WriteByte(md[i])
	}
	return b.String()
}

// closing returns the index of the bracket closing the one at md[i], or
// -1; backslash escapes and quoted titles are skipped.
func closing(md string, i int, open, close byte) int {
	depth := 0
	var quote byte
	for k := i; k < len(md); k++ {
		c := md[k]
		switch {
		case c == '\\':
			k++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case open == '(' && (c == '"' || c == '\'') && k > 0 && md[k-1] == ' ':
			quote = c
		case c == open:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// mdSyntax are the characters of markdown syntax and escapes; words are
// compared without them.
var mdSyntax = strings.NewReplacer(`\`, "", "*", "", "`", "", "[", "", "]", "", "~", "", "|", "", "<", "", ">", "", "_", "", "#", "")

// normWord removes markdown syntax and control characters (which
// markdown drops) from w.
func normWord(w string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, mdSyntax.Replace(w))
}

func fieldSet(s string) map[string]bool {
	m := make(map[string]bool)
	for f := range strings.FieldsSeq(s) {
		if n := normWord(f); n != "" {
			m[n] = true
		}
	}
	return m
}
