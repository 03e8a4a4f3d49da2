package content

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main content by page type. The readability pass looks for one block
// of prose; a collection, a listing or a forum thread is a run of
// repeated blocks (cards, results, posts), of which it tends to keep one
// or none. These profiles find the runs and take the region that holds
// them when it holds clearly more text than the readability article did;
// the forum profile, which reads the posts a page declares, is in
// pagetype_forum.go.

// itemRunFactor is how much more text than the article the runs of
// items must hold to replace it.
const itemRunFactor = 1.5

// minItems is the fewest repeated blocks that make a run of items.
const minItems = 3

// regionCost is what a word outside any run of items costs a region,
// against what a word inside a run brings.
const regionCost = 2

// runFacts sums a subtree for judging repeated blocks: its words and
// what they sit in, and the words of the runs of items inside it.
type runFacts struct {
	words, linkWords, links, imgs, heads, prices int
	items                                        int
}

// itemRuns hands itemRun's answer for one page's body from the item
// profile (itemsContent) to the selector (itemRegionRoot): between them
// the tree does not change, and on a collection or listing page whose
// profile declined the region the selector asked for the same walk
// again. A nil *itemRuns walks every time.
type itemRuns struct {
	body  *html.Node
	grid  *html.Node
	words int
}

// of returns itemRun(body), walking the body once per body.
func (m *itemRuns) of(body *html.Node) (*html.Node, int) {
	if m == nil {
		return itemRun(body)
	}
	if m.body != body {
		m.body = body
		m.grid, m.words = itemRun(body)
	}
	return m.grid, m.words
}

// itemRun finds, under body, the region of the page's runs of items:
// the element whose runs of repeated children (the same tag and first
// class word, at least minItems of them, most of them items: a link with
// an image, heading, price or words beside it) hold the most words
// against the other words inside it, each costing regionCost. A
// listing's sections, each a heading over its own grid, are one region;
// a lone grid beside a long sidebar is its own. Navigation, headers,
// footers and asides hold no items. It returns the element and the words
// of its items.
func itemRun(body *html.Node) (*html.Node, int) {
	var best *html.Node
	bestScore, bestItems := 0, 0
	// The groups of an element's children, one map a depth of the walk
	// reused from element to element (a map and a key string for every
	// element with children were most of what the walk allocated).
	var levels []map[itemKey]itemGroup
	var walk func(n *html.Node, inLink, chrome bool, depth int) runFacts
	walk = func(n *html.Node, inLink, chrome bool, depth int) runFacts {
		var f runFacts
		var groups map[itemKey]itemGroup
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				k := countWords(c.Data)
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
			cchrome := chrome
			switch c.DataAtom {
			case atom.Nav, atom.Header, atom.Footer, atom.Aside:
				cchrome = true
			}
			cf := walk(c, inLink || c.DataAtom == atom.A, cchrome, depth+1)
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
			f.items += cf.items
			if cf.words == 0 || cchrome {
				continue
			}
			if groups == nil {
				for len(levels) <= depth {
					levels = append(levels, nil)
				}
				if levels[depth] == nil {
					levels[depth] = make(map[itemKey]itemGroup)
				}
				groups = levels[depth]
				clear(groups)
			}
			key := itemKeyOf(c.Data, itemClass(attr(c, "class")))
			g := groups[key]
			g.items++
			g.words += cf.words
			g.inner += cf.items
			if cf.links > 0 && (cf.imgs > 0 || cf.heads > 0 || cf.prices > 0 || cf.words-cf.linkWords >= 4) {
				g.good++
			}
			groups[key] = g
		}
		// A run's items count whole, in place of the runs inside them.
		for _, g := range groups {
			if g.items >= minItems && g.good*10 >= g.items*6 {
				f.items += g.words - g.inner
			}
		}
		if len(groups) > 64 {
			// A large map is not cleared again for every element at
			// this depth.
			levels[depth] = nil
		}
		if s := f.items - regionCost*(f.words-f.items); f.items > 0 && s > bestScore {
			best, bestScore, bestItems = n, s, f.items
		}
		return f
	}
	walk(body, false, false, 0)
	return best, bestItems
}

// itemGroup sums the children of one element that share an itemKey.
type itemGroup struct {
	items, good, words, inner int
}

// itemKey groups an element's children: the tag and itemClass of each,
// as the string tag + "." + class cut at its first dot, so that two
// children share a key exactly when those strings are equal (a tag name
// may hold a dot).
type itemKey struct {
	tag, class string
}

