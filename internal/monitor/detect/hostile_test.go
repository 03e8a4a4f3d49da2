package detect

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// bigPage generates a page of about size bytes: navigation, sections of
// paragraphs, lists and tables, a sidebar, and the press list the tests
// watch somewhere in the middle.
func bigPage(size int, marker string) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Big</title></head><body><nav class="menu"><ul>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav><main>`)
	half := false
	for i := 0; b.Len() < size; i++ {
		if !half && b.Len() > size/2 {
			half = true
			b.WriteString(`<div class="press"><h2>Press releases</h2><ul class="pr">`)
			for j := range 20 {
				fmt.Fprintf(&b, `<li><a href="/files/pr-%d.pdf">%s release number %d about widgets</a> <span>Nov %d, 2026</span></li>`, j, marker, j, j+1)
			}
			b.WriteString(`</ul></div>`)
		}
		fmt.Fprintf(&b, `<section class="s%d"><h3>Heading %d</h3><p>Paragraph %d tells about topic %d with enough words to look like prose, and a <a href="/p/%d">link</a> too.</p>`, i%7, i, i, i*7%13, i)
		fmt.Fprintf(&b, `<ul><li>Item a%d</li><li>Item b%d</li><li>Item c%d</li></ul>`, i, i, i)
		fmt.Fprintf(&b, `<table><tr><td>Metric %d</td><td>%d.%d</td></tr><tr><td>Other</td><td>%d</td></tr></table></section>`, i, i, i%10, i*3)
	}
	b.WriteString(`</main><aside class="sidebar"><p>Trending now</p></aside><footer>© 2026</footer></body></html>`)
	return b.String()
}

// countNodes counts the nodes of n's subtree below body, as the walk
// visits them (body itself is entered, not visited).
func countNodes(n *html.Node) int {
	count := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			count++
			walk(c)
		}
	}
	walk(n)
	return count
}

// work is what one Relocate does on a page: the nodes its read visits,
// the bytes of text it keeps, the elements it scores in full.
type work struct{ visited, nodes, text, scored int }

func relocateWork(t testing.TB, doc *html.Node, prev *Fingerprint) work {
	t.Helper()
	p := readPage(doc, pageURL)
	if p == nil {
		t.Fatal("no body")
		return work{}
	}
	text := 0
	for _, b := range p.blocks {
		text += len(b.Text)
	}
	ref := newReference(prev)
	return work{visited: p.visited, nodes: countNodes(findBody(doc)), text: text, scored: len(p.candidates(ref, p.overlap(ref)))}
}

// TestRelocateLargePage: on a 1 MB page, Relocate reads each node once
// and scores at most maxCandidates elements in full (plus body); its
// speed is BenchmarkRelocate1MB's.
func TestRelocateLargePage(t *testing.T) {
	page := bigPage(1<<20, "Quarterly")
	r := anchor(t, page, "quarterly")
	if r.Fingerprint.Tag != "ul" || len(r.Fingerprint.Blocks) != 20 {
		t.Fatalf("anchored %s with %d blocks", r.Fingerprint.Path, len(r.Fingerprint.Blocks))
	}
	doc := parse(t, page)
	got, err := Relocate(doc, pageURL, r.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if got.Score < 95 {
		t.Errorf("score %.1f", got.Score)
	}
	w := relocateWork(t, doc, r.Fingerprint)
	if w.visited > w.nodes || w.scored > maxCandidates+1 {
		t.Errorf("visited %d of %d nodes, scored %d elements in full (at most %d)", w.visited, w.nodes, w.scored, maxCandidates+1)
	}
	t.Logf("%d-byte page: %d nodes visited, %d scored", len(page), w.visited, w.scored)
}

// deepDoc builds a page nested depth levels deep, with text at every
// level: the HTML parser refuses more than 512 open elements, but a tree
// built otherwise (or by a future parser) must not break detection.
func deepDoc(depth int) *html.Node {
	doc := &html.Node{Type: html.DocumentNode}
	h := &html.Node{Type: html.ElementNode, Data: "html", DataAtom: atom.Html}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	doc.AppendChild(h)
	h.AppendChild(body)
	n := body
	for i := range depth {
		d := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		n.AppendChild(d)
		d.AppendChild(&html.Node{Type: html.TextNode, Data: fmt.Sprintf("level %d of the earnings tower", i)})
		n = d
	}
	return doc
}

// TestDeepNesting: 10,000 levels are read once each, without
// recursion; the fingerprint keeps maxBlocks blocks and a bounded path.
func TestDeepNesting(t *testing.T) {
	r, err := Anchor(deepDoc(10_000), pageURL, []string{"earnings"})
	if err != nil {
		t.Fatal(err)
	}
	doc := deepDoc(10_000)
	r, err = Relocate(doc, pageURL, r.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if r.Score < 90 || len(r.Fingerprint.Blocks) != maxBlocks || strings.Count(r.Fingerprint.Path, ">") >= maxPathSegs {
		t.Errorf("score %.1f, %d blocks, path %q", r.Score, len(r.Fingerprint.Blocks), r.Fingerprint.Path)
	}
	if w := relocateWork(t, doc, r.Fingerprint); w.visited != w.nodes || w.scored > maxCandidates+1 {
		t.Errorf("visited %d of %d nodes, scored %d elements in full", w.visited, w.nodes, w.scored)
	}
	if _, err := Anchor(deepDoc(10_000), pageURL, nil); err != nil {
		t.Fatal(err)
	}
}

func TestHostilePages(t *testing.T) {
	var links strings.Builder
	links.WriteString("<p>")
	for i := range 200_000 {
		fmt.Fprintf(&links, `<a href="/l/%d">earnings %d</a>`, i, i)
	}
	links.WriteString("</p>")
	var many strings.Builder
	for i := range 25_000 {
		fmt.Fprintf(&many, `<div class="c%d"><span>earnings %d</span></div>`, i%50, i)
	}
	var items strings.Builder
	items.WriteString("<ul>")
	for i := range 60_000 {
		fmt.Fprintf(&items, `<li><a href="/i/%d">earnings item %d</a></li>`, i, i)
	}
	items.WriteString("</ul>")
	for name, body := range map[string]string{
		"200,000 links":   links.String(),
		"50,000 elements": many.String(),
		"60,000 items":    items.String(),
	} {
		t.Run(name, func(t *testing.T) {
			page := "<html><body>" + body + "</body></html>"
			doc := parse(t, page)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := Anchor(doc, pageURL, []string{"earnings"})
			if err != nil {
				t.Fatal(err)
			}
			cur := parse(t, page)
			r, err = Relocate(cur, pageURL, r.Fingerprint)
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if r.Score < 90 {
				t.Errorf("relocation score %.1f", r.Score)
			}
			fp := r.Fingerprint
			text := 0
			for _, b := range fp.Blocks {
				text += len(b.Text)
			}
			if len(fp.Blocks) > maxBlocks || text > maxText || len(r.Markdown) > maxMarkdownOut {
				t.Errorf("fingerprint of %d blocks, %d bytes of text, markdown %d bytes", len(fp.Blocks), text, len(r.Markdown))
			}
			w := relocateWork(t, cur, fp)
			if w.visited > w.nodes || w.text > maxPageText || w.scored > maxCandidates+1 {
				t.Errorf("visited %d of %d nodes, read %d bytes of text, scored %d elements in full", w.visited, w.nodes, w.text, w.scored)
			}
			t.Logf("%d bytes: %d nodes visited, %d blocks kept, allocated %d MB", len(page), w.visited, len(fp.Blocks), (after.TotalAlloc-before.TotalAlloc)>>20)
		})
	}
}
