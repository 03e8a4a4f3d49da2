package content

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// servicePage is an agency's service page: an offer, its plans, a call to
// action, and three tabs whose panels (role=tabpanel, named by the tabs'
// aria-controls) are sent hidden but the first; a hidden dialog and a
// hidden menu, not panels, sit in and beside the region.
func servicePage() string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Web design services | Studio North</title>
<meta property="og:type" content="website">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Service","name":"Web design","provider":{"@type":"Organization","name":"Studio North"}}</script>
</head><body>
<header><nav><a href="/">Home</a> <a href="/services">Services</a> <a href="/pricing">Pricing</a> <a href="/contact">Contact us</a></nav>
<div class="menu" hidden><a href="/help">Help centre for our clients</a></div></header>
<main><section class="service">
<h1>Web design services</h1>
<p>We design and build fast, accessible websites for small businesses, charities and schools, from the first sketch to the launch and the care that follows it. Our team plans the pages with you, writes the copy, and trains your staff.</p>
<p>Every project starts with a free consultation. Book a call and get a quote within two days; our plans fit every budget and every project is covered by our support guarantee.</p>
<div class="tabs"><button aria-controls="tab-design">Design</button><button aria-controls="tab-build">Build</button><button aria-controls="tab-care">Care</button></div>
<div id="tab-design" role="tabpanel"><p>Design: wireframes, mock-ups and a style guide made with your team in two workshops, revised until the pages feel like yours.</p></div>
<div id="tab-build" role="tabpanel" hidden><p>Build: every page coded by hand and tested on phones, tablets and screen readers before the launch day.</p></div>
<div id="tab-care" style="display:none"><p>Care: monthly updates, backups and a named developer who answers your questions within one working day.</p></div>
<div class="modal" style="display:none"><p>Enter your card number to pay the deposit now.</p></div>
<h2>Plans and pricing</h2>
<ul><li>Starter: five pages, from $1,500</li><li>Business: twenty pages and a shop, from $4,000</li><li>Custom: get a quote</li></ul>
<p><a href="/contact">Get started today</a> or <a href="/pricing">compare our plans</a>.</p>
</section></main>
<footer><p>Studio North, 12 Harbour Road. Contact us for a free quote.</p></footer>
</body></html>`)
	return b.String()
}

// TestServicePanelsShown: on a service page, the hidden tab panels inside
// the region the extraction chose are put back; a hidden dialog there
// and a hidden menu outside it are not.
func TestServicePanelsShown(t *testing.T) {
	page := servicePage()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	s := scan(root, nil, false)
	doc := &Document{}
	c := contentNode(root, s, Options{OnlyMainContent: true}, doc)
	if p := c.probs[typeIndex(TypeService)]; p < serviceHiddenProb {
		t.Fatalf("service probability %.3f under %.2f: the page does not exercise the rule", p, serviceHiddenProb)
	}
	text := mainText(t, page)
	checkText(t, text, []string{"Design: wireframes", "Build: every page coded", "Care: monthly updates", "Plans and pricing"},
		[]string{"Enter your card number", "Help centre"})
}

// TestRestoreHiddenInRegion: restoreHidden puts back the elements kept
// aside that lie in the region and pass keep, each in its place, inner
// ones inside outer ones; the others stay out.
func TestRestoreHiddenInRegion(t *testing.T) {
	root, err := html.Parse(strings.NewReader(`<html><body><div id="r"><p>a</p><div id="x" hidden><p>x</p><div id="y" hidden>y</div></div><p>b</p><div id="z" hidden>z</div></div><div id="o" hidden>o</div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	s := walkPage(root, nil, false)
	if len(s.aside) != 4 {
		t.Fatalf("%d elements kept aside, want 4", len(s.aside))
	}
	region := findID(root, "r")
	keep := func(n *html.Node) bool { return attr(n, "id") != "z" }
	if !restoreHidden(s.aside, region, keep) {
		t.Fatal("nothing put back")
	}
	var b strings.Builder
	_ = html.Render(&b, findBody(root))
	want := `<body><div id="r"><p>a</p><div id="x" hidden=""><p>x</p><div id="y" hidden="">y</div></div><p>b</p></div></body>`
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
}

// TestRestoreHiddenBounded: a hidden element nested deeper than
// maxRegionDepth under the region is not looked up past the bound, and
// a page of many hidden panels is put back in time linear in them.
func TestRestoreHiddenBounded(t *testing.T) {
	deep := strings.Repeat("<div>", 400) + `<div role="tabpanel" hidden>deep</div>` + strings.Repeat("</div>", 400)
	many := strings.Repeat(`<div role="tabpanel" hidden>p</div>`, 5000)
	shown := `<p>` + strings.Repeat("shown words ", 10000) + `</p>` // the page is not one sent hidden
	root, err := html.Parse(strings.NewReader(`<html><body><main>` + shown + deep + many + `</main></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	s := walkPage(root, nil, false)
	region := findBody(root).FirstChild
	if len(s.aside) != maxHidden {
		t.Fatalf("%d elements kept aside, want maxHidden", len(s.aside))
	}
	start := time.Now()
	restoreHidden(s.aside, region, panelOf(root))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("restoreHidden took %v", d)
	}
	text := textOf(region)
	if strings.Contains(text, "deep") {
		t.Error("a panel past maxRegionDepth was put back")
	}
	if n := strings.Count(text, "p"); n < maxHidden-1 {
		t.Errorf("%d panels put back, want %d", n, maxHidden-1)
	}
}

func findID(n *html.Node, id string) *html.Node {
	for d := n; d != nil; d = nextWithin(d, n) {
		if d.Type == html.ElementNode && attr(d, "id") == id {
			return d
		}
	}
	return nil
}
