package detect

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestRenamedClassesBringBackNoBoilerplate: a share bar and a related list
// inside the watched region are left out by their class words; once the
// site renames its classes they look like content, but they were there all
// along, so the check is unchanged.
func TestRenamedClassesBringBackNoBoilerplate(t *testing.T) {
	page := func(share, related string) string {
		return `<html><body><main><article><h1>Acme reports record third quarter revenue</h1>
<p>Acme Corporation today announced revenue of $1.2 billion for its third quarter, up twelve percent from a year ago, driven by demand for industrial sensors.</p>
<p>Operating margin widened to eighteen percent as the company completed the integration of its two European plants and reduced freight costs.</p>
<p>The board declared a quarterly dividend of 45 cents per share, payable on December 15 to shareholders of record on December 1.</p>
<div class="` + share + `"><a href="https://twitter.example/share">Share on X</a> <a href="https://facebook.example/share">Share on Facebook</a></div>
<ul class="` + related + `"><li><a href="/news/q2">Acme second quarter results</a></li><li><a href="/news/ceo">Acme names a new chief executive</a></li></ul>
</article></main></body></html>`
	}
	parse := func(s string) *html.Node {
		doc, err := html.Parse(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	first, err := Anchor(parse(page("share-bar", "related-stories")), "https://acme.example/news/q3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Fingerprint.Omitted) == 0 {
		t.Fatalf("nothing left out of the region: %+v", first.Fingerprint.Blocks)
	}
	again, err := Relocate(parse(page("x9f2", "k3p1")), "https://acme.example/news/q3", first.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if again.Score < RelocateThreshold {
		t.Fatalf("renamed classes: score %.0f", again.Score)
	}
	if ch := Compare(first.Fingerprint, again.Fingerprint, nil); ch.Changed {
		t.Errorf("renamed classes counted as a change: %+v", ch.Signals)
	}
	// A really new block is still a change.
	added := strings.Replace(page("x9f2", "k3p1"), "<div class=", "<p>Acme also raised its full-year outlook to $4.9 billion.</p><div class=", 1)
	third, err := Relocate(parse(added), "https://acme.example/news/q3", again.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if ch := Compare(again.Fingerprint, third.Fingerprint, nil); !ch.Material {
		t.Errorf("a new paragraph after the rename was not a material change: %+v", ch)
	}
}
