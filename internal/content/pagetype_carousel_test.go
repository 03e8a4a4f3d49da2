package content

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// carouselPage is a product page with its picture gallery and a row of
// other products' cards, both written as WAI-ARIA carousels.
func carouselPage() string {
	var cards strings.Builder
	for i, name := range []string{"Road Runner 3", "Peak Climber", "Mud Strider", "City Walker"} {
		cards.WriteString(`<div role="group" aria-roledescription="slide"><a href="/products/p` + string(rune('a'+i)) + `"><img src="/c.jpg" alt=""></a><div>` +
			name + `, a shoe for everyday miles on roads and paths</div><div class="price">$7` + string(rune('0'+i)) +
			`.00</div></div>`)
	}
	return `<html><head><title>Trail Runner 2</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@type":"Product","name":"Trail Runner 2","offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD"}}</script>
</head><body><main><div class="product-detail"><h1>Trail Runner 2</h1>
<section aria-roledescription="carousel" aria-label="Pictures"><div aria-roledescription="slide"><img src="/t1.jpg" alt="Side view"></div><div aria-roledescription="slide"><img src="/t2.jpg" alt="Sole"></div></section>
<div class="price">$89.00</div>
<div class="description"><h2>Details</h2><p>A light trail shoe with a grippy sole and a rock plate for long days on rough ground.</p>
<p>The upper is made of recycled mesh that dries quickly after a river crossing, and the heel holds the foot on steep descents.</p>
<p>Its lugs are four millimetres deep, spaced to shed mud, and the foam under them keeps its spring for five hundred miles of trail.</p>
<ul><li>Weight 280 g</li><li>Drop 6 mm</li></ul></div>
<section aria-roledescription="carousel" aria-label="Similar items"><h2>People who viewed this item also viewed</h2>` + cards.String() + `</section>
</div></main></body></html>`
}

// TestProductCarouselOut fails without the rule (carouselsOn false in
// the pipeline, set on here: the rule is measured and not kept).
func TestProductCarouselOut(t *testing.T) {
	on := carouselsOn
	carouselsOn = true
	t.Cleanup(func() { carouselsOn = on })
	doc, err := HTML([]byte(carouselPage()), "https://shop.example/products/trail-runner-2", Options{OnlyMainContent: true, IncludeHTML: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.PageType != TypeProduct {
		t.Fatalf("page type %s, want product", doc.PageType)
	}
	for _, s := range []string{"A light trail shoe with a grippy sole", "Weight 280 g", "$89.00"} {
		if !strings.Contains(doc.Text, s) {
			t.Errorf("missing %q:\n%s", s, doc.Text)
		}
	}
	for _, s := range []string{"People who viewed", "Peak Climber", "$72.00"} {
		if strings.Contains(doc.Text, s) {
			t.Errorf("kept %q from the carousel of cards:\n%s", s, doc.Text)
		}
	}
	// The gallery holds no links: its pictures stay.
	if !strings.Contains(doc.HTML, "/t1.jpg") {
		t.Errorf("gallery picture gone:\n%s", doc.HTML)
	}
}

func TestRemoveCarouselsGuards(t *testing.T) {
	root, err := html.Parse(strings.NewReader(`<body>
<div aria-roledescription="Carousel"><a href="/a">one two</a> <a href="/b">three four</a></div>
<div aria-roledescription="carousel"><a href="#s1">five</a> <a href="#s2">six</a></div>
<p>seven eight nine ten eleven twelve thirteen fourteen</p></body>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findBody(root)
	if !removeCarousels(body) {
		t.Fatal("nothing removed")
	}
	got := textOf(body)
	if strings.Contains(got, "one two") {
		t.Errorf("linked carousel kept:\n%s", got)
	}
	if !strings.Contains(got, "five") {
		t.Errorf("carousel of fragment links removed:\n%s", got)
	}
	// A carousel that is most of the content stays.
	root, _ = html.Parse(strings.NewReader(`<body><div aria-roledescription="carousel"><a href="/a">one two three</a> <a href="/b">four five six</a></div><p>seven</p></body>`))
	body = findBody(root)
	if removeCarousels(body) {
		t.Errorf("removed a carousel holding most of the content:\n%s", textOf(body))
	}
}
