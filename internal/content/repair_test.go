package content

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// shortPage is a page too short for the readability pass (under
// minArticleChars), so main content comes from trafilatura: an <h1>, a
// paragraph and what follows.
func shortPage(rest string) []byte {
	return []byte(`<!doctype html><html><head><title>Example Corp</title></head><body><main>` +
		`<h1>Third quarter results</h1>` +
		`<p>The board declared a dividend on the common stock, payable on December 15 to holders ` +
		`of record at the close of business on December 1, 2026. Revenue grew in every region, led by ` +
		`services, while hardware sales were flat.</p>` + rest +
		`</main><footer>© Example Corp</footer></body></html>`)
}

// convertShort converts a short page in both modes, checking that main
// content took the trafilatura path.
func convertShort(t *testing.T, doc []byte, check func(t *testing.T, d *Document)) {
	t.Helper()
	before := fallbacks.Load()
	convertBoth(t, doc, check)
	if fallbacks.Load() == before {
		t.Fatal("the page did not go to trafilatura; the test no longer covers that path")
	}
}

func TestShortPageSpaces(t *testing.T) {
	doc := shortPage(`<ul><li><b>0.25</b> <i>per share</i></li>` +
		`<li><a href="/r/q3">Third quarter results</a> <span>Nov 12, 2026</span></li>` +
		`<li><a href="/r/q2">Second quarter results</a>` + "\n" + `<span>Aug 12, 2026</span></li></ul>`)
	convertShort(t, doc, func(t *testing.T, d *Document) {
		for _, want := range []string{
			"**0.25** *per share*",
			"[Third quarter results](https://example.com/r/q3) Nov 12, 2026",
			"[Second quarter results](https://example.com/r/q2) Aug 12, 2026",
		} {
			if !strings.Contains(d.Markdown, want) {
				t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
			}
		}
		for _, want := range []string{"0.25 per share", "Third quarter results Nov 12, 2026", "Second quarter results Aug 12, 2026"} {
			if !strings.Contains(d.Text, want) {
				t.Errorf("text lacks %q; got:\n%s", want, d.Text)
			}
		}
	})
}

func TestShortPageTableCells(t *testing.T) {
	doc := shortPage(`<table><tr><th>Item</th><th>Q3</th><th>Q2</th></tr>` +
		`<tr><td><a href="/eps">EPS</a> <small>diluted</small></td><td>0.42</td><td>0.40</td></tr>` +
		`<tr><td>Revenue</td><td>12.1</td><td>11.8</td></tr>` +
		`<tr><td></td><td>n/a</td><td>n/a</td></tr></table>`)
	convertShort(t, doc, func(t *testing.T, d *Document) {
		for _, want := range []string{
			"| [EPS](https://example.com/eps) diluted | 0.42 | 0.40 |",
			"| Revenue | 12.1 | 11.8 |",
			"|  | n/a | n/a |",
		} {
			if !strings.Contains(d.Markdown, want) {
				t.Errorf("markdown lacks the row %q; got:\n%s", want, d.Markdown)
			}
		}
		if !strings.Contains(d.Text, "EPS diluted 0.42 0.40") {
			t.Errorf("text lacks the EPS row; got:\n%s", d.Text)
		}
	})
}

// TestRepairAlignment checks repair on a written result: a word the
// result glued is split where the page breaks it, and only where the
// alignment is sure of the place.
func TestRepairAlignment(t *testing.T) {
	for _, c := range []struct{ page, result, want string }{
		// The result ran two words of the page together in one text.
		{`<p>Auckland is in New <b>Zealand</b> <i>at last</i>.</p>`, `<p>Auckland is in New Zealandat last.</p>`,
			`<p>Auckland is in New Zealand at last.</p>`},
		// Across elements: the space goes before the link, not into it.
		{`<p>See <em>the</em> <a href="/x">report</a> now.</p>`, `<p>See <em>the</em><a href="/x">report</a> now.</p>`,
			`<p>See <em>the</em> <a href="/x">report</a> now.</p>`},
		// Glued in the page too: nothing to do.
		{`<p>un<b>believ</b>able</p>`, `<p>un<b>believ</b>able</p>`, `<p>un<b>believ</b>able</p>`},
		// "into" of the result is not "in to" of the page's menu before it.
		{`<nav>Log in to reply</nav><p>We went into the house.</p>`, `<p>We went into the house.</p>`,
			`<p>We went into the house.</p>`},
		// Code keeps its text.
		{`<pre>a b</pre><p>x</p>`, `<pre>ab</pre><p>x</p>`, `<pre>ab</pre><p>x</p>`},
	} {
		page, err := html.Parse(strings.NewReader(c.page))
		if err != nil {
			t.Fatal(err)
		}
		res := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
		nodes, err := html.ParseFragment(strings.NewReader(c.result), res)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			res.AppendChild(n)
		}
		repair(findBody(page), res)
		var b bytes.Buffer
		for n := res.FirstChild; n != nil; n = n.NextSibling {
			_ = html.Render(&b, n)
		}
		if got := b.String(); got != c.want {
			t.Errorf("page %s, result %s: got %s, want %s", c.page, c.result, got, c.want)
		}
	}
}
