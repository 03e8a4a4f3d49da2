// Throw-away analysis tool of branch peerdiff (half A only): for each wcxb-dev page named, the
// deepest element holding 90 % of our text's 4-word shingles and of the reference's, and the
// reference region's children with their words, reference shingles and ours.
// Usage: go run ./_pd DUMPDIR NNNN... (references as text in /tmp/ref/NNNN.txt).
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

func hits(n *html.Node, set map[string]bool) int {
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
func path(n *html.Node) string {
	var p []string
	for a := n; a != nil && a.Type == html.ElementNode; a = a.Parent {
		p = append([]string{label(a)}, p...)
	}
	return strings.Join(p, " > ")
}
func main() {
	dir := os.Args[1]
	for _, id := range os.Args[2:] {
		fh, _ := os.Open("/work/shared/corpus/wcxb-dev/html/" + id + ".html.gz")
		z, _ := gzip.NewReader(fh)
		doc, _ := html.Parse(z)
		ob, _ := os.ReadFile(dir + "/webacq/wcxb/" + id + ".txt")
		rb, _ := os.ReadFile("/tmp/ref/" + id + ".txt")
		os_, rs := shingles(toks(string(ob))), shingles(toks(string(rb)))
		o, ow := deepest(doc, os_)
		r, rw := deepest(doc, rs)
		fmt.Printf("%s\n  ours %s [%d w]\n  ref  %s [%d w]\n", id, path(o), ow, path(r), rw)
		for c := r.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			w := len(text(c))
			if w == 0 {
				continue
			}
			mark := ""
			for a := o; a != nil; a = a.Parent {
				if a == c {
					mark = " <== ours inside"
				}
			}
			fmt.Printf("     %-60s w=%d ref=%d ours=%d%s\n", label(c), w, hits(c, rs), hits(c, os_), mark)
		}
	}
}
