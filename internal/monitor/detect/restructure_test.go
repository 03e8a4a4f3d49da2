package detect

import (
	"strings"
	"testing"
)

// restructuredPage is a page whose keyword blocks lie in the article's
// body, in a header inside the article (content there, boilerplate
// outside an article) and in a box whose class may say "sidebar".
type restructuredPage struct {
	article  bool   // the header and body sit inside <article>
	boxClass string // the class of the box holding the offer
	header   bool   // the header's keyword block is on the page
	box      bool   // the box's keyword block is on the page
	copied   bool   // the article's body repeats the box's keyword block
}

func (v restructuredPage) html() string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Acme dividend</title></head><body>`)
	b.WriteString(`<nav><a href="/">Home</a> <a href="/ir">Investors</a></nav>`)
	open, closing := "<div>", "</div>"
	if v.article {
		open, closing = "<article>", "</article>"
	}
	b.WriteString(open)
	b.WriteString(`<header><h1>Acme news</h1>`)
	if v.header {
		b.WriteString(`<p>Board declares a quarterly dividend of 0.42 per share, payable in December.</p>`)
	}
	b.WriteString(`</header>`)
	b.WriteString(`<section><p>Acme Corporation reported steady revenue across its three divisions this quarter,
with industrial sales up and consumer sales flat; the company kept its outlook for the year.</p>
<p>The dividend policy stays unchanged: the board reviews it every quarter with the results.</p>
<p>Management will host a call with analysts next week to discuss the results in more detail.</p>`)
	if v.copied {
		b.WriteString(`<p>Enrol in the dividend reinvestment plan before the record date to buy shares without fees.</p>`)
	}
	b.WriteString(`</section>`)
	b.WriteString(closing)
	b.WriteString(`<div class="` + v.boxClass + `"><h3>Reinvestment</h3>`)
	if v.box {
		b.WriteString(`<p>Enrol in the dividend reinvestment plan before the record date to buy shares without fees.</p>`)
	}
	b.WriteString(`<p>Questions go to the transfer agent, open on weekdays.</p></div>`)
	b.WriteString(`<footer><p>© 2026 Acme Corporation</p></footer></body></html>`)
	return b.String()
}

// TestKeywordBlockMovingToBoilerplateIsNotRemoved: a cosmetic
// restructure that moves a keyword block between content and
// boilerplate (the article wrapper goes, so its header is page chrome;
// a box's class is renamed to a sidebar's or away from it) moves that
// block: no material change. The same block deleted from the page is a
// removal, a material change.
func TestKeywordBlockMovingToBoilerplateIsNotRemoved(t *testing.T) {
	base := restructuredPage{article: true, boxClass: "offer", header: true, box: true}
	r := anchor(t, base.html(), "dividend")

	moves := map[string]restructuredPage{
		"article wrapper gone":  {article: false, boxClass: "offer", header: true, box: true},
		"box renamed sidebar-x": {article: true, boxClass: "sidebar-x", header: true, box: true},
	}
	for name, v := range moves {
		got, ch := check(t, v.html(), r.Fingerprint)
		if got.Lost() || ch.Material {
			t.Errorf("%s: lost %v material %v signals %s", name, got.Lost(), ch.Material, signalText(ch.Signals))
		}
	}

	// The other way round: a box watched as boilerplate before is content
	// once its class says nothing.
	side := restructuredPage{article: true, boxClass: "sidebar-x", header: true, box: true}
	rs := anchor(t, side.html(), "dividend")
	if got, ch := check(t, base.html(), rs.Fingerprint); got.Lost() || ch.Material {
		t.Errorf("sidebar-x renamed offer: lost %v material %v signals %s", got.Lost(), ch.Material, signalText(ch.Signals))
	}

	// A block new in the content is added, though the sidebar holds the
	// same text (it did before too).
	copied := side
	copied.copied = true
	if got, ch := check(t, copied.html(), rs.Fingerprint); got.Lost() || !ch.Material {
		t.Errorf("sidebar's block copied into the content: lost %v material %v signals %s", got.Lost(), ch.Material, signalText(ch.Signals))
	}

	removals := map[string]struct {
		page restructuredPage
		text string
	}{
		"header block deleted":            {restructuredPage{article: true, boxClass: "offer", box: true}, "quarterly dividend"},
		"header block deleted, unwrapped": {restructuredPage{article: false, boxClass: "offer", box: true}, "quarterly dividend"},
		"box block deleted, renamed":      {restructuredPage{article: true, boxClass: "sidebar-x", header: true}, "reinvestment plan"},
	}
	for name, c := range removals {
		got, ch := check(t, c.page.html(), r.Fingerprint)
		if got.Lost() || !ch.Material || !removedText(ch.Signals, c.text) {
			t.Errorf("%s: lost %v material %v signals %s", name, got.Lost(), ch.Material, signalText(ch.Signals))
		}
	}
}
