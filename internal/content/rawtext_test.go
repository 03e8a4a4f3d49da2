package content

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// sameTreeButRaw parses body as it is and through lightBody and tells
// whether the trees are the same once, in both, the text of every HTML
// <script> (JSON-LD kept, scan's test) and <style> holding a printable
// ASCII byte reads "x": what lightBody may change and nothing else.
func sameTreeButRaw(t testing.TB, body []byte) {
	t.Helper()
	a, errA := html.Parse(bytes.NewReader(body))
	b, errB := html.Parse(lightBody(body))
	if (errA == nil) != (errB == nil) {
		t.Fatalf("parse errors differ: %v, %v\n%q", errA, errB, body)
	}
	if errA != nil {
		return
	}
	da, db := dumpRaw(a), dumpRaw(b)
	if da != db {
		t.Fatalf("trees differ for %q (cuts %v):\n%s\n---\n%s", body, rawCuts(body), da, db)
	}
}

func dumpRaw(n *html.Node) string {
	var w strings.Builder
	var rec func(n *html.Node, depth int)
	rec = func(n *html.Node, depth int) {
		data := n.Data
		if n.Type == html.TextNode && n.Parent != nil && n.Parent.Namespace == "" &&
			(n.Parent.DataAtom == atom.Style || n.Parent.DataAtom == atom.Script &&
				!strings.EqualFold(strings.TrimSpace(attr(n.Parent, "type")), "application/ld+json")) &&
			printableASCII([]byte(n.Data)) {
			data = "x"
		}
		attrs := n.Attr
		if n.Type == html.ElementNode && n.Namespace == "svg" && n.Data == "path" {
			// A path's outline may be replaced (rawCuts): any value reads "x".
			attrs = slices.Clone(attrs)
			for i := range attrs {
				if attrs[i].Namespace == "" && attrs[i].Key == "d" {
					attrs[i].Val = "x"
				}
			}
		}
		fmt.Fprintf(&w, "%s%d %s %q %q %v\n", strings.Repeat(" ", depth), n.Type, n.Namespace, n.Data[:0]+data, n.DataAtom, attrs)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c, depth+1)
		}
	}
	rec(n, 0)
	return w.String()
}

// rawPieces are what TestRawCutsSameTree builds pages of: the markup
// whose reading rawCuts follows or gives up on.
var rawPieces = []string{
	"<script>", "</script>", "<SCRIPT type=text/javascript>", "</ScRiPt >", "<script/>", "</script/", "<script src=a.js></script>",
	`<script type="application/ld+json">`, `<script type=' application/LD+JSON '>`, `<script type="application/ld&#43;json">`,
	`<script type=x type="application/ld+json">`, `<script TYPE="application/ld+json" type=x>`,
	"<style>", "</style>", "<STYLE media=all>", "</style", "a{b:c}", "var x = 1;", "if (a < b && c > d) {}", "  \n\t",
	"<!--", "-->", "--!>", "<!-->", "<!--->", "-", "!", "<!", "<!doctype html>", "<![CDATA[", "]]>", "<?xml x?>", "</>", "</ x>",
	"<svg>", "</svg>", "<svg/>", "<SVG viewBox='0 0 1 1'>", "<path d=M0/>", "<path d='M0'/>", "<g>", "</g>", "<circle r=1 />",
	"<foreignObject>", "</foreignObject>", "<title>", "</title>", "<desc>", "<math>", "</math>", "<mi>", "<annotation-xml encoding=text/html>",
	"<template>", "</template>", "<col>", "<colgroup>", "<table>", "</table>", "<tr>", "<td>", "<frameset>", "<frame>", "<noframes>", "</noframes>",
	"<textarea>", "</textarea>", "<xmp>", "</xmp>", "<iframe>", "</iframe>", "<noscript>", "</noscript>", "<noembed>", "<plaintext>",
	"<p>", "</p>", "<div class=\"a>b\">", "<div title='</script>'>", "<b>", "</b>", "<font color=red>", "<br>", "<head>", "<body>", "</html>",
	"<select>", "<option>", "</select>", "<a href=x>", "</a>", "<", ">", "/", "=", "\"", "'", " ", "\n", "\r\n", "\x00", "x", "é",
	"<script>a<!--b</script>c</script>", "<!--<script>", "</script>-->", "--><", "<!-- <", "< /", "<script>-->",
	"<svg><title>Icon</title>", "<svg><desc>d</desc></svg>", "<TITLE/>", "</TITLE>", "<svg><title><b>",
	"<script=x>", "<style=1 a>", "<svg=a>", "<a =\"b>\">", "<a b=c/>", "<a/ b>", "<a b = 'c' d>",
	"<script>a<!--b", "<script><!--<script>", "</script x=\">\">", "<style>p{}</style>", "<script>f()</script>", "<img src=x/>",
	"<path d='M0 0 L10 10 L20 20 Z'/>", `<PATH D="M0 0 L10 10 L20 20 Z" d="M1 1 L10 10 L20 20 Z">`, "</path>", "<path d=M0,0,L10,10,L20,20,Z/>",
	`<path d="M0 0 L10 10 L20 20 Z`, "<option d='M0 0 L10 10 L20 20 Z'>", `<b d="M0 0 L10 10 L20 20 Z">`, "<path d='M0 1'>",
}

