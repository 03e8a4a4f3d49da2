package content

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// revealedPage is a page sent inside display:none wrappers that its
// script reveals (a grid of items, a tutorial's steps), beside a small
// visible header; menu hides a dialog of the header's own.
func revealedPage(shownWords int) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Art supplies</title></head><body>
<header><a href="/">Shop</a> <span>Sign in</span></header>`)
	for i := 0; i < 3; i++ {
		b.WriteString(`<div id="part` + string(rune('0'+i)) + `" style="display:none"><h2>Brushes and paints</h2><p>` +
			strings.Repeat(ruleProse, 2) + `</p><ul><li><a href="/p/1">Oil paint set</a> <span>$12</span></li><li><a href="/p/2">Round brush</a> <span>$4</span></li></ul></div>`)
	}
	b.WriteString(`<div class="menu" hidden><a href="/help">Help centre for our shoppers</a></div>`)
	b.WriteString(`<main><p>` + strings.Repeat("Visible words of the page itself. ", shownWords/6) + `</p></main>`)
	b.WriteString(`</body></html>`)
	return b.String()
}

// TestMostlyHiddenPageShown: when four fifths of the body's words are in
// hidden elements, the page is one its script reveals and a browser
// shows them: its main content holds them. When the hidden elements hold
// less (the visible page is long), they stay out as before.
func TestMostlyHiddenPageShown(t *testing.T) {
	text := mainText(t, revealedPage(6))
	checkText(t, text, []string{"The council met", "Oil paint set", "Brushes and paints"}, nil)

	text = mainText(t, revealedPage(600))
	checkText(t, text, []string{"Visible words of the page itself."}, []string{"The council met", "Oil paint set", "Help centre"})
}

// TestHiddenTextsTakenOff: on an ordinary page the hidden elements go,
// with their texts: the scan's tallies are those of the shown text, in
// document order.
func TestHiddenTextsTakenOff(t *testing.T) {
	page := `<html><body><p>one two</p><div hidden><p>gone words <span hidden>inner</span></p></div>` +
		`<p>three</p><div style="display: none">also gone</div><p>` + strings.Repeat("shown ", 200) + `</p></body></html>`
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	s := walkPage(root, nil, false)
	var got []string
	for _, tc := range s.texts {
		got = append(got, strings.Fields(tc.text)...)
	}
	joined := strings.Join(got, " ")
	if strings.Contains(joined, "gone") || strings.Contains(joined, "inner") || !strings.HasPrefix(joined, "one two three shown") {
		t.Errorf("texts = %.80q, want the shown texts only, in order", joined)
	}
	if txt := nodeText(root); strings.Contains(txt, "gone") || strings.Contains(txt, "inner") {
		t.Errorf("hidden elements left in the tree: %.80q", txt)
	}
}

// TestHiddenBounded: a page of 50,000 hidden blocks, nested and side by
// side, is settled in one pass: those past maxHidden go at once, the
// rest at the end, and a page of them with a little shown text is not
// shown whole by the ones past the bound being forgotten.
func TestHiddenBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><p>` + strings.Repeat("shown ", 50) + `</p>`)
	for i := 0; i < 25000; i++ {
		b.WriteString(`<div hidden><span hidden>x y</span></div>`)
	}
	b.WriteString(`</body></html>`)
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var s *scanner
	if d := spent(func() { s = walkPage(root, nil, false) }); d > 5*time.Second {
		t.Errorf("walk took %v of CPU", d)
	}
	// 50,000 hidden words against 50 shown: the page is shown whole,
	// whatever the bound kept aside.
	if !strings.Contains(nodeText(root), "x y") {
		t.Errorf("a page of hidden blocks was not shown whole")
	}
	if len(s.hidden) != 0 {
		t.Errorf("%d hidden blocks left unsettled", len(s.hidden))
	}
}