func itemKeyOf(tag, class string) itemKey {
	if i := strings.IndexByte(tag, '.'); i >= 0 {
		return itemKey{tag[:i], tag[i+1:] + "." + class}
	}
	return itemKey{tag, class}
}

// itemClass returns the first word of a class value without digits:
// the items of a grid share it, while their other classes often differ
// (WordPress's "post-98088 post category-dinner").
func itemClass(class string) string {
	// Every element of the page is asked (the page-type walk): ASCII
	// values are read a byte at a time, split where strings.Fields
	// splits them.
	start, digit := -1, false
	for i := 0; i < len(class); i++ {
		switch classBytes[class[i]] {
		case classSpace:
			if start >= 0 && !digit {
				return class[start:i]
			}
			start, digit = -1, false
			continue
		case classDigit:
			digit = true
		case classNonASCII:
			return itemClassFields(class)
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 && !digit {
		return class[start:]
	}
	return ""
}

// classBytes sorts bytes for itemClass: the ASCII white space
// strings.Fields splits at, digits, and bytes of other characters.
var classBytes = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\v\f\r") {
		t[c] = classSpace
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = classNonASCII
	}
	return t
}()

const (
	classSpace = 1 + iota
	classDigit
	classNonASCII
)

// itemClassFields is itemClass for any value.
func itemClassFields(class string) string {
	for w := range strings.FieldsSeq(class) {
		if !strings.ContainsAny(w, "0123456789") {
			return w
		}
	}
	return ""
}

// profileProb is the least probability of its page type for a page to
// get the type's profile: a page the classifier hesitates on keeps the
// readability article, which suits every type fairly.
const profileProb = 0.4

// itemsProb is the least probability of collection and listing together
// for a page to get their profile: the two share it, and the classifier
// often splits a page of items between them.
const itemsProb = 0.5

// typedContent returns the main content the page type asks for, as a
// detached copy, or nil to keep the readability article art. probs are
// the page-type probabilities, t the most likely type.
func typedContent(root *html.Node, art *html.Node, t PageType, probs [len(PageTypes)]float64, runs *itemRuns) *html.Node {
	if !offItems && probs[typeIndex(TypeCollection)]+probs[typeIndex(TypeListing)] >= itemsProb {
		return itemsContentOf(root, art, runs)
	}
	if probs[typeIndex(t)] < profileProb {
		return nil
	}
	switch t {
	case TypeForum:
		body := findBody(root)
		if body == nil || offForum {
			return nil
		}
		return forumContent(root, body, art)
	}
	return nil
}

// typeIndex returns t's index in PageTypes.
func typeIndex(t PageType) int {
	for i, u := range PageTypes {
		if u == t {
			return i
		}
	}
	return -1
}

// itemsContent returns the region of the page's items, with the heading
// and count above it, when it holds clearly more than the article art.
func itemsContent(root *html.Node, art *html.Node) *html.Node {
	return itemsContentOf(root, art, nil)
}

// itemsContentOf is itemsContent with the body's item run from runs.
func itemsContentOf(root *html.Node, art *html.Node, runs *itemRuns) *html.Node {
	body := findBody(root)
	if body == nil {
		return nil
	}
	// A WooCommerce shop's own grid of products (pagetype_platform.go)
	// is the page's items, whatever the generic run finds.
	if g := wooGrid(body); g != nil && !offWoo {
		r := climbItems(body, g)
		return joinIntro(introBefore(body, r), itemsCopy(r))
	}
	grid, words := runs.of(body)
	if grid == nil {
		return nil
	}
	// countWords(nodeText(grid)), without writing the text out unless
	// a text ends inside a character (nodeRun).
	run := nodeRun(grid, nil, wordRun{})
	own := run.words()
	if run.broken {
		own = countWords(nodeText(grid))
	}
	artWords := 0
	if art != nil {
		at := textOf(art)
		artWords = countWords(at)
		// An article of prose without links is what the page is about
		// (a short post under a column of teasers), not a stray block,
		// unless it is one of the items: the region's other words are
		// too few to hold it, and its words are the region's. Blocks
		// of a few words each (cards' names and prices) are not prose.
		st := textStats(art, nil)
		if artWords >= 50 && st.linkLen < 0.05*float64(st.length) && readsAsProse(at, artWords) &&
			!(own-words < artWords && wordsWithin(at, nodeText(grid))) {
			return nil
		}
	}
	if float64(words) < itemRunFactor*float64(artWords) {
		return nil
	}
	// The heading and the count of results above a grid belong to it:
	// climb while the parent adds little text (climbItems, from the
	// runs of words). A title and an introduction above the region, in
	// a row of their own, belong to it too (pagetype_category.go).
	r := climbRun(body, grid, run)
	return joinIntro(introBefore(body, r), itemsCopy(r))
}

