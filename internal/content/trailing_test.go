package content

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

const trailingProse = `<p>The council met on Tuesday to discuss the new budget for the coming year, and the members agreed on most of the points after a long debate about the schools.</p>
<p>The vote on the remaining questions was put off until the spring, when the figures of the tax office will be known and the council can weigh them.</p>`

func trailingText(t *testing.T, page string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<html><body><div id=art>" + page + "</div></body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	n := findBody(doc).FirstChild
	dropTrailing(n)
	return textOf(n)
}

// TestTrailingLabel: a last block of a few words that ends no sentence
// leaves the content; prose, list items, several lines and bare
// addresses stay.
func TestTrailingLabel(t *testing.T) {
	for _, c := range []struct {
		tail string
		gone bool
	}{
		{`<div class=src>Source: <span>ISBnews</span></div>`, true},
		{`<p><a href="/gallery">Pictures of the meeting</a></p>`, true},
		{`<p>See you all there.</p>`, false},
		{`<ul><li>Bread</li><li>Salt water</li></ul>`, false},
		{`<p>John Smith<br>Clayton</p>`, false},
		{`<p><a href="https://example.org/petition">https://example.org/petition</a></p>`, false},
	} {
		tail := textOf(mustFragment(t, c.tail))
		got := trailingText(t, trailingProse+c.tail)
		if !strings.Contains(got, "The vote on the remaining") {
			t.Errorf("%s: prose lost: %q", c.tail, got)
		}
		if gone := !strings.Contains(got, strings.TrimSpace(tail)); gone != c.gone {
			t.Errorf("%s: removed %v, want %v: %q", c.tail, gone, c.gone, got)
		}
	}
	// A short page keeps its last line: too little else.
	if got := trailingText(t, `<p>Short note.</p><div>Pictures here</div>`); !strings.Contains(got, "Pictures here") {
		t.Errorf("short page lost its last line: %q", got)
	}
}

func mustFragment(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<html><body>" + s + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	return findBody(doc)
}

// TestTrailingBounded: 400 nested divs (the parser stops at 512) with white space around the
// last word, and 100,000 empty siblings after it: one walk.
func TestTrailingBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(trailingProse)
	b.WriteString(strings.Repeat("<div> ", 400))
	b.WriteString("Source")
	b.WriteString(strings.Repeat(" </div>", 400))
	b.WriteString(strings.Repeat("<span> </span>", 100000))
	start := time.Now()
	got := trailingText(t, b.String())
	if strings.Contains(got, "Source") {
		t.Errorf("the nested label stayed")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
