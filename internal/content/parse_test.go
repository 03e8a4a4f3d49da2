package content

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// deepPage writes n blocks, block i holding the word "wordNi" (N: the
// numbers spelled with letters, so that each is one word of the text),
// each opened by open(i) and closed, if at all, by close.
func deepPage(n int, open func(i int) string, close string) (string, []string) {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><title>Deep</title></head><body>")
	words := make([]string, n)
	for i := range n {
		words[i] = "word" + letters(i)
		b.WriteString(open(i))
		b.WriteString(words[i])
		b.WriteString(" is here, in a sentence of its own. ")
		b.WriteString(close)
	}
	b.WriteString("</body></html>")
	return b.String(), words
}

// letters spells i in the letters a–j, one per decimal digit.
func letters(i int) string {
	s := []byte(fmt.Sprint(i))
	for k := range s {
		s[k] += 'a' - '0'
	}
	return string(s)
}

// TestParseDeepPages: pages nested past the parser's 512 open elements,
// the way real pages get there, convert instead of failing, and every
// word of the page is in the whole-body text, in order; the main
// content converts too.
func TestParseDeepPages(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		open  func(int) string
		close string
	}{
		{"a <div> per comment never closed", 800, func(int) string { return `<div class="comment">` }, ""},
		{"quotes of quotes", 700, func(int) string { return "<blockquote><p>" }, "</p>"},
		{"tables in tables", 300, func(int) string { return "<table><tr><td>" }, ""},
		{"self-closed divs", 900, func(int) string { return "<div/>" }, ""},
		{"formatting left open per block", 600, func(i int) string { return fmt.Sprintf(`<div><font class="f%d">`, i) }, "</div>"},
		{"sections and lists", 400, func(int) string { return "<section><ul><li>" }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page, words := deepPage(c.n, c.open, c.close)
			if _, err := html.Parse(strings.NewReader(page)); err == nil {
				t.Fatalf("the parser accepts this page: not a deep page")
			}
			doc, err := HTML([]byte(page), "http://127.0.0.1/", Options{})
			if err != nil {
				t.Fatalf("whole body: %v", err)
			}
			text := " " + strings.Join(strings.Fields(doc.Text), " ") + " "
			at := 0
			for _, w := range words {
				i := strings.Index(text[at:], " "+w+" ")
				if i < 0 {
					t.Fatalf("%s missing from the text, or out of order", w)
				}
				at += i + len(w)
			}
			if doc, err = HTML([]byte(page), "http://127.0.0.1/", Options{OnlyMainContent: true}); err != nil {
				t.Fatalf("main content: %v", err)
			}
			if !strings.Contains(doc.Text, words[len(words)/2]) {
				t.Errorf("main content lacks the middle block's word %s", words[len(words)/2])
			}
		})
	}
}

// TestParseDeepScripts: a script or style nested past the depth stays a
// script: its text never becomes page text.
func TestParseDeepScripts(t *testing.T) {
	page := strings.Repeat("<div>", 700) + "<p>Visible words of the page.</p><script>var hidden = 'scripttext';</script><style>.x{color:red}/* styletext */</style>" + strings.Repeat("<span>", 600) + "tail words"
	doc, err := HTML([]byte(page), "http://127.0.0.1/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Text, "scripttext") || strings.Contains(doc.Text, "styletext") {
		t.Errorf("script or style text in the page text: %q", doc.Text)
	}
	if !strings.Contains(doc.Text, "Visible words of the page.") || !strings.Contains(doc.Text, "tail words") {
		t.Errorf("text lost: %q", doc.Text)
	}
}

// TestParseHTMLUnchanged: a page the parser accepts is parsed as the
// parser does, and flattening a page no deeper than the depth changes
// nothing the parser reads.
func TestParseHTMLUnchanged(t *testing.T) {
	pages := []string{
		`<!DOCTYPE html><html><body><div><p>One <b>two <i>three</b> four</i></p><table><td>cell</table><svg><path d="M0"/><g/></svg><br/>x</div>`,
		`<p>unclosed <font color=red>text<div>block</div> more</font><script>if (a < b) {}</script><textarea><b>raw</b></textarea>`,
		strings.Repeat("<div>", 300) + "deep but not too deep",
	}
	for _, page := range pages {
		want := parsedRender(t, page)
		root, err := ParseHTML([]byte(page))
		if err != nil {
			t.Fatal(err)
		}
		if got := renderNode(t, root); got != want {
			t.Errorf("ParseHTML:\n%s\nhtml.Parse:\n%s", got, want)
		}
		var flat bytes.Buffer
		if err := flatten(&flat, strings.NewReader(page), 1<<20, true); err != nil {
			t.Fatal(err)
		}
		if got := parsedRender(t, flat.String()); got != want {
			t.Errorf("flattened:\n%s\nwant:\n%s", got, want)
		}
	}
}

func parsedRender(t *testing.T, page string) string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return renderNode(t, root)
}

func renderNode(t *testing.T, n *html.Node) string {
	t.Helper()
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestParseDeepBounded: a page that is nothing but unclosed elements,
// 2 MB of them, costs a few parses of its size, not more.
func TestParseDeepBounded(t *testing.T) {
	for _, unit := range []string{"<div>", "<b class=x>", "<table><td>", "<div><font class=a>x</div>"} {
		page := []byte(strings.Repeat(unit, (2<<20)/len(unit)))
		var err error
		took := spent(func() { _, err = HTML(page, "http://127.0.0.1/", Options{OnlyMainContent: true}) })
		if err != nil && err != ErrEmpty && !strings.Contains(err.Error(), "too deep") {
			t.Errorf("%s: %v", unit, err)
		}
		if took > 20*time.Second {
			t.Errorf("%s ×%d: %v of CPU", unit, len(page)/len(unit), took)
		}
		t.Logf("%s: %v of CPU, err %v", unit, took, err)
	}
}

// FuzzFlatten: flattening a page at a depth it never reaches changes
// nothing the parser reads; at any depth the result parses.
func FuzzFlatten(f *testing.F) {
	f.Add(`<div><p>One <b>two <i>three</b> four</i></p><table><td>cell</table><svg><path/></svg>`, 3)
	f.Add(strings.Repeat("<div>", 600)+"x", 100)
	f.Add(`<script><div></script><style></div></style><title><b></title>`, 1)
	f.Add(`<font><div><font></div><font>`, 2)
	f.Fuzz(func(t *testing.T, page string, depth int) {
		if len(page) > 1<<16 {
			return
		}
		depth = 1 + abs(depth)%600
		want, err := html.Parse(strings.NewReader(page))
		var flat bytes.Buffer
		if ferr := flatten(&flat, strings.NewReader(page), 1<<20, true); ferr != nil {
			t.Fatal(ferr)
		}
		got, gerr := html.Parse(bytes.NewReader(flat.Bytes()))
		if (err == nil) != (gerr == nil) {
			t.Fatalf("parse error %v, flattened %v", err, gerr)
		}
		if err == nil && renderNode(t, got) != renderNode(t, want) {
			t.Fatalf("flattening changed the tree")
		}
		if _, err := ParseHTML([]byte(page)); err != nil && err != errTooDeep {
			t.Fatalf("ParseHTML: %v", err)
		}
		flat.Reset()
		if err := flatten(&flat, strings.NewReader(page), depth, depth%2 == 0); err != nil {
			t.Fatal(err)
		}
		if flat.Len() > len(page) {
			t.Fatalf("flattened to %d bytes from %d", flat.Len(), len(page))
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
