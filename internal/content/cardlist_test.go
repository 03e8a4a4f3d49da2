package content

import (
	"fmt"
	"strings"
	"testing"
)

// cardsPage is a section front: a heading, an intro of three paragraphs
// (enough for the attempt that cleans the cards to stand) and n cards
// in a wrapper, each a linked title over a one-line teaser, nested in
// wrappers of its own as a page builder writes them; price puts an
// amount on each card (a shop's tiles).
func cardsPage(n int, price string) string {
	var b strings.Builder
	b.WriteString(`<html><body><nav><a href="/">Home</a> <a href="/news">News</a></nav><main><section class="front"><h1>Technology</h1>
<p>The latest stories from our science and technology desk: the machines that build our cars and sort our letters, the laboratories where they are designed, and the people whose work they change, from the factory floor to the hospital ward.</p>
<p>Our reporters visit the places where new tools are tried first, and ask the people who use them every day what they would keep, what they would change and what they would rather send back to the engineers who made them.</p>
<p>Read the stories below, newest first, or follow the desk for a letter each week with the ones our editors liked best.</p><div class="grid">`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<div class="card"><div class="card-inner"><div><a href="/news/%d"><h3>Story %d of the desk about robots</h3></a><p>A short line of what story %d tells the reader, in one sentence.%s</p></div></div></div>`, i, i, i, price)
	}
	b.WriteString(`</div></section></main><footer><p>Copyright</p></footer></body></html>`)
	return b.String()
}

// TestCardListKept: an article that is a list of cards (ten or more
// link-dense teasers, items of a run, holding half its text) keeps
// them, though the conditional cleaning judges each card alone a
// widget; fewer cards, or tiles with prices, go as before.
func TestCardListKept(t *testing.T) {
	for _, c := range []struct {
		n     int
		price string
		kept  bool
	}{
		{12, "", true},
		{9, "", false},
		{12, " Now $19.99.", false},
	} {
		root, _ := parseBody(t, cardsPage(c.n, c.price))
		art, _ := readableContent(root, nil, "Technology", &extractFacts{})
		if art == nil {
			t.Fatalf("%d cards: no article", c.n)
		}
		text := textOf(art)
		got := strings.Count(text, "of the desk about robots")
		if c.kept && got != c.n {
			t.Errorf("%d cards%s: %d kept: %q", c.n, c.price, got, text)
		}
		if !c.kept && got != 0 {
			// The page must exercise the cleaning: without the rule
			// the cards go.
			t.Errorf("%d cards%s: %d kept, the cleaning should drop them: %q", c.n, c.price, got, text)
		}
	}
}
