package content

import (
	"fmt"
	"strings"
	"testing"
)

// prose is enough text for the readability pass to take the article
// itself (it retries, then hands short pages to trafilatura).
const prose = `<p>The quarterly report covers revenue, margins and the outlook for the
coming year. Revenue grew in every region, led by the services business,
while hardware sales were flat against a strong prior-year quarter.</p>
<p>Operating margin widened by two points as the company closed two plants
and moved production closer to its largest customers. Management expects
the savings to continue through the next fiscal year and into the one after.</p>
<p>The board declared a regular dividend and authorised a new buyback
programme, to be carried out over the next eighteen months as market
conditions allow, without changing the long-term capital plan.</p>`

// page wraps body in a document titled title.
func page(title, body string) []byte {
	return []byte("<!doctype html><html><head><title>" + title + "</title></head><body>" +
		`<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>` +
		body + "<footer>© Example Corp</footer></body></html>")
}

// convertBoth converts doc with and without onlyMainContent.
func convertBoth(t *testing.T, doc []byte, check func(t *testing.T, d *Document)) {
	t.Helper()
	for _, onlyMain := range []bool{true, false} {
		t.Run(fmt.Sprintf("onlyMainContent=%v", onlyMain), func(t *testing.T) {
			d, err := HTML(doc, "https://example.com/news/q3", Options{OnlyMainContent: onlyMain})
			if err != nil {
				t.Fatal(err)
			}
			check(t, d)
		})
	}
}

func TestMarkdownAngleBrackets(t *testing.T) {
	doc := page("Q3", `<article>`+prose+
		`<p>If a &lt; b and b &gt; c, then a &lt; c; the arrow -&gt; points right, x &lt;= 5, 3 &lt; 4 &lt;3.</p>`+
		`<p>&gt; not a quote</p>`+
		`<p>Write the &lt;div&gt; tag, &lt;/p&gt; ends it, &lt;!-- a comment --&gt;, &lt;?php ?&gt;, &lt;https://example.com&gt; and &lt;ops@example.com&gt; &lt;=x@example.com&gt;.</p>`+
		`<p>In code: <code>a &lt; b &amp;&amp; c &gt; d</code>.</p>`+
		`<pre><code>if a &lt; b {
	return &lt;-ch
}</code></pre></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		for _, want := range []string{
			// Prose: the characters themselves.
			"If a < b and b > c, then a < c; the arrow -> points right, x <= 5, 3 < 4 <3.",
			// At the start of a line ">" would open a block quote.
			`\> not a quote`,
			// Where "<" would start a tag, a comment, an instruction or an
			// autolink, it stays escaped.
			`Write the \<div> tag, \</p> ends it, \<!-- a comment -->, \<?php ?>, \<https://example.com> and \<ops@example.com> \<=x@example.com>.`,
			// Code keeps its text as it is.
			"`a < b && c > d`",
			"```\nif a < b {\n\treturn <-ch\n}\n```",
		} {
			if !strings.Contains(d.Markdown, want) {
				t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
			}
		}
		if strings.Contains(d.Markdown, "&lt;") || strings.Contains(d.Markdown, "&gt;") {
			t.Errorf("markdown holds an entity; got:\n%s", d.Markdown)
		}
	})
}