// plainPieces are pages' usual markup around scripts and style sheets.
var plainPieces = []string{
	"<script><!--", "<script>if(a<!--b)", "-->", "<!--<script>", "</script>", "<script >", "< ", "<<", "<sCript/>", "--", "-", ">",
	"<svg><title>t</title><path/></svg>", "<svg><desc>", "</desc>", "<title>", "</title>", "<svg>", "</svg>",
	"<script>", "</script>", "<script>f(1)</script>", "<script type=text/javascript>var a = '<b>';</script>",
	`<script type="application/ld+json">{"a":1}</script>`, "<style>p{}</style>", "<style>", "</style>", "x", " ",
	"<svg><path d='M0'/></svg>", "<svg><g><circle/></g></svg>", "<svg/>", "<p>", "<div class=a>", "</div>", "<a href=/x>y</a>",
	"<!-- c -->", "<br/>", "<table><tr><td>", "</td></tr></table>", "<head>", "<body>", "<title>t</title>", "<noscript><img></noscript>",
	`<svg><path d="M0 0 L10 10 L20 20 Z"/></svg>`, `<svg><g><path fill=red d='M0 0 L10 10 L20 20 Z'></path></g></svg>`,
	`<math><path d="M0 0 L10 10 L20 20 Z"/></math>`, `<select><svg><path d="M0 0 L10 10 L20 20 Z"/>`, `<path d="M0 0 L10 10 L20 20 Z">`,
}

// TestRawCutsSameTree parses generated pages as they are and with their
// scripts' and style sheets' text replaced (lightBody): the trees must
// be the same but for that text.
func TestRawCutsSameTree(t *testing.T) {
	rng := rand.New(rand.NewSource(20))
	n := 60000
	if testing.Short() {
		n = 5000
	}
	cuts := 0
	for range n {
		var b strings.Builder
		pieces := rawPieces
		if rng.Intn(2) == 0 {
			pieces = plainPieces // more pages that reach their scripts
		}
		for range 1 + rng.Intn(24) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		body := []byte(b.String())
		cuts += len(rawCuts(body))
		sameTreeButRaw(t, body)
	}
	if cuts < n/4 {
		t.Fatalf("only %d cuts in %d pages: the test does not reach the cuts", cuts, n)
	}
}

