package content

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The product profile. A product page's main content is the product's
// detail block: its name, price, stock, description and specification
// rows. Product pages write much of it twice: a panel for small screens
// and one for large ones, a sticky buy box that repeats the name and
// price line, a tab's text beside the same text in an accordion. The
// page shows one copy; the text holds both, and a reader (and the
// multiset word F1 of wcxb-dev) counts the second as noise. On a page
// taken for a product (p >= profileProb), dedupBlocks keeps the first.

// dedupWords is the fewest words of a block that dedupBlocks removes
// when it repeats an earlier one: shorter blocks (a spec value, "In
// stock", a size) repeat legitimately. Chosen on wcxb-dev half A's
// product pages: 6 moved 13 pages up and none down; 4 moved 15 up and
// 1 down (a comparison grid of sheets repeating "100% long-staple
// cotton"-like rows), 2 moved 17 up and 5 down.
const dedupWords = 6

// dedupBlocks removes from n every leaf block (a block element without
// a block element inside) whose text, white space collapsed, is that
// of an earlier leaf block and holds dedupWords words or more. Leaf
// blocks are disjoint, so the texts read add up to n's text once: the
// walk is linear in n.
func dedupBlocks(n *html.Node) {
	var leaves []*html.Node
	var walk func(n *html.Node) bool // reports a block element inside n
	walk = func(n *html.Node) bool {
		has := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			inner := walk(c)
			if isBlock(c.DataAtom) {
				if !inner {
					leaves = append(leaves, c)
				}
				has = true
			} else if inner {
				has = true
			}
		}
		return has
	}
	walk(n)
	seen := make(map[string]bool)
	for _, l := range leaves {
		t := collapse(nodeText(l))
		if countWords(t) < dedupWords {
			continue
		}
		if seen[t] {
			l.Parent.RemoveChild(l)
			continue
		}
		seen[t] = true
	}
}

// headMinShare is the least share of a product's content that must come
// before a run of cards for productHead to cut there: a gallery of
// thumbnails or a row of variants near the top is part of the product.
const headMinShare = 0.2

// productHead cuts n at its first run of cards (minItems siblings or
// more of one tag and first class word, six in ten of them a link beside
// an image, a heading, a price or words of their own: itemRun's test)
// that follows headMinShare of n's words or more: the run's first item
// and every element after it, at each level up to n. A product page
// reads as the product's block, then what the shop shows around it
// ("customers also bought", add-ons, reviews, questions), and the shop's
// other products start the second part. It reports whether it cut.
func productHead(n *html.Node) bool {
	total := countWords(nodeText(n))
	if total == 0 {
		return false
	}
	first := firstCardRun(n, float64(total)*headMinShare)
	if first == nil {
		return false
	}
	for c := first; c != nil && c != n; c = c.Parent {
		s := c.NextSibling
		if c == first {
			s = c
		}
		for s != nil {
			next := s.NextSibling
			if s.Type == html.ElementNode {
				s.Parent.RemoveChild(s)
			}
			s = next
		}
	}
	return true
}

// firstCardRun returns the first item, in document order, of the first
// run of cards under n that starts after min words, or nil. One walk:
// each element's children are grouped by tag and first class word once
// the element's subtree is read.
func firstCardRun(n *html.Node, min float64) *html.Node {
	type facts struct{ words, linkWords, links, imgs, heads, prices int }
	type group struct {
		first       *html.Node
		start       int // words before the first item
		items, good int
	}
	var best *html.Node
	bestStart := -1
	seen := 0 // words so far in document order
	var walk func(n *html.Node, inLink bool) facts
	walk = func(n *html.Node, inLink bool) facts {
		var f facts
		var groups map[itemKey]*group
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				k := countWords(c.Data)
				seen += k
				f.words += k
				if inLink {
					f.linkWords += k
				}
				f.prices += prices(c.Data)
				continue
			}
			if c.Type != html.ElementNode {
				continue
			}
			start := seen
			cf := walk(c, inLink || c.DataAtom == atom.A)
			switch c.DataAtom {
			case atom.A:
				cf.links++
			case atom.Img, atom.Picture:
				cf.imgs++
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				cf.heads++
			}
			f.words += cf.words
			f.linkWords += cf.linkWords
			f.links += cf.links
			f.imgs += cf.imgs
			f.heads += cf.heads
			f.prices += cf.prices
			if cf.words == 0 || float64(start) < min {
				continue
			}
			if groups == nil {
				groups = make(map[itemKey]*group)
			}
			key := itemKeyOf(c.Data, itemClass(attr(c, "class")))
			g := groups[key]
			if g == nil {
				g = &group{first: c, start: start}
				groups[key] = g
			}
			g.items++
			if cf.links > 0 && (cf.imgs > 0 || cf.heads > 0 || cf.prices > 0 || cf.words-cf.linkWords >= 4) {
				g.good++
			}
		}
		for _, g := range groups {
			if g.items >= minItems && g.good*10 >= g.items*6 && (bestStart < 0 || g.start < bestStart) {
				best, bestStart = g.first, g.start
			}
		}
		return f
	}
	walk(n, false)
	return best
}
