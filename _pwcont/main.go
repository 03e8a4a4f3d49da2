package main

import (
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

func attr(n *html.Node, k string) string {
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val
		}
	}
	return ""
}
func label(n *html.Node) string {
	s := n.Data
	if id := attr(n, "id"); id != "" {
		s += "#" + id
	}
	if c := attr(n, "class"); c != "" {
		if len(c) > 40 {
			c = c[:40]
		}
		s += "." + strings.Join(strings.Fields(c), ".")
	}
	for _, k := range []string{"role", "itemprop"} {
		if v := attr(n, k); v != "" {
			s += "[" + k + "=" + v + "]"
		}
	}
	return s
}
func toks(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') })
}
func shingles(w []string) map[string]bool {
	m := map[string]bool{}
	for i := 0; i+3 < len(w); i++ {
		m[strings.Join(w[i:i+4], " ")] = true
	}
	return m
}
func text(n *html.Node) []string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
			b.WriteByte(' ')
		}
		if m.Type == html.ElementNode && (m.Data == "script" || m.Data == "style" || m.Data == "noscript" || m.Data == "template") {
			return
		}
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return toks(b.String())
}

// deepest element holding >= 90% of the set's shingles found in the page
func deepest(doc *html.Node, set map[string]bool) (*html.Node, int) {
	var inPage func(n *html.Node) int
	cnt := func(n *html.Node) int {
		w := text(n)
		seen := map[string]bool{}
		for i := 0; i+3 < len(w); i++ {
			s := strings.Join(w[i:i+4], " ")
			if set[s] {
				seen[s] = true
			}
		}
		return len(seen)
	}
	_ = inPage
	total := cnt(doc)
	n := doc
	for {
		var next *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && 10*cnt(c) >= 9*total {
				next = c
				break
			}
		}
		if next == nil {
			return n, len(text(n))
		}
		n = next
	}
}

func main() {
	dir := os.Args[1]
	for _, id := range os.Args[2:] {
		fh, _ := os.Open("/work/shared/corpus/wcxb-dev/html/" + id + ".html.gz")
		z, _ := gzip.NewReader(fh)
		doc, _ := html.Parse(z)
		ob, _ := os.ReadFile(dir + "/webacq/wcxb/" + id + ".txt")
		tb, _ := os.ReadFile(dir + "/go-trafilatura/wcxb/" + id + ".txt")
		o, ow := deepest(doc, shingles(toks(string(ob))))
		t, tw := deepest(doc, shingles(toks(string(tb))))
		rel := "other"
		for a := o; a != nil; a = a.Parent {
			if a == t {
				rel = "traf-is-ancestor-of-ours"
			}
		}
		for a := t; a != nil; a = a.Parent {
			if a == o && o != t {
				rel = "ours-is-ancestor-of-traf"
			}
		}
		if o == t {
			rel = "same"
		}
		fmt.Printf("%s %s\n   ours %s [%d w]\n   traf %s [%d w]\n", id, rel, label(o), ow, label(t), tw)
	}
}
