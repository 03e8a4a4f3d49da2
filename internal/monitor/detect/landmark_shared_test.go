package detect_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"webacq/internal/monitor/detect"
)

// TestLandmarksAreShared: an element that content.Landmark names by its
// tag or ARIA role is left out of a keyword scope while the keyword is
// in the content too, and a paragraph with any other role is watched.
func TestLandmarksAreShared(t *testing.T) {
	for _, tc := range []struct {
		open, close string
		left        bool
	}{
		{`<nav>`, `</nav>`, true},
		{`<aside>`, `</aside>`, true},
		{`<footer>`, `</footer>`, true},
		{`<header>`, `</header>`, true},
		{`<div role="navigation">`, `</div>`, true},
		{`<ul role="menu"><li>`, `</li></ul>`, true},
		{`<ul role="menubar"><li>`, `</li></ul>`, true},
		{`<div role="banner">`, `</div>`, true},
		{`<div role="contentinfo">`, `</div>`, true},
		{`<div role="complementary">`, `</div>`, true},
		{`<form role="search"><p>`, `</p></form>`, true},
		{`<div role="alert">`, `</div>`, true},
		{`<div role=" AlertDialog ">`, `</div>`, true},
		{`<div role="dialog">`, `</div>`, true},
		{`<div role="region">`, `</div>`, false},
		{`<div class="story">`, `</div>`, false},
	} {
		page := `<html><body><main><article><p>Quarterly results were announced today for investors in the company.</p></article></main>` +
			`<section>` + tc.open + `Landmark marker about investors` + tc.close + `</section></body></html>`
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		region, err := detect.Anchor(doc, "http://127.0.0.1/", []string{"investors"})
		if err != nil {
			t.Fatal(err)
		}
		if watched := strings.Contains(region.Markdown, "Landmark marker"); watched == tc.left {
			t.Errorf("%s: watched %v, want %v (%q)", tc.open, watched, !tc.left, region.Markdown)
		}
	}
}
