package content

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// wideHeader is a header row of n cells and rows rows of one cell: its
// grid (n × rows) passes maxGrid, so normalizeTables leaves it, spans and
// all, to the markdown writer.
func wideHeader(n, rows int) string {
	return "<tr>" + strings.Repeat("<th>h</th>", n) + "</tr>" + strings.Repeat("<tr><td>a</td></tr>", rows)
}

// TestMarkdownTableBombs: tables of a few kilobytes built to be written
// as gigabytes (every row padded to the widest, spans of a billion cells,
// spans whose placing moves every later cell, many tables each under a
// table's bound) are written as text past maxTableExtra, in time linear
// in the page. Before the bounds, the first wrote 27 MB for 87 KB
// (2.7 GB for 870 KB), the second ran out of memory, the third wrote
// 180 MB, the last 200 MB for 3 MB.
func TestMarkdownTableBombs(t *testing.T) {
	for _, c := range []struct{ name, table string }{
		{"one wide row over 3,000 short ones", wideHeader(3000, 3000)},
		{"200 tables of a wide row over 250 short ones", strings.Repeat(wideHeader(1000, 250)+"</table><table>", 200)},
		{"a span of 10^18 cells", wideHeader(1000, 300) +
			`<tr><td rowspan="1000000000" colspan="1000000000">x</td></tr>`},
		{"spans costly to place", wideHeader(1000, 300) +
			`<tr><td colspan="200000">x</td>` + strings.Repeat("<td>b</td>", 2000) + `</tr>`},
		{"many spans of 1,000 × 1,000", wideHeader(1000, 300) +
			strings.Repeat(`<tr><td rowspan="1000" colspan="1000">x</td></tr>`, 100)},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := "<table>" + c.table + "</table>"
			var md string
			d := spent(func() { md = fragmentMarkdown(t, page) })
			if d > 20*time.Second {
				t.Errorf("took %v of CPU", d)
			}
			if limit := 8*len(page) + 64<<10; len(md) > limit {
				t.Errorf("%d bytes of markdown for %d of HTML, want at most %d", len(md), len(page), limit)
			}
			for _, want := range []string{"h", "a"} {
				if !strings.Contains(md, want) {
					t.Errorf("the cells' text %q is lost", want)
				}
			}
			t.Logf("%d bytes of HTML: %d bytes of markdown in %v of CPU", len(page), len(md), d)
		})
	}
	// The same through the whole pipeline: the page's one table is its
	// content.
	page := "<html><body><article><h1>Figures</h1><p>" + strings.Repeat("The figures of the year follow. ", 20) +
		"</p><table>" + wideHeader(3000, 3000) + "</table></article></body></html>"
	var doc *Document
	var err error
	d := spent(func() { doc, err = HTML([]byte(page), "http://127.0.0.1/", Options{OnlyMainContent: true}) })
	if err != nil {
		t.Fatal(err)
	}
	if d > 20*time.Second {
		t.Errorf("the page took %v of CPU", d)
	}
	if limit := 8*len(page) + 64<<10; len(doc.Markdown) > limit {
		t.Errorf("%d bytes of markdown for %d of HTML, want at most %d", len(doc.Markdown), len(page), limit)
	}
	t.Logf("page of %d bytes: %d bytes of markdown in %v of CPU", len(page), len(doc.Markdown), d)
}

// TestMarkdownTableSpansKept: the writer itself (without normalizeTables)
// keeps a table of ordinary spans, as empty cells; the bounds stop only
// tables built to be large.
func TestMarkdownTableSpansKept(t *testing.T) {
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(`<table><tr><th>a</th><th>b</th><th>c</th></tr>`+
		`<tr><td rowspan="2" colspan="2">x</td><td>y</td></tr><tr><td>z</td></tr></table>`), root)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	md := markdown(root)
	want := "| a | b | c |\n|---|---|---|\n| x |  | y |\n|  |  | z |"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}

// TestHostileMarkupLinear: an element of 500,000 attributes, a text node
// of 8 MB with no space, 100,000 nested elements and 100,000 nested
// tables of spanned cells cost the pipeline time and output linear in the
// page (measured: 0.06 s, 0.17 s, 0.06 s and 0.27 s of CPU).
func TestHostileMarkupLinear(t *testing.T) {
	for name, p := range map[string]string{
		"500,000 attributes":           `<div ` + strings.Repeat(`a="b" `, 500000) + `><p>text here</p></div>`,
		"one word of 8 MB":             "<p>" + strings.Repeat("w", 8<<20) + "</p>",
		"100,000 nested elements":      strings.Repeat("<div>", 100000) + "deep text" + strings.Repeat("</div>", 100000),
		"100,000 nested spanned cells": strings.Repeat("<table><tr><td colspan=1000 rowspan=1000>", 100000) + "x",
	} {
		page := []byte("<html><body><article>" + p + "</article></body></html>")
		var doc *Document
		var err error
		d := spent(func() { doc, err = HTML(page, "http://127.0.0.1/", Options{OnlyMainContent: true, IncludeLinks: true}) })
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d > 30*time.Second {
			t.Errorf("%s: %v of CPU", name, d)
		}
		if out := len(doc.Markdown) + len(doc.Text); out > 3*len(page)+64<<10 {
			t.Errorf("%s: %d bytes out of %d", name, out, len(page))
		}
		t.Logf("%s: %d bytes in %v of CPU", name, len(page), d)
	}
}
