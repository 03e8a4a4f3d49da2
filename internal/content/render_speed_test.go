package content

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// randomText joins n pieces drawn from pieces.
func randomText(rng *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// TestNextRunAsByteByByte compares nextRun, which reads eight bytes at
// a time, with the rule read a byte at a time, from every start, on
// long texts of words, single and double spaces and other white space.
func TestNextRunAsByteByByte(t *testing.T) {
	want := func(s string, i int) int {
		for ; i < len(s); i++ {
			if c := s[i]; c == '\n' || c == '\r' || c == '\t' || c == ' ' && i+1 < len(s) && isRunSpace(s[i+1]) {
				return i
			}
		}
		return len(s)
	}
	pieces := []string{"a", "word", "words ", " ", " ", " ", "  ", "\n", "\r", "\t", "\f", "\v", "\x00", "é", "\xff", "!"}
	rng := rand.New(rand.NewSource(4))
	for range 30000 {
		s := randomText(rng, pieces, rng.Intn(40))
		for i := 0; i <= len(s); i++ {
			if got, w := nextRun(s, i), want(s, i); got != w {
				t.Fatalf("nextRun(%q, %d) = %d, want %d", s, i, got, w)
			}
		}
	}
}

// TestCollapseRunsLong is TestCollapseRunsAsRegexp on texts longer than
// its pieces make, where nextRun reads eight bytes at a time.
func TestCollapseRunsLong(t *testing.T) {
	pieces := []string{"a", "word", "a few words ", " ", "  ", "\n", "\r\n", "\t", "\f", "é", " x ", "\n   "}
	rng := rand.New(rand.NewSource(5))
	for range 30000 {
		s := randomText(rng, pieces, rng.Intn(30))
		if got, want := collapseRuns(s), oneSpace(s); got != want {
			t.Fatalf("collapseRuns(%q) = %q, want %q", s, got, want)
		}
	}
}

// oneSpace turns each run of ' ', '\n', '\r' and '\t' into one space.
func oneSpace(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isRunSpace(s[i]) {
			b.WriteByte(' ')
			for i+1 < len(s) && isRunSpace(s[i+1]) {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestCollapseBytesAsCollapse compares collapseBytes with collapse on
// texts of ASCII and Unicode white space (the '\v' that collapse keeps
// in a text it does not rewrite, and splits on in one it does), words,
// other bytes over 0x7f and invalid UTF-8.
func TestCollapseBytesAsCollapse(t *testing.T) {
	pieces := []string{"a", "word", " ", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "\u0085", "\u2003",
		"\u3000", "é", "—", "\xff", "\xc2", "$"}
	var scratch []byte
	check := func(s string) {
		t.Helper()
		b := []byte(s)
		if got, want := collapseBytes(b, &scratch), collapse(s); got != want {
			t.Fatalf("collapseBytes(%q) = %q, want %q", s, got, want)
		}
		if string(b) != s {
			t.Fatalf("collapseBytes(%q) changed its text to %q", s, b)
		}
	}
	overPieces(pieces, 12, check)
}

// TestKindOfShortLower compares kindOf with its rule lowering the whole
// text, on texts of the nil marks' pieces in both cases and of runes
// that lower to a letter of another length.
func TestKindOfShortLower(t *testing.T) {
	nils := map[string]bool{"—": true, "–": true, "-": true, "−": true, "$—": true, "$ —": true, "$-": true,
		"$ -": true, "n/a": true, "nm": true, "n/m": true}
	pieces := []string{"n", "N", "/", "a", "A", "m", "M", "$", " ", "—", "–", "-", "−", "\u212a", "\u0130", "\u212b",
		"1", "(", ")", "%"}
	overPieces(pieces, 8, func(s string) {
		got := kindOf(s)
		if nils[strings.ToLower(s)] != (got == kindNil) {
			t.Fatalf("kindOf(%q) = %d, its lower case %q", s, got, strings.ToLower(s))
		}
	})
}

// TestPlainURLAsParsed checks that appendURL's parse of a plainURL
// writes it as it stands, on URLs of pieces around the bytes it
// accepts, and that it accepts the URLs the pipeline makes.
func TestPlainURLAsParsed(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1/sql-select.html", "https://example.com/a/b#Section-2",
		"https://example.com", "http://example.com:8080/x.html"} {
		if !plainURL(u) {
			t.Errorf("plainURL(%q) = false", u)
		}
	}
	pieces := []string{"http://", "https://", "HTTP://", "h", "Host", "127.0.0.1", ":8080", ":", ":x", "/", "//",
		"a", "#", "x.html", "-", "_", "~", ".", "..", "%20", "%", "?", "q=1", "&", "+", "@", " ", "[", "(", "é", "\n"}
	plain := 0
	overPieces(pieces, 10, func(s string) {
		if !plainURL(s) {
			return
		}
		plain++
		if got := string(appendParsedURL(nil, s)); got != s {
			t.Fatalf("plainURL(%q), written %q", s, got)
		}
	})
	if plain < 1000 {
		t.Fatalf("only %d plain URLs among the pieces", plain)
	}
}

// TestPrepareAsAllPasses compares prepare, which skips the passes on
// kinds of elements a tree does not hold and renames fake spans in the
// walk that drops elements, with every pass run in turn, on random
// trees of the elements the passes act on, rooted at <body> and at
// elements of those kinds.
func TestPrepareAsAllPasses(t *testing.T) {
	pieces := []string{"<b>", "</b>", "<strong>", "</strong>", "<em>", "</em>", "<i>", "</i>", "<code>", "</code>",
		"<kbd>", "</kbd>", "<pre>", "</pre>", `<a href="x">`, "</a>", "<h2>", "</h2>", "<del>", "</del>", "<s>", "</s>",
		"<ul>", "</ul>", "<ol>", "</ol>", "<li>", "</li>", "<span>", "</span>", "<div>", "</div>", "<p>", "</p>",
		"<br>", "<hr>", "<blockquote>", "</blockquote>", "<table><tr><td>", "</td></tr></table>", "<button>", "</button>",
		"<!-- c -->", "word", " ", "\n ", "x y", "*"}
	rng := rand.New(rand.NewSource(6))
	last := 0 // roots in the document that nothing follows
	var sp spaceTexts
	for range 20000 {
		src := randomText(rng, pieces, 1+rng.Intn(24))
		doc, err := html.Parse(strings.NewReader("<body>" + src))
		if err != nil {
			t.Fatal(err)
		}
		body := findBody(doc)
		roots := []*html.Node{body}
		walkElements(body, func(n *html.Node) {
			if n.Data != "button" && rng.Intn(4) == 0 {
				roots = append(roots, n)
			}
		})
		for _, root := range roots {
			a, b := copyWithAncestors(root), copyWithAncestors(root)
			if nextNodeSkip(a) == nil {
				last++
			}
			prepare(a, &sp)
			prepareAllPasses(b)
			if got, want := renderTree(a), renderTree(b); got != want {
				t.Fatalf("%q from <%s>:\n got %q\nwant %q", src, root.Data, got, want)
			}
			// A copy on its own, as the readability pass's article.
			a, b = cloneTree(root), cloneTree(root)
			prepare(a, &sp)
			prepareAllPasses(b)
			if got, want := renderTree(a), renderTree(b); got != want {
				t.Fatalf("%q from <%s>, a copy:\n got %q\nwant %q", src, root.Data, got, want)
			}
		}
	}
	if last < 20000 {
		t.Fatalf("only %d trees that nothing follows", last)
	}
}

// copyWithAncestors copies n's subtree under copies of its ancestors
// (the passes read them), with its siblings (mergeAdjacent may reach
// them).
func copyWithAncestors(n *html.Node) *html.Node {
	var top *html.Node
	for top = n; top.Parent != nil; top = top.Parent {
	}
	k := cloneTree(top)
	// The copy of n: the same path of child indexes from the top.
	var path []int
	for x := n; x != top; x = x.Parent {
		i := 0
		for s := x.PrevSibling; s != nil; s = s.PrevSibling {
			i++
		}
		path = append(path, i)
	}
	c := k
	for j := len(path) - 1; j >= 0; j-- {
		c = c.FirstChild
		for range path[j] {
			c = c.NextSibling
		}
	}
	return c
}

// renderTree renders the whole document holding n.
func renderTree(n *html.Node) string {
	for n.Parent != nil {
		n = n.Parent
	}
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return err.Error()
	}
	return b.String()
}

// prepareAllPasses is prepare as it was before the census: every pass,
// the fake spans renamed in a walk of their own and each text given its
// own string as it is collapsed.
func prepareAllPasses(root *html.Node) {
	dropRemovedOnly(root)
	renameFakeSpansOnly(root)
	unwrapNested(root, func(n *html.Node) int {
		if isBold(n) {
			return 1
		}
		if isItalic(n) {
			return 2
		}
		return 0
	})
	mergeAdjacent(root, isEmph)
	dropEmptyCode(root)
	swapTags(root, isInlineCode, isPre)
	mergeAdjacent(root, isInlineCode)
	spaceOutOfCode(root)
	spaceAroundCode(root)
	unwrapNested(root, func(n *html.Node) int {
		if isLink(n) {
			return 1
		}
		return 0
	})
	swapTags(root, isEmph, isLink)
	swapTags(root, isLink, isHeading)
	demoteBlocks(root, false, false)
	wrapListChildren(root)
	unwrapNested(root, func(n *html.Node) int {
		if isStrike(n) {
			return 1
		}
		return 0
	})
	mergeAdjacent(root, isStrike)
	collapseSpaceOneByOne(root)
	markListEnds(root)
}

func dropRemovedOnly(n *html.Node) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if removed(c) {
			n.RemoveChild(c)
			continue
		}
		dropRemovedOnly(c)
	}
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		for c.Type == html.TextNode && next != nil && next.Type == html.TextNode {
			c.Data += next.Data
			n.RemoveChild(next)
			next = c.NextSibling
		}
	}
}

