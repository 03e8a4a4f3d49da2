package main

import (
	"compress/gzip"
	"fmt"
	"os"
	"strings"

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
		if len(c) > 60 {
			c = c[:60]
		}
		s += "." + strings.Join(strings.Fields(c), ".")
	}
	return s
}

var texts = map[*html.Node]string{}

func text(n *html.Node) string {
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
		if m.Type == html.ElementNode && (m.Data == "script" || m.Data == "style" || m.Data == "noscript") {
			return
		}
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	t := strings.Join(strings.Fields(b.String()), " ")
	texts[n] = t
	return t
}

func words(n *html.Node) int { return len(strings.Fields(text(n))) }

func main() {
	f, _ := os.Open("/work/shared/corpus/wcxb-dev/html/" + os.Args[1] + ".html.gz")
	z, _ := gzip.NewReader(f)
	doc, err := html.Parse(z)
	if err != nil {
		panic(err)
	}
	mode := os.Args[2]
	for _, q := range os.Args[3:] {
		// deepest element containing q
		var best *html.Node
		var find func(*html.Node)
		find = func(n *html.Node) {
			if n.Type == html.ElementNode && strings.Contains(text(n), q) {
				best = n
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					find(c)
				}
				return
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode || c.Type == html.DocumentNode {
					find(c)
				}
			}
		}
		find(doc)
		fmt.Printf("== %q\n", q)
		if best == nil {
			fmt.Println("  not found")
			continue
		}
		var chain []*html.Node
		for n := best; n != nil && n.Type == html.ElementNode; n = n.Parent {
			chain = append(chain, n)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			n := chain[i]
			fmt.Printf("  %s%s  [%d w]\n", strings.Repeat(" ", len(chain)-1-i), label(n), words(n))
		}
		if mode == "kids" {
			// children of each ancestor up to depth given
			for i := 0; i < len(chain) && i < 8; i++ {
				n := chain[i]
				fmt.Printf("  -- children of %s\n", label(n))
				k := 0
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type != html.ElementNode {
						continue
					}
					k++
					if k > 40 {
						fmt.Println("     ...")
						break
					}
					t := text(c)
					if len(t) > 70 {
						t = t[:70]
					}
					fmt.Printf("     %s [%d w] %q\n", label(c), words(c), t)
				}
			}
		}
	}
}
