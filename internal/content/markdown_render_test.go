package content

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// fragmentMarkdown renders an HTML fragment as the pipeline renders a
// content tree (NodeMarkdown: tables normalised, URLs made absolute).
func fragmentMarkdown(t testing.TB, fragment string) string {
	t.Helper()
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(fragment), ctx)
	if err != nil {
		t.Fatal(err)
	}
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return NodeMarkdown(root, "https://example.com/a/")
}

// TestMarkdownRenderer pins what markdown.go writes. Each want was also
// the html-to-markdown library's output for its input (with the
// pipeline's handlers), which the renderer replaced.
func TestMarkdownRenderer(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"escapes in text", "<p>2 * 3 = 6, a_b, # not a heading, 1. not a list, [x] and `tick`</p>",
			"2 * 3 = 6, a\\_b, # not a heading, 1. not a list, \\[x] and \\`tick\\`"},
		{"escapes at line start", "<p># Heading-like</p><p>1. First</p><p>- dash</p><p>+ plus</p><p>***</p><p>&gt; quote</p><p>a<br>=== b</p>",
			"\\# Heading-like\n\n1\\. First\n\n\\- dash\n\n\\+ plus\n\n\\*\\**\n\n\\> quote\n\na  \n\\=== b"},
		{"adjacent emphasis merged", "<p><b>bold</b><i>it</i></p>", "**boldit**"},
		{"nested and numbered lists", `<ul><li>one<ul><li>nested <b>bold</b></li></ul></li><li>two</li></ul><ol start="9"><li>nine</li><li>ten</li></ol>`,
			"- one\n  \n  - nested **bold**\n- two\n\n<!--THE END-->\n\n09. nine\n10. ten"},
		{"stray list children", "<ul>text<li>x</li>more</ul>", "- text\n- xmore"},
		{"code fence longer than the code's", "<pre><code class=\"language-go\">x := \"```\"\ny := 1</code></pre>",
			"````go\nx := \"```\"\ny := 1\n````"},
		{"code block in a list item", "<ul><li><pre><code>a\nb</code></pre></li></ul>", "- ```\n  a\n  b\n  ```"},
		{"nested quotes", "<blockquote><p>q1</p><blockquote><p>q2</p></blockquote></blockquote>", "> q1\n> \n> > q2"},
		{"headings", "<h2>Title #</h2><h3>Multi <br>line</h3>", "## Title \\#\n\n### Multi line"},
		{"blocks inside a link", `<a href="/x"><h2>Card</h2><p>teaser</p></a>`, "[**Card**  \n\\\nteaser](https://example.com/x)"},
		{"table with span, alignment, caption", `<table><tr><th>A</th><th align="right">B</th></tr><tr><td colspan="2">wide | pipe</td></tr><tr><td>1</td><td>2</td></tr><caption>Cap</caption></table>`,
			"| A | B |\n|---|--:|\n| wide \\| pipe |  |\n| 1 | 2 |\n\nCap"},
		{"strikethrough, link title, image", `<p><del>gone</del> <s>old</s> and <a href="https://e.com/q?a=b c&amp;d=1" title='say "hi"'>link [1]</a> <img src="/i.png" alt="an [img]" title="t"></p>`,
			"~~gone~~ ~~old~~ and [link \\[1\\]](https://e.com/q?a=b%20c&d=1 'say \"hi\"') ![an \\[img\\]](https://example.com/i.png \"t\")"},
		{"white space between inline elements", "<p>word<span>glued</span> <em> spaced </em>end <code>a  b</code> <b><code>x</code></b>y</p>",
			"wordglued *spaced* end `a b` **`x`** y"},
		{"angle brackets, empty links", `<p>a &lt;div&gt; b &lt;3 and <a href="#">hash</a> <a href="">empty</a> <a href="/z"> </a></p>`,
			"a \\<div> b <3 and [hash](#) empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fragmentMarkdown(t, c.in); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// nest builds depth elements named name, each inside the one before,
// the innermost holding text; inner, when set, is put between levels
// (an <li> inside each list).
func nest(name string, inner []string, depth int) *html.Node {
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	p := root
	for range depth {
		e := &html.Node{Type: html.ElementNode, Data: name, DataAtom: atom.Lookup([]byte(name))}
		p.AppendChild(e)
		p = e
		for i, name := range inner {
			e := &html.Node{Type: html.ElementNode, Data: name, DataAtom: atom.Lookup([]byte(name))}
			p.AppendChild(e)
			if i == 0 {
				p.AppendChild(&html.Node{Type: html.TextNode, Data: "item"})
			}
			p = e
		}
	}
	p.AppendChild(&html.Node{Type: html.TextNode, Data: "deep *text*"})
	return root
}

// TestMarkdownHostileTrees: trees far deeper or wider than the HTML
// parser builds (it stops at 512 open elements) render in bounded time
// and size, without panicking. The renderer is called directly.
func TestMarkdownHostileTrees(t *testing.T) {
	wide := &html.Node{Type: html.ElementNode, Data: "table", DataAtom: atom.Table}
	for range 300 {
		tr := &html.Node{Type: html.ElementNode, Data: "tr", DataAtom: atom.Tr}
		for range 300 {
			td := &html.Node{Type: html.ElementNode, Data: "td", DataAtom: atom.Td, Attr: []html.Attribute{{Key: "colspan", Val: "2"}}}
			td.AppendChild(&html.Node{Type: html.TextNode, Data: "a|b"})
			tr.AppendChild(td)
		}
		wide.AppendChild(tr)
	}
	for _, c := range []struct {
		name    string
		tree    *html.Node
		maxSize int
	}{
		{"10,000 nested lists", nest("ul", []string{"li"}, 10000), 4 << 20},
		{"10,000 nested quotes", nest("blockquote", nil, 10000), 1 << 20},
		{"10,000 nested emphasis", nest("b", nil, 10000), 1 << 10},
		{"10,000 nested code", nest("code", nil, 10000), 1 << 10},
		{"10,000 nested links", nest("a", nil, 10000), 1 << 10},
		{"10,000 nested spans", nest("span", nil, 10000), 1 << 10},
		{"10,000 nested tables", nest("table", []string{"tr", "td"}, 10000), 1 << 20},
		{"a table of 300 × 600 cells", wide, 4 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			var md string
			d := spent(func() { md = markdown(c.tree) })
			if d > 20*time.Second {
				t.Errorf("took %v of CPU", d)
			}
			if len(md) > c.maxSize {
				t.Errorf("%d bytes of markdown, want at most %d", len(md), c.maxSize)
			}
			if !strings.Contains(md, "deep") && !strings.Contains(md, "a\\|b") {
				t.Errorf("the innermost text is lost: %.200q", md)
			}
			if !utf8.ValidString(md) {
				t.Errorf("markdown is not valid UTF-8")
			}
			t.Logf("%d bytes in %v of CPU", len(md), d)
		})
	}
}