func renameFakeSpansOnly(n *html.Node) bool {
	has := false
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		block := blockName(c.Data)
		if renameFakeSpansOnly(c) {
			if c.Data == "span" {
				c.Data = "div"
			}
			has = true
		}
		if block {
			has = true
		}
	}
	return has
}

// TestInlineCodeAsBefore compares inlineCode with its former three
// passes (breaks and tabs replaced, runs of spaces cut, the fence from
// the longest run of '`'), on code texts of spaces, breaks, backticks
// and other white space.
func TestInlineCodeAsBefore(t *testing.T) {
	before := func(code []byte) []byte {
		var out []byte
		if len(bytes.TrimSpace(code)) == 0 {
			out = append(out, '`')
			out = append(out, code...)
			return append(out, '`')
		}
		var t2 []byte
		for _, c := range bytes.TrimSpace(code) {
			if c == '\n' || c == '\t' {
				c = ' '
			}
			t2 = append(t2, c)
		}
		t := bytes.TrimSpace(t2)
		j := 0
		for i, c := range t {
			if c == ' ' && i > 0 && t[i-1] == ' ' {
				continue
			}
			t[j] = c
			j++
		}
		t = t[:j]
		fence := longestRun(t, '`') + 1
		out = appendRepeat(out, '`', fence)
		if t[0] == '`' {
			out = append(out, ' ')
		}
		out = append(out, t...)
		if t[len(t)-1] == '`' {
			out = append(out, ' ')
		}
		return appendRepeat(out, '`', fence)
	}
	pieces := []string{"a", "x()", " ", "  ", "\n", "\t", "\r", "\v", "\u00a0", "`", "``", "```"}
	var w mdWriter
	overPieces(pieces, 10, func(s string) {
		n := &html.Node{Type: html.ElementNode, Data: "code"}
		n.AppendChild(&html.Node{Type: html.TextNode, Data: s})
		w.b = w.b[:0]
		w.inlineCode(n)
		if want := before([]byte(s)); string(w.b) != string(want) {
			t.Fatalf("inlineCode(%q) = %q, want %q", s, w.b, want)
		}
	})
}

