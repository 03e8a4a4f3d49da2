package content

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var (
	knobCapCredit = os.Getenv("EVAL4_CAPCREDIT")
	knobDebug     = os.Getenv("EVAL4_DEBUG") != ""
)

// creditIn tells whether s holds a credit prefix at its start or after
// a space or a full stop.
func creditIn(s string) bool {
	s = strings.ToLower(s)
	for _, p := range creditPrefixes {
		for i := 0; ; {
			j := strings.Index(s[i:], p)
			if j < 0 {
				break
			}
			k := i + j
			if k == 0 || strings.ContainsRune(" .(|/–-\u00a0", rune(s[k-1])) {
				return true
			}
			i = k + 1
		}
	}
	return false
}

// dropCreditCaptions removes the captions of the article that credit
// their picture.
func dropCreditCaptions(art *html.Node) bool {
	if knobCapCredit == "" {
		return false
	}
	changed := false
	if knobCapCredit == "fig" {
		removeTags(art, func(n *html.Node) bool {
			if n.DataAtom != atom.Figure && n.DataAtom != atom.Figcaption {
				return false
			}
			t := collapse(nodeText(n))
			if !creditIn(t) {
				return false
			}
			if n.DataAtom == atom.Figcaption || !hasMedia(n) {
				if knobDebug {
					fmt.Fprintf(os.Stderr, "CAPCREDIT %.120q\n", t)
				}
				changed = true
				return true
			}
			// A figure with its picture: the text beside the picture goes.
			removeTags(n, func(c *html.Node) bool {
				if hasMedia(c) || strings.TrimSpace(nodeText(c)) == "" {
					return false
				}
				if knobDebug {
					fmt.Fprintf(os.Stderr, "CAPCREDIT %.120q\n", collapse(nodeText(c)))
				}
				changed = true
				return true
			})
			for c := n.FirstChild; c != nil; {
				next := c.NextSibling
				if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
					n.RemoveChild(c)
					changed = true
				}
				c = next
			}
			return false
		})
		return changed
	}
	removeTags(art, func(n *html.Node) bool {
		isCap := n.DataAtom == atom.Figcaption
		if knobCapCredit == "class" && !isCap {
			isCap = inCaption(n) && n.Parent != nil && !inCaption(n.Parent)
		}
		if !isCap {
			return false
		}
		t := collapse(nodeText(n))
		if !creditIn(t) {
			return false
		}
		if knobDebug {
			fmt.Fprintf(os.Stderr, "CAPCREDIT %.120q\n", t)
		}
		changed = true
		return true
	})
	return changed
}
