package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/monitor/detect"
)

// prepare returns the base version of a page and the keyword of its
// keyword monitor. The base version is the page with volatile content
// added where the monitors look (dates in several formats, relative
// times, counters, a request id and a session link, in both regions)
// and a rotating aside, and with the root of each monitor's region
// marked by an attribute (markMain, markKeyword) so that mutations find
// it. The keyword is the word of six letters or more found in the most
// blocks of the page's main content; "" when there is none.
func prepare(pg page) (base []byte, keyword string, err error) {
	doc := mustParse(pg.body)
	main, err := detect.Anchor(doc, pg.url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("anchor: %w", err)
	}
	keyword = chooseKeyword(main.Fingerprint)
	// The volatile items go once into each region: into the inner one
	// when one region holds the other.
	roots := []*html.Node{main.Root()}
	if keyword != "" {
		kr, err := detect.Anchor(doc, pg.url, []string{keyword})
		if err != nil {
			return nil, "", fmt.Errorf("anchor %q: %w", keyword, err)
		}
		switch k := kr.Root(); {
		case contains(main.Root(), k):
			roots[0] = k
		case contains(k, main.Root()):
		default:
			roots = append(roots, k)
		}
	}
	for _, r := range roots {
		injectVolatile(r)
	}
	if body := findTag(doc, atom.Body); body != nil {
		appendAll(body, parseFragment(body, `<aside class="bench-aside"><h3>Trending</h3><ul>
<li>Garden tools sale ends soon</li><li>Ten recipes for autumn evenings</li><li>How to choose running shoes</li></ul></aside>`))
	}
	withVolatile := render(doc)

	// Anchor again on the page as the monitors will first see it, and
	// mark the regions they chose.
	doc = mustParse(withVolatile)
	main, err = detect.Anchor(doc, pg.url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("anchor: %w", err)
	}
	main.Root().Attr = append(main.Root().Attr, html.Attribute{Key: markMain, Val: "1"})
	if keyword != "" {
		kr, err := detect.Anchor(doc, pg.url, []string{keyword})
		if err != nil {
			return nil, "", fmt.Errorf("anchor %q: %w", keyword, err)
		}
		kr.Root().Attr = append(kr.Root().Attr, html.Attribute{Key: markKeyword, Val: "1"})
	}
	return render(doc), keyword, nil
}

// volatileHTML is the volatile content added to a region, one item per
// line; mutations change its values.
var volatileHTML = []string{
	`Updated Nov 23, 2026 10:42 AM · 1,234 views · 12 comments`,
	`Posted 3 hours ago · Request ID 9f86d081884c7d659a2feaa0c55ad015 · <a href="/account?sid=4e07408562bedb8b60ce05c1decfe3ad&amp;utm_source=bench">Your account</a>`,
	`Last modified 2026-11-23T10:42:00Z (23/11/2026), next review 2026-12-01`,
}

// injectVolatile appends the volatile items to region root r, as items
// of the kind r holds (li in a list, a row in a table, p elsewhere).
func injectVolatile(r *html.Node) {
	parent, wrap := itemContainer(r)
	for _, item := range volatileHTML {
		appendAll(parent, parseFragment(parent, wrap(item)))
	}
}

// itemContainer returns where items go in r and how to wrap one.
func itemContainer(r *html.Node) (*html.Node, func(string) string) {
	switch r.DataAtom {
	case atom.Ul, atom.Ol:
		return r, func(s string) string { return "<li>" + s + "</li>" }
	case atom.Dl:
		return r, func(s string) string { return "<dd>" + s + "</dd>" }
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot:
		t := r
		if r.DataAtom == atom.Table {
			if tb := childTag(r, atom.Tbody); tb != nil {
				t = tb
			}
		}
		return t, func(s string) string { return "<tr><td>" + s + "</td></tr>" }
	}
	return r, func(s string) string { return "<p>" + s + "</p>" }
}

// chooseKeyword picks the word of six letters or more that occurs in the
// most blocks of the fingerprint, the first one on a tie; not a month or
// weekday name (the date noise would change it).
func chooseKeyword(f *detect.Fingerprint) string {
	count := make(map[string]int)
	var order []string
	for _, b := range f.Blocks {
		seen := make(map[string]bool)
		for w := range strings.FieldsFuncSeq(strings.ToLower(b.Text), func(r rune) bool { return !unicode.IsLetter(r) }) {
			n := utf8.RuneCountInString(w)
			if n < 6 || n > 20 || seen[w] || stopwords[w] || dateWords[w] {
				continue
			}
			seen[w] = true
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	best := ""
	for _, w := range order {
		if count[w] > count[best] {
			best = w
		}
	}
	return best
}

var stopwords = map[string]bool{"should": true, "because": true, "through": true, "before": true,
	"between": true, "however": true, "another": true, "during": true, "without": true, "within": true,
	"around": true, "against": true, "rather": true, "whether": true, "people": true, "something": true}

var dateWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`january february august september october november december monday tuesday
		wednesday thursday friday saturday sunday januar februar oktober dezember montag dienstag mittwoch
		donnerstag freitag samstag sonntag janvier février juillet septembre octobre novembre décembre mercredi
		vendredi samedi dimanche febrero septiembre octubre noviembre diciembre miércoles viernes sábado domingo
		gennaio febbraio giugno luglio agosto settembre ottobre dicembre lunedì martedì mercoledì giovedì venerdì
		januari februari augustus oktober maandag dinsdag woensdag donderdag vrijdag zaterdag zondag`) {
		m[w] = true
	}
	return m
}()

// unrelatedContent returns paragraphs of another page's main content.
func unrelatedContent(pg page) []string {
	r, err := detect.Anchor(mustParse(pg.body), pg.url, nil)
	if err != nil {
		return []string{"Nothing to see here: this page has moved elsewhere."}
	}
	var out []string
	for _, b := range r.Fingerprint.Blocks {
		if len(b.Text) > 40 {
			out = append(out, b.Text)
		}
		if len(out) == 40 {
			break
		}
	}
	if len(out) == 0 {
		out = []string{"Nothing to see here: this page has moved elsewhere."}
	}
	return out
}

func render(doc *html.Node) []byte {
	var buf bytes.Buffer
	_ = html.Render(&buf, doc)
	return buf.Bytes()
}

// parseFragment parses s in the context of parent and returns the nodes,
// detached.
func parseFragment(parent *html.Node, s string) []*html.Node {
	ctx := parent
	if ctx.Type != html.ElementNode {
		ctx = &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		return nil
	}
	return nodes
}

func findTag(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findTag(c, a); f != nil {
			return f
		}
	}
	return nil
}

func findMarked(n *html.Node, key string) *html.Node {
	if n.Type == html.ElementNode {
		for _, a := range n.Attr {
			if a.Key == key {
				return n
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findMarked(c, key); f != nil {
			return f
		}
	}
	return nil
}

func childTag(n *html.Node, a atom.Atom) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == a {
			return c
		}
	}
	return nil
}

func appendAll(parent *html.Node, nodes []*html.Node) {
	for _, n := range nodes {
		parent.AppendChild(n)
	}
}

// contains tells whether a holds b (or is b).
func contains(a, b *html.Node) bool {
	for n := b; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}