// TestDropEmptyCode: code elements with no text inside, however
// nested, go; those with text stay, with their empty code children
// gone; and 200,000 code elements inside each other are judged in
// linear time (asking each one for its text anew walked the whole
// chain below it: 2·10¹⁰ steps).
func TestDropEmptyCode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`<p>a<code></code>b</p>`, `<p>ab</p>`},
		{`<p>a<code><code><span></span></code></code>b</p>`, `<p>ab</p>`},
		{`<p><code>x<code></code></code></p>`, `<p><code>x</code></p>`},
		{`<p><code><code></code><b>y</b></code><code> </code></p>`, `<p><code><b>y</b></code><code> </code></p>`},
		{`<p><code><!-- c --></code>z</p>`, `<p>z</p>`},
	} {
		root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		nodes, err := html.ParseFragment(strings.NewReader(c.in), root)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			root.AppendChild(n)
		}
		dropEmptyCode(root)
		var b strings.Builder
		for n := root.FirstChild; n != nil; n = n.NextSibling {
			if err := html.Render(&b, n); err != nil {
				t.Fatal(err)
			}
		}
		if b.String() != c.want {
			t.Errorf("%s: got %s, want %s", c.in, b.String(), c.want)
		}
	}
	deep := nest("code", nil, 200000)
	if d := spent(func() { dropEmptyCode(deep) }); d > 5*time.Second {
		t.Errorf("200,000 nested code elements took %v of CPU", d)
	}
	if !strings.Contains(nodeText(deep), "deep") {
		t.Errorf("the text at the bottom of the chain is lost")
	}
}

