package detect_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"webacq/internal/content"
	"webacq/internal/monitor/detect"
)

// Hidden is the one test of hiding: the main content and a monitor's
// watched region leave out the same elements.
func TestHiddenIsShared(t *testing.T) {
	for _, tc := range []struct {
		attrs  string
		hidden bool
	}{
		{`hidden`, true},
		{`aria-hidden="true"`, true},
		{`aria-hidden=" TRUE "`, true},
		{`aria-hidden="false"`, false},
		{`style="display: none"`, true},
		{`style="Visibility:Hidden"`, true},
		{`style="display:block"`, false},
		{`class="main"`, false},
	} {
		page := `<html><body><main><p>Quarterly results were announced today for investors.</p>` +
			`<p ` + tc.attrs + `>Secret marker paragraph about investors.</p></main></body></html>`
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		var p *html.Node
		var find func(*html.Node)
		find = func(n *html.Node) {
			if n.Type == html.ElementNode && n.Data == "p" && strings.Contains(textOf(n), "Secret") {
				p = n
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				find(c)
			}
		}
		find(doc)
		if got := content.Hidden(p); got != tc.hidden {
			t.Errorf("Hidden(<p %s>) = %v, want %v", tc.attrs, got, tc.hidden)
		}
		region, err := detect.Anchor(doc, "http://127.0.0.1/", []string{"investors"})
		if err != nil {
			t.Fatal(err)
		}
		watched := strings.Contains(region.Markdown, "Secret marker")
		if watched == tc.hidden {
			t.Errorf("<p %s>: detect watches it %v, want %v", tc.attrs, watched, !tc.hidden)
		}
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