// itemsCopy returns the detached copy of an item region that the item
// profile and the selector's item candidate return: pruned, without
// controls, forms unwrapped, a card's parts set apart.
func itemsCopy(grid *html.Node) *html.Node {
	k := cloneTree(grid)
	prune(k)
	// Controls are not content: a card's "Add to cart" and "Compare"
	// buttons and the quantity box say the same on every item.
	removeTags(k, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Button, atom.Input, atom.Select, atom.Textarea:
			return true
		}
		return false
	})
	// A grid is often the form that posts the items to compare or to
	// the cart; the markdown converter drops forms whole, so the form
	// gives way to its children.
	unwrapForms(k)
	// A card's brand, name and price sit in sibling elements that the
	// site's style lays out apart; written as they stand they run
	// together ("HOKAClifton 10").
	if !offParts {
		setApartParts(k, 0)
	}
	return k
}

// maxPartDepth bounds setApartParts' descent, and maxEdgeSteps the
// nodes it reads to find the first or last character of an element.
const (
	maxPartDepth = 256
	maxEdgeSteps = 64
)

// setApartParts puts a space between two adjacent child elements of
// every element under n, at most maxPartDepth deep, when the first ends
// in a letter or digit and the second begins with an upper-case letter:
// a card's parts that only the style sheet sets apart. A drop capital
// and the rest of its word ("B" "rooks") stay joined.
func setApartParts(n *html.Node, depth int) {
	if depth >= maxPartDepth {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		setApartParts(c, depth+1)
		next := c.NextSibling
		if next == nil || next.Type != html.ElementNode {
			continue
		}
		last, ok := edgeRune(c, true)
		if !ok || !(unicode.IsLetter(last) || unicode.IsDigit(last)) {
			continue
		}
		first, ok := edgeRune(next, false)
		if !ok || !unicode.IsUpper(first) {
			continue
		}
		n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, next)
	}
}

// edgeRune returns the last (or first) character of the text under n,
// reading at most maxEdgeSteps nodes; ok is false when it finds none
// within them.
func edgeRune(n *html.Node, last bool) (r rune, ok bool) {
	steps := 0
	var walk func(n *html.Node) (rune, bool, bool)
	// walk returns the rune, whether one was found, and whether the
	// search must stop (found or out of steps).
	walk = func(n *html.Node) (rune, bool, bool) {
		c := n.FirstChild
		if last {
			c = n.LastChild
		}
		for ; c != nil; c = sibling(c, last) {
			steps++
			if steps > maxEdgeSteps {
				return 0, false, true
			}
			switch c.Type {
			case html.TextNode:
				if c.Data == "" {
					continue
				}
				if last {
					r, _ = utf8.DecodeLastRuneInString(c.Data)
				} else {
					r, _ = utf8.DecodeRuneInString(c.Data)
				}
				return r, true, true
			case html.ElementNode:
				if r, found, stop := walk(c); stop {
					return r, found, true
				}
			}
		}
		return 0, false, false
	}
	r, ok, _ = walk(n)
	return r, ok
}

// sibling returns c's previous sibling when back, else its next.
func sibling(c *html.Node, back bool) *html.Node {
	if back {
		return c.PrevSibling
	}
	return c.NextSibling
}

// unwrapForms replaces every <form> under n with its children.
func unwrapForms(n *html.Node) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type != html.ElementNode {
			continue
		}
		unwrapForms(c)
		if c.DataAtom == atom.Form {
			for g := c.FirstChild; g != nil; g = c.FirstChild {
				c.RemoveChild(g)
				n.InsertBefore(g, c)
			}
			n.RemoveChild(c)
		}
	}
}

// proseWordsPerLine is the fewest words a line of text (a block: a
// paragraph, a heading, a list item) holds on average in prose.
const proseWordsPerLine = 20

// readsAsProse tells whether text, of words words, is laid out as prose:
// its blocks average proseWordsPerLine words or more. The names, prices
// and one-line blurbs of a column of cards average a few words a block
// even when none of them is a link.
func readsAsProse(text string, words int) bool {
	lines := 0
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) != "" {
			lines++
		}
	}
	return lines > 0 && words >= proseWordsPerLine*lines
}

// wordsWithin tells whether nearly all (90 %) of the words of a occur
// in b, as a multiset; a without words is not within anything.
func wordsWithin(a, b string) bool {
	return strings.TrimSpace(a) != "" && shared(a, b) >= 0.9
}