func TestMarkdownHeadingLevel(t *testing.T) {
	// The <title> differs from the <h1>, so the extractor keeps the heading.
	doc := page("Example Corp — Investor Relations", `<main><article><h1>Third quarter results</h1>`+prose+
		`<h2>Outlook</h2>`+prose+`</article></main>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		if !strings.Contains(d.Markdown, "# Third quarter results\n") || strings.Contains(d.Markdown, "## Third quarter results") {
			t.Errorf("the <h1> is not a level-1 heading; got:\n%s", d.Markdown)
		}
		if !strings.Contains(d.Markdown, "\n## Outlook\n") {
			t.Errorf("the <h2> is not a level-2 heading; got:\n%s", d.Markdown)
		}
		if strings.Contains(d.Markdown, "data-") {
			t.Errorf("markdown holds a marker; got:\n%s", d.Markdown)
		}
	})
}

func TestMarkdownHeadingLevelHTML(t *testing.T) {
	doc := page("Example Corp — Investor Relations", `<main><article><h1 class="title">Third quarter results</h1>`+prose+`</article></main>`)
	d, err := HTML(doc, "https://example.com/news/q3", Options{OnlyMainContent: true, IncludeHTML: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.HTML, `<h1 class="title">Third quarter results</h1>`) {
		t.Errorf("html does not keep the <h1> as it was; got:\n%s", d.HTML)
	}
}

func TestMarkdownSingleLineCodeBlock(t *testing.T) {
	for name, body := range map[string]string{
		// Long enough for the readability pass.
		"article": `<article>` + prose + `<pre><code>go install example.com/tool@latest</code></pre>` +
			`<pre><code class="language-go">x := 1</code></pre><p>Run <code>make</code> first.</p></article>`,
		// Short: trafilatura's turn, which renames <pre> to <code>.
		"short": `<article><h1>Install</h1><p>Get the tool with the command below and run it once; it needs a
recent toolchain and writes the binary to the folder that GOBIN names.</p>` +
			`<pre><code>go install example.com/tool@latest</code></pre>` +
			`<pre><code class="language-go">x := 1</code></pre><p>Run <code>make</code> first, then start the
service with the configuration file that the installer wrote to your home folder.</p></article>`,
	} {
		t.Run(name, func(t *testing.T) {
			convertBoth(t, page("Install", body), func(t *testing.T, d *Document) {
				for _, want := range []string{
					"```\ngo install example.com/tool@latest\n```",
					"```go\nx := 1\n```",
					"Run `make` first",
				} {
					if !strings.Contains(d.Markdown, want) {
						t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
					}
				}
			})
		})
	}
}

func TestMarkdownNoEmptyLinks(t *testing.T) {
	doc := page("Links", `<article>`+prose+
		`<p>Read <a href="/x"></a>this, <a href="/y"> </a>that, <a href="/z"><img src=""></a>an image,
		<a>a bare anchor</a>, <a href="javascript:void(0)">a script link</a> and <a href="/ok">a real link</a>.</p></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		if strings.Contains(d.Markdown, "[]") || strings.Contains(d.Markdown, "]()") {
			t.Errorf("markdown holds an empty link; got:\n%s", d.Markdown)
		}
		for _, want := range []string{"Read this, that, an image,", "a bare anchor, a script link and [a real link](https://example.com/ok)."} {
			if !strings.Contains(d.Markdown, want) {
				t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
			}
		}
	})
}

func TestMarkdownTableNotPadded(t *testing.T) {
	doc := page("Prices", `<article>`+prose+`<table>
<tr><th>Plan</th><th>Monthly price in dollars</th></tr>
<tr><td>Starter edition for small teams</td><td>9</td></tr>
<tr><td>Pro</td><td>29</td></tr></table></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		tables := markdownTables(d.Markdown)
		want := [][]string{{"Plan", "Monthly price in dollars"}, {"Starter edition for small teams", "9"}, {"Pro", "29"}}
		if len(tables) != 1 || fmt.Sprint(tables[0]) != fmt.Sprint(want) {
			t.Fatalf("tables = %q, want %q; markdown:\n%s", tables, want, d.Markdown)
		}
		for line := range strings.SplitSeq(d.Markdown, "\n") {
			if strings.HasPrefix(line, "|") && strings.Contains(line, "  ") {
				t.Errorf("table row padded with spaces: %q", line)
			}
		}
		if !strings.Contains(d.Markdown, "| Pro | 29 |") {
			t.Errorf("markdown lacks the row %q; got:\n%s", "| Pro | 29 |", d.Markdown)
		}
	})
}

func TestTextWithoutIframeFallback(t *testing.T) {
	// A video embed is kept by the main-content pass; the HTML parser takes
	// an iframe's content as raw text, markup included.
	doc := page("Video", `<article>`+prose+
		`<iframe src="https://www.youtube.com/embed/abc123">Your browser does not <b>support</b> iframes.</iframe>`+
		`<p>After the video.</p></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		for _, out := range []string{d.Text, d.Markdown} {
			if strings.Contains(out, "does not") || strings.Contains(out, "<b>") {
				t.Errorf("output holds the iframe's fallback; got:\n%s", out)
			}
			if !strings.Contains(out, "After the video.") {
				t.Errorf("output lacks the text after the iframe; got:\n%s", out)
			}
		}
	})
}
