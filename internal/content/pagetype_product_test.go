package content

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// productDupPage is a product page that writes its description panel
// twice, for small and for large screens, as many shops do.
func productDupPage() string {
	panel := `<div class="panel"><h2>Details</h2><p>A light trail shoe with a grippy sole and a rock plate for long days on rough ground.</p>
<ul><li>Upper made of recycled mesh that dries quickly</li><li>Weight 280 g</li></ul></div>`
	return `<html><head><title>Trail Runner 2</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@type":"Product","name":"Trail Runner 2","offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD"}}</script>
</head><body><main><div class="product-detail"><h1>Trail Runner 2</h1><div class="price">$89.00</div>
<form class="add-to-cart"><select><option>42</option></select><input name="qty" type="number"><button>Add to cart</button></form>
<div class="mobile-only">` + panel + `</div><div class="desktop-only">` + panel + `</div></div></main></body></html>`
}

func TestProductRepeatedPanelOnce(t *testing.T) {
	doc, err := HTML([]byte(productDupPage()), "https://shop.example/products/trail-runner-2", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.PageType != TypeProduct {
		t.Fatalf("page type %s, want product", doc.PageType)
	}
	for _, s := range []string{"A light trail shoe with a grippy sole", "Upper made of recycled mesh that dries quickly"} {
		if n := strings.Count(doc.Text, s); n != 1 {
			t.Errorf("%q %d times, want once:\n%s", s, n, doc.Text)
		}
	}
	// Short blocks (under dedupWords words) repeat legitimately.
	if n := strings.Count(doc.Text, "Weight 280 g"); n != 2 {
		t.Errorf("short line %d times, want both copies:\n%s", n, doc.Text)
	}
}

func TestDedupBlocks(t *testing.T) {
	root, err := html.Parse(strings.NewReader(`<body><div><p>one two three four five six</p><p>one two three four five</p></div>
<section><p>one two three four five six</p><p>one two three four five</p><div>seven <b>eight</b> nine ten eleven twelve</div><p>seven eight nine ten eleven twelve</p></section></body>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findBody(root)
	dedupBlocks(body)
	got := textOf(body)
	if n := strings.Count(got, "one two three four five six"); n != 1 {
		t.Errorf("six-word block %d times, want 1:\n%s", n, got)
	}
	if n := strings.Count(got, "one two three four five\n"); n != 2 {
		t.Errorf("five-word block %d times, want 2:\n%s", n, got)
	}
	if n := strings.Count(got, "seven eight nine ten eleven twelve"); n != 1 {
		t.Errorf("block with inline markup %d times, want 1:\n%s", n, got)
	}
}

// TestDedupBlocksBounded: a generated page of 200,000 copies of one
// block, each nested in its own chain of ten divs, takes one linear walk.
func TestDedupBlocksBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("<body>")
	for i := 0; i < 200000; i++ {
		b.WriteString(strings.Repeat("<div>", 10) + "<p>the same block of seven words here</p>" + strings.Repeat("</div>", 10))
	}
	b.WriteString("</body>")
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	// The walk is linear: 0.65 s here under -race (at load 7),
	// 8.9 s in a CI run beside a helper profiling (two cores), which
	// failed a 5 s bound. A walk that compared each block with the
	// earlier ones would make 2·10¹⁰ comparisons of 200,000 blocks:
	// minutes even without the race detector, so 30 s still tells.
	if d := spent(func() { dedupBlocks(findBody(root)) }); d > 30*time.Second {
		t.Errorf("dedupBlocks took %v of CPU", d)
	}
	if n := strings.Count(nodeText(root), "the same block"); n != 1 {
		t.Errorf("%d copies left, want 1", n)
	}
}

// TestChromeOnlyPage: a page whose server sent only the site's frame
// (the product is left to a script) has no main content, not its footer.
func TestChromeOnlyPage(t *testing.T) {
	page := `<html><head><title>Keyboard</title></head><body>
<nav><a href="/">Home</a> <a href="/deals">Deals</a></nav><div id="root"></div>
<footer><dl><dt>Help</dt><dd><a href="/help">Help Center</a>, <a href="/disputes">Disputes and Reports</a>, <a href="/returns">Return and refund policy</a>, <a href="/ipr">Report infringement</a></dd>
<dt>Browse by Category</dt><dd><a href="/all">All Popular</a>, <a href="/p">Product</a>, <a href="/promo">Promotion</a>, <a href="/low">Low Price</a>, <a href="/value">Great Value</a>, <a href="/reviews">Reviews</a>, <a href="/blog">Blog</a></dd></dl></footer></body></html>`
	doc, err := HTML([]byte(page), "https://shop.example/item/1.html", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(doc.Text) != "" {
		t.Errorf("want no main content, got:\n%s", doc.Text)
	}
	// A page whose text sits in a header or an aside keeps it: those
	// sometimes hold a page's own text.
	page = strings.Replace(page, `<div id="root"></div>`, `<aside><p>A mechanical keyboard with hot-swap switches, a gasket mount and an aluminium case, for typing all day.</p></aside>`, 1)
	doc, err = HTML([]byte(page), "https://shop.example/item/1.html", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Text, "hot-swap switches") {
		t.Errorf("text in an aside lost:\n%s", doc.Text)
	}
}

// TestChromeOnlyBounded: the frame test stops at the first word outside
// the frame and walks a generated page of 100,000 footers once.
func TestChromeOnlyBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("<body>")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "<footer><a href=\"/%d\">link %d</a></footer><div></div>", i, i)
	}
	b.WriteString("</body>")
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var only bool
	if d := spent(func() { only = chromeOnly(findBody(root)) }); d > 5*time.Second {
		t.Errorf("chromeOnly took %v of CPU", d)
	}
	if !only {
		t.Error("a body of footers is the frame only")
	}
}
