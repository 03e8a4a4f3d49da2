package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
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

func count(w []string, set map[string]bool) int {
	k := 0
	for i := 0; i+3 < len(w); i++ {
		if set[strings.Join(w[i:i+4], " ")] {
			k++
		}
	}
	return k
}

type agg struct {
	pages                           map[string]int
	oursRef, oursNotRef, refNotOurs int
}

var byType = map[string][4]int{}

func main() {
	dir := os.Args[1]
	pats := os.Args[2:]
	res := map[string]*agg{}
	for _, p := range pats {
		res[p] = &agg{pages: map[string]int{}}
	}
	res2 := map[string]map[string][4]int{}
	for _, p := range pats {
		res2[p] = map[string][4]int{}
	}
	lines, _ := os.ReadFile(dir + "/wcxb-scores.tsv")
	for _, l := range strings.Split(string(lines), "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 3 || f[1] != "A" {
			continue
		}
		id := f[0]
		fh, _ := os.Open("/work/shared/corpus/wcxb-dev/html/" + id + ".html.gz")
		z, _ := gzip.NewReader(fh)
		doc, _ := html.Parse(z)
		fh.Close()
		var gt struct {
			GT struct {
				Main string `json:"main_content"`
			} `json:"ground_truth"`
		}
		b, _ := os.ReadFile("/work/shared/corpus/wcxb-dev/ground-truth/" + id + ".json")
		json.Unmarshal(b, &gt)
		ob, _ := os.ReadFile(dir + "/webacq/wcxb/" + id + ".txt")
		ours, ref := shingles(toks(string(ob))), shingles(toks(gt.GT.Main))
		for _, p := range pats {
			re := regexp.MustCompile(strings.ReplaceAll(p, "BLOCKLINK", "x^"))
			var walk func(n *html.Node)
			walk = func(n *html.Node) {
				match := false
				if p == "BLOCKLINK" {
					match = n.Type == html.ElementNode && n.Data == "a" && blockLink(n)
				} else {
					match = n.Type == html.ElementNode && re.MatchString(strings.ToLower(attr(n, "class")+" "+attr(n, "id")))
				}
				if match {
					w := text(n)
					if len(w) >= 8 {
						// per shingle classification
						a := res[p]
						x := [4]int{}
						for i := 0; i+3 < len(w); i++ {
							s := strings.Join(w[i:i+4], " ")
							switch {
							case ours[s] && ref[s]:
								x[0]++
							case ours[s]:
								x[1]++
							case ref[s]:
								x[2]++
							default:
								x[3]++
							}
						}
						a.oursRef += x[0]
						a.oursNotRef += x[1]
						a.refNotOurs += x[2]
						a.pages[f[2]]++
						bt := byType[f[2]]
						for i := range x {
							bt[i] += x[i]
						}
						byType[f[2]] = bt
						y := res2[p][id]
						for i := range y {
							y[i] += x[i]
						}
						res2[p][id] = y
					}
					return
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
		}
	}
	for _, p := range pats {
		a := res[p]
		fmt.Printf("%-30s ours&ref %6d  ours-only %6d  ref-only %6d  blocks-in-ours by type %v\n", p, a.oursRef, a.oursNotRef, a.refNotOurs, a.pages)
		fmt.Println("  by type [ours&ref ours-only ref-only neither]:", byType)
		byType = map[string][4]int{}
		var ids []string
		for id, x := range res2[p] {
			if x[0]+x[1]+x[2] > 0 {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			x := res2[p][id]
			fmt.Printf("    %s oursref %d oursonly %d refonly %d neither %d\n", id, x[0], x[1], x[2], x[3])
		}
	}
}

func blockLink(a *html.Node) bool {
	var f func(n *html.Node) bool
	f = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				switch c.Data {
				case "p", "h2", "h3", "h4", "h5", "h6":
					return true
				case "div":
					if len(text(c)) >= 15 {
						return true
					}
				}
				if f(c) {
					return true
				}
			}
		}
		return false
	}
	return len(text(a)) >= 12 && f(a)
}
