package main

import (
	"compress/gzip"
	"fmt"
	"os"
	"strings"

	"golang.org/x/net/html"
	"webacq/internal/content"
)

func text(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func main() {
	f0, _ := os.Open(os.Args[1])
	f, _ := gzip.NewReader(f0)
	root, _ := html.Parse(f)
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && content.Hidden(c) {
				t := text(c)
				if len(t) > 40 {
					if len(t) > 160 { t = t[:160] }
					fmt.Printf("<%s %v> %d: %s\n", c.Data, c.Attr, len(text(c)), t)
				}
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(root, 0)
}
