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

// TestRenamedClassesKeepTheRegion: the region's "related" list, left out
// by its class word, holds almost half of the article's text. Once the
// site renames its classes the list looks like content, and the article
// element holding it must still be the region found: not the smaller
// body without the lead (which would report the lead removed).
func TestRenamedClassesKeepTheRegion(t *testing.T) {
	page := func(related string) string {
		var list strings.Builder
		for i := range 6 {
			list.WriteString(`<li><a href="/news/` + string(rune('a'+i)) + `">Earlier story ` + string(rune('a'+i)) + ` about the company's plants and results</a></li>`)
		}
		return `<html><body><nav><a href="/">Home</a> <a href="/news">News</a></nav><main><article><h1>Acme opens a third plant in Ohio</h1>
<p>The maker of industrial sensors expands again, two years after it opened its second plant in the state.</p>
<div class="story-body"><p>Acme Corporation opened its third plant in Ohio on Monday, adding four hundred jobs and doubling its output of industrial sensors.</p>
<p>The plant cost $120 million and runs on power bought from a wind farm nearby, the company said in a statement.</p>
<p>Production of the new pressure sensors starts in January; the first deliveries go to car makers in Michigan.</p></div>
<ul class="` + related + `">` + list.String() + `</ul>
</article></main><footer>Acme news desk</footer></body></html>`
	}
	first := anchor(t, page("related-stories"))
	if len(first.Fingerprint.Omitted) == 0 {
		t.Fatalf("the related list was not left out: %q", signalTexts(first.Fingerprint.Blocks))
	}
	again := relocate(t, page("k3p1"), first.Fingerprint)
	if ch := Compare(first.Fingerprint, again.Fingerprint, nil); ch.Changed {
		t.Errorf("renamed classes counted as a change (region %s): %s", again.Fingerprint.Path, signalText(ch.Signals))
	}
}

// TestRenamedClassesFooterLeftOut: the article's footer of links is kept
// by the region because it lies in a class-worded wrapper ("share-box")
// that holds most of the article. Once the classes are renamed the
// wrapper is content and the footer, now the outermost boilerplate, is
// left out; the article is still the region (not the wrapper, which
// keeps the footer but not the headline and lead), and the footer
// leaving the fingerprint is no change.
func TestRenamedClassesFooterLeftOut(t *testing.T) {
	page := func(wrapper string) string {
		var links strings.Builder
		for i := range 8 {
			links.WriteString(`<li><a href="/topic/` + string(rune('a'+i)) + `">More on topic ` + string(rune('a'+i)) + ` from our archive</a></li>`)
		}
		return `<html><body><nav><a href="/">Home</a></nav><main><article><h1>Acme opens a third plant in Ohio</h1>
<p>Acme Corporation opened its third plant in Ohio on Monday, adding four hundred jobs and doubling its output of industrial sensors.</p>
<p>The plant cost $120 million and runs on power bought from a wind farm nearby, the company said in a statement on its website.</p>
<div class="` + wrapper + `"><p>Production starts in January.</p>
<footer><ul>` + links.String() + `</ul></footer></div>
</article></main></body></html>`
	}
	first := anchor(t, page("share-box"))
	if !strings.Contains(signalTexts(first.Fingerprint.Blocks), "More on topic a") {
		t.Fatalf("the footer is not in the region: %q", signalTexts(first.Fingerprint.Blocks))
	}
	again := relocate(t, page("k3p1"), first.Fingerprint)
	if ch := Compare(first.Fingerprint, again.Fingerprint, nil); ch.Changed {
		t.Errorf("renamed classes counted as a change (region %s): %s", again.Fingerprint.Path, signalText(ch.Signals))
	}
}
