package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// classPageType holds the changes that matter on a page of a given type
// of the wcxb-dev corpus, measured on the monitor without keywords (the
// main content): each must be material.
const classPageType = "page type"

var (
	priceRe = regexp.MustCompile(`(?:[$€£¥]\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|EUR|USD|GBP|kr|zł))`)
	stockRe = regexp.MustCompile(`(?i)\b(in stock|out of stock|available|sold out|unavailable)\b`)
)

// pageTypeMutations returns the mutations of the page's type: a price or
// availability change on a product, a new post on a forum, a new item
// on a listing or collection, a changed paragraph on documentation.
func pageTypeMutations(kind string) []mutation {
	switch kind {
	case "product":
		return []mutation{{classPageType, "product: price/stock", true, changePrice}}
	case "forum":
		return []mutation{{classPageType, "forum: new post", true, func(_, region *html.Node, w *watch) string {
			return newRepeat(region, w, false, "Reply from a new member: the same problem appears after the last update, and a restart does not fix it.")
		}}}
	case "listing", "collection":
		return []mutation{{classPageType, kind + ": new item", true, func(_, region *html.Node, w *watch) string {
			return newRepeat(region, w, true, "Harbour View Apartments: two bedrooms, balcony and parking, available from March.")
		}}}
	case "documentation":
		return []mutation{{classPageType, "docs: paragraph changed", true, changeParagraph}}
	}
	return nil
}

// changePrice changes a digit of the first watched price of the region,
// or, without one, its availability.
func changePrice(_, region *html.Node, w *watch) string {
	done := false
	eachText(region, func(t *html.Node) {
		if done || !isWatched(blockOf(t), w) || inControl(t) {
			return
		}
		if loc := priceRe.FindStringIndex(t.Data); loc != nil {
			p := []byte(t.Data[loc[0]:loc[1]])
			for i, c := range p {
				if c >= '0' && c <= '9' {
					p[i] = '0' + (c-'0'+3)%10
					if p[i] == '0' {
						p[i] = '5' // never a leading zero; 5 differs from the 7 it replaces
					}
					break
				}
			}
			if os.Getenv("BENCH_DEBUG") != "" {
				fmt.Printf("DEBUG price %q -> %q in %q\n", t.Data[loc[0]:loc[1]], p, itemText(blockOf(t)))
			}
			t.Data = t.Data[:loc[0]] + string(p) + t.Data[loc[1]:]
			done = true
		}
	})
	if done {
		return ""
	}
	eachText(region, func(t *html.Node) {
		if done || !isWatched(blockOf(t), w) || inControl(t) {
			return
		}
		if stockRe.MatchString(t.Data) {
			if os.Getenv("BENCH_DEBUG") != "" {
				fmt.Printf("DEBUG stock %q in %q\n", t.Data, itemText(blockOf(t)))
			}
			t.Data = stockRe.ReplaceAllString(t.Data, "temporarily out of stock, back in two weeks")
			done = true
		}
	})
	if !done {
		return "no watched price or availability"
	}
	return ""
}

// newRepeat adds an item like the repeated ones of the region (the
// element of the region whose children most often share a tag and
// class, a list's items included): a copy of one with new text, first
// or last.
func newRepeat(region *html.Node, w *watch, first bool, text string) string {
	var best *html.Node
	bestN := 1
	eachElement(region, func(n *html.Node) {
		count := make(map[string]int)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom != atom.Script && c.DataAtom != atom.Style && c.DataAtom != atom.Br &&
				itemText(c) != "" && isWatched(c, w) {
				k := c.Data + "." + attrOf(c, "class")
				count[k]++
				if count[k] > bestN {
					best, bestN = c, count[k]
				}
			}
		}
	})
	if best == nil {
		return "no repeated item in the region"
	}
	k := cloneTree(best)
	replaced := false
	eachText(k, func(t *html.Node) {
		if strings.TrimSpace(t.Data) == "" {
			return
		}
		if !replaced {
			t.Data, replaced = text, true
		} else {
			t.Data = ""
		}
	})
	if !replaced {
		return "repeated item without text"
	}
	if first {
		var at *html.Node
		for c := best.Parent.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == best.Data && attrOf(c, "class") == attrOf(best, "class") {
				at = c
				break
			}
		}
		best.Parent.InsertBefore(k, at)
	} else {
		var last *html.Node
		for c := best.Parent.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == best.Data && attrOf(c, "class") == attrOf(best, "class") {
				last = c
			}
		}
		best.Parent.InsertBefore(k, last.NextSibling)
	}
	return ""
}

// changeParagraph changes the longest watched paragraph of the region:
// a sentence is added and one word changes.
func changeParagraph(_, region *html.Node, w *watch) string {
	var best *html.Node
	eachElement(region, func(n *html.Node) {
		if n.DataAtom == atom.P && isWatched(n, w) && (best == nil || len(itemText(n)) > len(itemText(best))) {
			best = n
		}
	})
	if best == nil || len(itemText(best)) < 40 {
		return "no watched paragraph"
	}
	best.AppendChild(&html.Node{Type: html.TextNode, Data: " Since version 4.2 this setting requires a restart of the service."})
	return ""
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func cloneTree(n *html.Node) *html.Node {
	k := &html.Node{Type: n.Type, Data: n.Data, DataAtom: n.DataAtom, Namespace: n.Namespace}
	k.Attr = append([]html.Attribute(nil), n.Attr...)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		k.AppendChild(cloneTree(c))
	}
	return k
}

// inControl tells whether text node t lies in a form control (a button,
// a select …), whose text a region does not hold.
func inControl(t *html.Node) bool {
	for n := t.Parent; n != nil; n = n.Parent {
		switch n.DataAtom {
		case atom.Button, atom.Select, atom.Option, atom.Textarea, atom.Label:
			return true
		}
	}
	return false
}
