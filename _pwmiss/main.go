package main

import (
	"compress/gzip"
	"encoding/json"
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
		if len(id) > 30 {
			id = id[:30]
		}
		s += "#" + id
	}
	if c := attr(n, "class"); c != "" {
		if len(c) > 50 {
			c = c[:50]
		}
		s += "." + strings.Join(strings.Fields(c), ".")
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

var texts = map[*html.Node][]string{}

func text(n *html.Node) []string {
	if t, ok := texts[n]; ok {
		return t
	}
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
	t := toks(b.String())
	texts[n] = t
	return t
}

func frac(w []string, set map[string]bool) float64 {
	if len(w) < 4 {
		return 0
	}
	k := 0
	for i := 0; i+3 < len(w); i++ {
		if set[strings.Join(w[i:i+4], " ")] {
			k++
		}
	}
	return float64(k) / float64(len(w)-3)
}

func path(n *html.Node) string {
	var p []string
	for a := n; a != nil && a.Type == html.ElementNode; a = a.Parent {
		p = append([]string{label(a)}, p...)
	}
	if len(p) > 5 {
		p = p[len(p)-5:]
	}
	return strings.Join(p, " > ")
}

var lastParent *html.Node
var groupN, groupW int

func flush() {
	if groupN > 1 {
		fmt.Printf("      (+%d siblings, %d w in all)\n", groupN-1, groupW)
	}
	groupN = 0
}

func main() {
	id := os.Args[1]
	f, _ := os.Open("/work/shared/corpus/wcxb-dev/html/" + id + ".html.gz")
	z, _ := gzip.NewReader(f)
	doc, _ := html.Parse(z)
	var gt struct {
		GT struct {
			Main string `json:"main_content"`
		} `json:"ground_truth"`
	}
	b, _ := os.ReadFile("/work/shared/corpus/wcxb-dev/ground-truth/" + id + ".json")
	json.Unmarshal(b, &gt)
	dir := os.Args[2]
	ob, _ := os.ReadFile(dir + "/webacq/wcxb/" + id + ".txt")
	tb, _ := os.ReadFile(dir + "/go-trafilatura/wcxb/" + id + ".txt")
	ours, traf, ref := shingles(toks(string(ob))), shingles(toks(string(tb))), shingles(toks(gt.GT.Main))
	// missed: in ref and traf, not ours
	var walk func(n *html.Node, mode int)
	walk = func(n *html.Node, mode int) {
		if n.Type == html.ElementNode {
			w := text(n)
			if len(w) >= 25 {
				fo, ft, fr := frac(w, ours), frac(w, traf), frac(w, ref)
				hit := false
				switch mode {
				case 0:
					hit = fr >= 0.6 && ft >= 0.6 && fo <= 0.05
				case 1:
					hit = fo >= 0.7 && fr <= 0.05
				}
				if hit {
					if n.Parent == lastParent {
						groupN++
						groupW += len(w)
						return
					}
					flush()
					lastParent = n.Parent
					groupN, groupW = 1, len(w)
					fmt.Printf("  %s  [%d w] ours %.2f traf %.2f ref %.2f  %q\n", path(n), len(w), fo, ft, fr, strings.Join(w[:min(8, len(w))], " "))
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, mode)
		}
	}
	fmt.Println("MISSED (ref+traf, not ours):")
	walk(doc, 0)
	flush()
	lastParent = nil
	fmt.Println("EXTRA (ours, not ref):")
	walk(doc, 1)
	flush()
}
