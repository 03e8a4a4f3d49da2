package content

import (
	"os"
	"sort"

	"golang.org/x/net/html"
)

// The article is a list of cards (issue 20, rec): a section front's
// stories, a catalogue's programmes, a blog's posts, each a <div> with
// a linked title and a line or two of teaser, siblings of one tag and
// class. The conditional cleaning judges each card alone and takes a
// short, link-dense block for a widget, so the list goes and one lead
// block or the intro is what stays. When such cards, items of a run,
// number minTeasers or more and hold half the article's text, they are
// its content: the cleaning passes over the divs of a run, as it does
// on a page taken for a listing (spareRuns). dropBoilerplate's
// teaserList is the same test for nested <article> teasers.

// cardListOff turns the rule off (measurement switch, REC_CARDS=0).
var cardListOff = os.Getenv("REC_CARDS") == "0"

// cardList returns, when art, before the cleaning of its divs removes
// anything, is a list of cards: the divs of lists that are items of a
// run (inItemRun) and teasers (teaser: under 500 characters, a quarter
// of it links or a linked heading) without a price (a product's tile,
// whose grid the item profile reads, and whose labels and prices a
// category's reference often leaves out), not counting those inside one
// already counted, number minTeasers or more and hold half of art's
// text, with the cards as spans of lists.nodes (start, end), in document
// order; else nil (see spareCard). It
// reads each listed div's siblings at most 2*maxRunLook
// times and each counted card's subtree once.
func cardList(art *html.Node, lists *cleanLists) []card {
	var length int
	var cards []card
	for _, at := range lists.div {
		if len(cards) > 0 && at < cards[len(cards)-1].end {
			continue // inside a card counted
		}
		n := lists.nodes[at].node
		if n.Parent == nil || !attached(n, art) || !inItemRun(n) {
			continue
		}
		if textWithin(n, 500) < 0 {
			continue // too long for a teaser: not read whole
		}
		st := textStats(n, nil)
		if !teaser(n, st) || pricedText(n) {
			continue
		}
		length += st.length
		cards = append(cards, card{at, lists.nodes[at].end, st.length})
	}
	if len(cards) < minTeasers || 2*length < textStats(art, nil).length {
		return nil
	}
	return cards
}

// spareCard tells whether the cleaning passes over n, the element at
// index at of lists.nodes, whose subtree ends at end, on an article of
// cards (cardList's spans, in order): when n holds a card (the list's
// wrapper is as link-dense as its cards), is one, or lies in one and
// holds half its text or more (the card's own wrapper). A card's
// smaller parts (a price box, a label) are judged as before.
func spareCard(cards []card, n *html.Node, at, end int32) bool {
	i := sort.Search(len(cards), func(i int) bool { return cards[i].end > at })
	if i == len(cards) || cards[i].start >= end {
		return false
	}
	c := cards[i]
	if at <= c.start {
		return true // n is the card or holds it
	}
	return 2*textStats(n, nil).length >= c.length
}

// card is a card of cardList: its span of lists.nodes and its text
// length.
type card struct {
	start, end int32
	length     int
}

// pricedText tells whether a text of n's subtree holds an amount of
// money (prices).
func pricedText(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if prices(c.Data) > 0 {
				return true
			}
		case html.ElementNode:
			if pricedText(c) {
				return true
			}
		}
	}
	return false
}
