package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Site builders render a block once per screen size and let the
// stylesheet show one copy: the same section for phones and for wide
// screens, each named for its breakpoint ("ssr-variant hidden-12t0irv"
// beside "ssr-variant hidden-bnz77l", "hide-mobile" beside
// "hide-desktop", "d-none d-md-block" beside "d-block d-md-none"). The
// text holds every copy; a reader sees one. dropVariantCopies keeps the
// first: a <div> or <section> with a block inside whose words, in
// order, are those of an earlier sibling of that kind, variantWords
// words or more, and whose class differs from that sibling's. A block
// repeated under one class is the page repeating itself (a promotion
// between every few stories, a code sample shown twice) and stays.

// variantWords is the fewest words of a block dropVariantCopies
// removes: short panels (a price line, a button row) repeat for other
// reasons.
const variantWords = 25

// textSum is the hash of a subtree's words in order and its word count.
type textSum struct {
	hash, pow uint64 // pow is variantBase to the word count
	words     int
	block     bool // a block element inside
}

const variantBase = 1099511628211

// sumText computes the textSum of every element under n (n included)
// in one walk: each node's sum is built from its children's, so the
// walk is linear in the subtree.
func sumText(n *html.Node, sums map[*html.Node]textSum) textSum {
	s := textSum{pow: 1}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			for f := range strings.FieldsSeq(c.Data) {
				h := uint64(14695981039346656037)
				for i := 0; i < len(f); i++ {
					h ^= uint64(f[i])
					h *= 1099511628211
				}
				s.hash = s.hash*variantBase + h
				s.pow *= variantBase
				s.words++
			}
		case html.ElementNode:
			if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
				continue
			}
			k := sumText(c, sums)
			s.hash = s.hash*k.pow + k.hash
			s.pow *= k.pow
			s.words += k.words
			s.block = s.block || k.block || blockTag(c.DataAtom)
		}
	}
	sums[n] = s
	return s
}

// dropVariantCopies removes the copies of a block made for another
// screen size from the content under n (see above).
func dropVariantCopies(n *html.Node) {
	sums := make(map[*html.Node]textSum)
	sumText(n, sums)
	dropCopiesUnder(n, sums)
}

func dropCopiesUnder(n *html.Node, sums map[*html.Node]textSum) {
	var seen map[textSum]*html.Node
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type != html.ElementNode {
			continue
		}
		s := sums[c]
		if s.words < variantWords {
			continue // nothing as long inside either
		}
		if (c.DataAtom == atom.Div || c.DataAtom == atom.Section) && s.block {
			if k, ok := seen[s]; ok {
				if attr(k, "class") != attr(c, "class") {
					n.RemoveChild(c)
					continue
				}
			} else {
				if seen == nil {
					seen = make(map[textSum]*html.Node)
				}
				seen[s] = c
			}
		}
		dropCopiesUnder(c, sums)
	}
}