// collapseSpaceOneByOne is collapseSpace with each text collapsed into
// a string of its own as the walk meets it.
func collapseSpaceOneByOne(root *html.Node) {
	if root.FirstChild == nil || isElem(root, "pre", "code") {
		return
	}
	var prevText, prev *html.Node
	keep := false
	n := collapseNext(nil, root)
	for n != root {
		switch n.Type {
		case html.TextNode:
			text := collapseRuns(n.Data)
			if (prevText == nil || strings.HasSuffix(prevText.Data, " ")) && !keep && text != "" && text[0] == ' ' {
				text = text[1:]
			}
			if text == "" {
				n = removeForCollapse(n)
				continue
			}
			n.Data = text
			prevText = n
		case html.ElementNode:
			switch {
			case blockName(n.Data) && n.Data != "td" && n.Data != "th" || n.Data == "br":
				if prevText != nil {
					prevText.Data = strings.TrimSuffix(prevText.Data, " ")
				}
				prevText = nil
				keep = false
			case voidName(n.Data) || n.Data == "pre" || n.Data == "code":
				prevText = nil
				keep = true
			case prevText != nil:
				keep = false
			}
		case html.CommentNode:
		default:
			n = removeForCollapse(n)
			continue
		}
		next := collapseNext(prev, n)
		prev = n
		n = next
	}
	if prevText != nil {
		prevText.Data = strings.TrimSuffix(prevText.Data, " ")
		if prevText.Data == "" {
			removeForCollapse(prevText)
		}
	}
}

// collapseRuns turns each run of spaces, tabs and line breaks into one
// space (the texts collapseSpace writes).
func collapseRuns(s string) string {
	i := nextRun(s, 0)
	if i == len(s) {
		return s
	}
	return string(appendCollapsed(nil, s, i))
}