// FuzzMarkdown renders arbitrary fragments: no panic, valid UTF-8 out of
// valid UTF-8 in.
func FuzzMarkdown(f *testing.F) {
	for _, seed := range []string{
		"", "<ul><li><ol><li><blockquote><h2>deep</h2></blockquote></li></ol></li></ul>",
		"<table><tr><td rowspan=3 colspan=2>a</td><th>b<caption>c</caption></table>",
		"<a href='x'><pre>p\nq</pre><hr><h1>#</h1></a><b><i><b>x</b></i></b>",
		"<code><pre>a</pre></code><kbd></kbd><var>` `` `</var>",
		"<p>*_#1.[]`\\~<>&lt;&gt;!|</p><ul>a<li>b</li>c</ul><ul></ul><ol start=-3><li>x</li></ol>",
		"<del><s>x</s></del><span><div>y</div></span>\x00",
		"<blockquote>\n\n</blockquote><h3>  </h3><a href=' '>t</a><img src=' '>",
		strings.Repeat("<ul><li>", 200) + "x",
		strings.Repeat("<blockquote>", 300) + "x",
		// White space at the edges of inline code goes outside the span.
		"<p>the<code> a b </code>c<code>\n</code>d<pre><code> e </code></pre><code><b> f</b></code></p>",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, fragment string) {
		ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		if _, err := html.ParseFragment(strings.NewReader(fragment), ctx); err != nil {
			return // nested deeper than the parser allows
		}
		md := fragmentMarkdown(t, fragment)
		if utf8.ValidString(fragment) && !utf8.ValidString(md) {
			t.Fatalf("markdown is not valid UTF-8: %q", md)
		}
	})
}

// TestReplaceShrink compares replaceShrink with bytes.ReplaceAll on every
// string of up to 9 bytes over the bytes the finish's patterns are made
// of, and checks that it works in the slice it is given: the renderer's
// pooled buffers keep their capacity (a fresh slice from bytes.ReplaceAll
// had one page's size, and the next page grew it again).
func TestReplaceShrink(t *testing.T) {
	pats := []struct{ old, new string }{
		{"  \n\n", "\n\n"}, {"  \n  \n", "\n\n"}, {"  \n \n", "\n\n"}, {codeNewline, "\n"}, {"aa", "a"}, {"a", ""},
	}
	alphabet := []string{" ", "\n", "a", codeNewline}
	var each func(s string, depth int)
	each = func(s string, depth int) {
		for _, p := range pats {
			want := string(bytes.ReplaceAll([]byte(s), []byte(p.old), []byte(p.new)))
			b := append(make([]byte, 0, len(s)+8), s...)
			got := replaceShrink(b, p.old, p.new)
			if string(got) != want {
				t.Fatalf("replaceShrink(%q, %q, %q) = %q, want %q", s, p.old, p.new, got, want)
			}
			if cap(got) != cap(b) || (len(got) > 0 && &got[0] != &b[0]) {
				t.Fatalf("replaceShrink(%q, %q, %q) left the slice it was given", s, p.old, p.new)
			}
		}
		if depth == 0 {
			return
		}
		for _, a := range alphabet {
			each(s+a, depth-1)
		}
	}
	each("", 6)
	b := []byte("a  \n\nb  \n  \nc  \n \nd")
	got := trimHardBreaks(b)
	if string(got) != "a\n\nb\n\nc\n\nd" || &got[0] != &b[0] {
		t.Fatalf("trimHardBreaks = %q, not in place", got)
	}
}