// TestRawCuts checks what is replaced and what is left on written pages.
func TestRawCuts(t *testing.T) {
	for _, c := range [][2]string{
		{`<head><script>var a = "</scrip";</script><style>p{color:red}</style></head><p>x`,
			`<head><script>x</script><style>x</style></head><p>x`},
		{`<script type="application/ld+json">{"@type":"Article"}</script><script type=module>import a</script>`,
			`<script type="application/ld+json">{"@type":"Article"}</script><script type=module>x</script>`},
		{`<script> </script><style>` + "\n" + `</style>`, `<script> </script><style>` + "\n" + `</style>`},
		{`<div title="<script>a</script>">b</div><!-- <script>c</script> --><script>d</script>`,
			`<div title="<script>a</script>">b</div><!-- <script>c</script> --><script>x</script>`},
		{`<textarea><script>a</script></textarea><script>b</script>`, `<textarea><script>a</script></textarea><script>x</script>`},
		// An icon closes: a script after it is replaced.
		{`<svg viewBox="0 0 1 1"><path d="M0"/><g><use href="#a"/></g></svg><script>a</script>`,
			`<svg viewBox="0 0 1 1"><path d="M0"/><g><use href="#a"/></g></svg><script>x</script>`},
		// Inside an icon <style> is markup; a <p> breaks out: left as they are.
		{`<svg><style>a</style></svg><script>b</script>`, `<svg><style>a</style></svg><script>b</script>`},
		{`<svg><p><script>a</script>`, `<svg><p><script>a</script>`},
		// The script-data escape states, a frameset, a template's column.
		{`<script>a</script><script><!--b</script><script>c</script>`, `<script>x</script><script>x</script><script>x</script>`},
		{`<script><!--<script>a</script>b</script>c`, `<script>x</script>c`},
		{`<script><!--<script>a</script>b`, `<script><!--<script>a</script>b`},
		{`<svg><title>Icon</title></svg><script>a</script>`, `<svg><title>Icon</title></svg><script>x</script>`},
		{`<svg><title><b>Icon</b></title></svg><script>a</script>`, `<svg><title><b>Icon</b></title></svg><script>a</script>`},
		{`<style>a</style><frameset><script>b</script>`, `<style>x</style><frameset><script>b</script>`},
		{`<template><col><script>a</script>`, `<template><col><script>a</script>`},
		// A path's outline inside <svg> is replaced when it is quoted and
		// long; elsewhere (HTML, <math>) it is left.
		{`<svg><path fill="red" d="M0 0 L10 10 L20 20 Z"/><path d="M0 1"/><path d=M0,0,L10,10,L20,20,Z /></svg>`,
			`<svg><path fill="red" d="x"/><path d="M0 1"/><path d=M0,0,L10,10,L20,20,Z /></svg>`},
		{`<path d="M0 0 L10 10 L20 20 Z"><math><path d="M0 0 L10 10 L20 20 Z"/></math>`,
			`<path d="M0 0 L10 10 L20 20 Z"><math><path d="M0 0 L10 10 L20 20 Z"/></math>`},
		{`<script>unclosed`, `<script>unclosed`},
	} {
		got, err := io.ReadAll(lightBody([]byte(c[0])))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c[1] {
			t.Errorf("%s:\n got %s\nwant %s", c[0], got, c[1])
		}
		sameTreeButRaw(t, []byte(c[0]))
	}
}

// TestRawCutsBounded: hostile pages (a million tags of a kind, deep
// <svg> nesting, unclosed comments) take linear time. The bound is loose
// on purpose: a linear scan of these 1-3 MB pages takes milliseconds (a
// second under -race on a loaded machine), a quadratic one hours, so 20 s
// tells the two apart without failing on a busy machine.
func TestRawCutsBounded(t *testing.T) {
	for _, page := range []string{
		strings.Repeat("<script>a</script>", 200000),
		strings.Repeat("<style>a", 200000),
		strings.Repeat("<svg>", 200000) + "<script>a</script>",
		strings.Repeat("<svg><g>", 1000) + strings.Repeat("</g></svg>", 1000) + strings.Repeat("<script>a</script>", 1000),
		"<!--" + strings.Repeat("--!-", 500000),
		"<script>" + strings.Repeat("</scrip", 300000),
		"<div " + strings.Repeat("a=b ", 300000),
		strings.Repeat("<p a=\"", 300000),
	} {
		if d := spent(func() { rawCuts([]byte(page)) }); d > 20*time.Second {
			t.Errorf("%d bytes took %v of CPU", len(page), d)
		}
	}
}

// FuzzRawCuts: any page parses to the same tree but for the replaced
// text (see sameTreeButRaw).
func FuzzRawCuts(f *testing.F) {
	for _, p := range rawPieces {
		f.Add([]byte(p + "a" + p))
	}
	f.Add([]byte(`<svg><g></svg><script>a</script><style>b</style><template><col><script>c</script>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		sameTreeButRaw(t, body)
	})
}
