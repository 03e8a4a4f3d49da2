package content

import (
	"strings"
	"testing"
)

// Words that a browser shows apart stay apart in markdown and text, in
// both modes, on the paths other than trafilatura's (see repair_test.go).

func TestTableCaptionOfBlocks(t *testing.T) {
	// The converter lays a table whose caption holds blocks out as text,
	// each row's cells run together: "Part-time**$455**/hour".
	doc := page("Tuition", `<article>`+prose+`<table><caption><div><h3>$390</h3><p>per hour</p></div></caption>`+
		`<tr><td><span>Part-time</span></td><td><span><strong>$455</strong>/hour</span></td></tr>`+
		`<tr><td><span>Military</span></td><td><span><strong>$250</strong>/hour</span></td></tr></table></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		for _, want := range []string{"| Part-time | **$455**/hour |", "| Military | **$250**/hour |", "### $390"} {
			if !strings.Contains(d.Markdown, want) {
				t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
			}
		}
	})
}

func TestPresentationalInline(t *testing.T) {
	// <u>, <font> and <s> are inline: the readability pass must not end
	// a paragraph at them ("um i" and "ronische" in two blocks).
	doc := page("Gothic", `<div class="post">`+prose+
		`In Southern Gothic Geschichten geht es um das Makabere, um i<u>ronische Ereignisse</u> und behandelt `+
		`<font color="red">Werte</font> des amerikanischen <s>Nordens</s> Südens, wie man es aus vielen Romanen kennt.</div>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		for _, want := range []string{"um das Makabere, um ironische Ereignisse und behandelt Werte des amerikanischen"} {
			if !strings.Contains(d.Text, want) {
				t.Errorf("text lacks %q; got:\n%s", want, d.Text)
			}
		}
		if strings.Contains(d.Markdown, "um i\n") {
			t.Errorf("markdown breaks a word at <u>; got:\n%s", d.Markdown)
		}
	})
}

func TestTextImageBreaksWords(t *testing.T) {
	doc := page("Sofas", `<article>`+prose+`<p>More options<img src="/a.png" alt="">Option: blue<img src="/b.png" alt="">Option: beige</p></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		if !strings.Contains(d.Text, "More options Option: blue Option: beige") {
			t.Errorf("text runs words together across images; got:\n%s", d.Text)
		}
	})
}

func TestTableFallbackCells(t *testing.T) {
	// The converter does not lay out a table of role="presentation"
	// (nor one it cannot, with a list in a cell): it writes the rows as
	// text, and the cells must stay apart.
	doc := page("Citations", `<article>`+prose+`<table role="presentation">`+
		`<tr><td><a href="/c/1">Deep learning</a></td><td><a href="/cites/1">108431</a></td><td>2015</td></tr>`+
		`<tr><td><a href="/c/2">Visualizing data</a></td><td><a href="/cites/2">66057</a></td><td>2008</td></tr>`+
		`</table></article>`)
	// The whole body: the readability pass drops a layout table of links.
	d, err := HTML(doc, "https://example.com/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n[Deep learning](https://example.com/c/1) [108431](https://example.com/cites/1) 2015\n"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
		}
	}
}

func TestBlockInsideLink(t *testing.T) {
	// A card: a link holding a date, a heading and a teaser.
	doc := page("Newsletter", `<article>`+prose+`<a href="/issue-318"><time datetime="2026-02-25">February 25, 2026</time>`+
		`<h2>Issue 318: The year of the AI developer</h2><p>Happy New Year!</p></a></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		if strings.Contains(d.Markdown, "2026**Issue") || strings.Contains(d.Markdown, "2026Issue") {
			t.Errorf("markdown runs the date into the heading; got:\n%s", d.Markdown)
		}
		if !strings.Contains(d.Markdown, "February 25, 2026") || !strings.Contains(d.Markdown, "Issue 318") {
			t.Errorf("markdown lacks the card; got:\n%s", d.Markdown)
		}
	})
}

func TestMultilineInlineCode(t *testing.T) {
	// A line break in the page's source inside running text's <code> does
	// not make a code block ("or\n\n```\ngit log\n--oneline\n```\n\n.").
	doc := page("Patches", `<article>`+prose+`<p>Reviewers browse patches with tools such as <code>gitk</code> or <code>git log
--oneline</code>. Keep the summary short.</p><p><code>make
test</code></p></article>`)
	convertBoth(t, doc, func(t *testing.T, d *Document) {
		if strings.Contains(d.Markdown, "```\ngit log") || !strings.Contains(d.Markdown, "--oneline`. Keep") {
			t.Errorf("inline code in running text became a block; got:\n%s", d.Markdown)
		}
		if !strings.Contains(d.Markdown, "```\nmake\ntest\n```") {
			t.Errorf("a paragraph of multi-line code is no longer a block; got:\n%s", d.Markdown)
		}
		if !strings.Contains(d.Text, "--oneline. Keep") {
			t.Errorf("text lacks the sentence; got:\n%s", d.Text)
		}
	})
}

// TestDroppedBlockKeepsLinesApart: a block the readability pass leaves
// out (an empty spacer div) between two runs of inline text ends the line
// it stood on, in a div that mixes blocks and inline content and in any
// other parent: the runs' words stay apart in the markdown and the text.
func TestDroppedBlockKeepsLinesApart(t *testing.T) {
	para := strings.Repeat("Some words of a long article about bread and olives and other matters. ", 12)
	for _, parent := range []string{"div", "section", "td"} {
		t.Run(parent, func(t *testing.T) {
			steps := `<` + parent + ` class="steps"><span>Add flour and honey.</span><div class="wprm-spacer"></div><span>Stir together until mixed.</span></` + parent + `>`
			if parent == "td" {
				steps = `<table><tr>` + steps + `<td>Then rest the dough for an hour.</td></tr></table>`
			}
			page := `<html><body><article><h1>Olive bread</h1><p>` + para + `</p>` + steps + `<p>` + para + `</p></article></body></html>`
			d, err := HTML([]byte(page), "https://example.com/x", Options{OnlyMainContent: true})
			if err != nil {
				t.Fatal(err)
			}
			for name, out := range map[string]string{"text": d.Text, "markdown": d.Markdown} {
				if !strings.Contains(out, "Stir together") {
					t.Fatalf("%s lacks the second run:\n%s", name, out)
				}
				if strings.Contains(out, "honey.Stir") {
					t.Errorf("%s glues the runs around the dropped block:\n%s", name, out)
				}
			}
		})
	}
}

// TestCodeSpaceStaysOutside: white space that starts or ends an inline
// code element is written outside its span, so the words on either side
// stay apart; inside pre nothing moves.
func TestCodeSpaceStaysOutside(t *testing.T) {
	page := `<html><body><p>warning: thank you for trying the<code> beta of the </code>gatsbyImageData<code>API. Please</code> report issues.</p>` +
		`<pre><code> indented line
  second </code></pre></body></html>`
	d, err := HTML([]byte(page), "https://example.com/x", Options{OnlyMainContent: false})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the `beta of the` gatsbyImageData`API. Please` report", "```\n indented line\n  second \n```"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("markdown lacks %q; got:\n%s", want, d.Markdown)
		}
	}
}
