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
	start := time.Now()
	dedupBlocks(findBody(root))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("dedupBlocks took %v", d)
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
	start := time.Now()
	if !chromeOnly(findBody(root)) {
		t.Error("a body of footers is the frame only")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("chromeOnly took %v", d)
	}
}

// wooPage is a WooCommerce product page: a mega-menu of links before the
// product element, whose summary holds the name, price, short
// description, cart form and SKU line, and whose tabs hold the
// description and the reviews, then related products.
func wooPage() string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Warrior Drop Necklace – Shop</title><meta property="og:type" content="product"><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Warrior Drop Necklace","offers":{"@type":"Offer","price":"3665.00","priceCurrency":"USD"}}</script></head><body class="product-template-default single single-product woocommerce">
<header><div class="menu-wrap"><ul class="mega">`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `<li><a href="/shop/category-%d/">Category number %d of the shop</a></li>`, i, i)
	}
	b.WriteString(`</ul></div></header>
<div id="primary"><div id="product-1428" class="product type-product post-1428 status-publish instock">
<div class="woocommerce-product-gallery images"><figure><img src="/n.jpg" alt="Necklace"><figcaption>Zoom the gallery picture</figcaption></figure></div>
<div class="summary entry-summary">
<h1 class="product_title entry-title">Warrior Drop Necklace</h1>
<p class="price"><span class="woocommerce-Price-amount amount">$ 3,665.00</span></p>
<div class="woocommerce-product-details__short-description"><p>Gold, adorned by diamonds.</p></div>
<form class="cart" method="post"><div class="quantity"><label>Quantity</label><input type="number" name="quantity" value="1"></div><button type="submit" class="single_add_to_cart_button">Add to cart now please</button></form>
<div class="product_meta"><span class="sku_wrapper">SKU: <span class="sku">N667FD</span></span></div>
</div>
<div class="woocommerce-tabs wc-tabs-wrapper">
<ul class="tabs wc-tabs"><li><a href="#tab-description">Description</a></li><li><a href="#tab-reviews">Reviews (0)</a></li></ul>
<div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--description panel entry-content wc-tab" id="tab-description"><h2>Description</h2><div class="desc-body"><div class="desc-text"><p>Made of eighteen carat gold by a workshop in the city, polished by hand and set with white diamonds.</p>`)
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, `<p>In its %d. step, the workshop, founded by two sisters, draws each bar by hand, files it, wraps it in rings of yellow and white gold, and sets the stones one by one, so that no two pieces are quite alike, and each is signed.</p>`, i+1)
	}
	b.WriteString(`</div></div></div>
<div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--reviews panel entry-content wc-tab" id="tab-reviews"><div id="reviews" class="woocommerce-Reviews"><p>There are no reviews yet. Be the first to review this necklace.</p></div></div>
</div>
<section class="related products"><h2>Related products</h2><ul class="products">`)
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, `<li class="product type-product"><a href="/product/ring-%d/"><img src="/r%d.jpg" alt="">Diamond ring number %d</a><span class="price">$ 1,2%d0.00</span></li>`, i, i, i, i)
	}
	b.WriteString(`</ul></section></div></div>
<footer><p>Free returns and free shipping on orders over fifty dollars.</p></footer></body></html>`)
	return b.String()
}

func TestWooProduct(t *testing.T) {
	root, err := html.Parse(strings.NewReader(wooPage()))
	if err != nil {
		t.Fatal(err)
	}
	w, summary := wooProduct(findBody(root))
	if w == nil || summary == nil {
		t.Fatal("no WooCommerce product found")
	}
	got := textOf(w)
	for _, s := range []string{"Warrior Drop Necklace", "$ 3,665.00", "adorned by diamonds", "SKU: N667FD", "eighteen carat gold"} {
		if !strings.Contains(got, s) {
			t.Errorf("product lacks %q:\n%s", s, got)
		}
	}
	for _, s := range []string{"Zoom the gallery", "Add to cart", "Reviews (0)", "no reviews yet", "Related products", "Diamond ring", "Category number"} {
		if strings.Contains(got, s) {
			t.Errorf("product holds %q:\n%s", s, got)
		}
	}

	// The article decides: a menu (most of its text in links) or a
	// block without the summary gives way to the product; prose that
	// holds the summary stays.
	menu := findClassToken(root, "mega")
	if menu == nil || platformProduct(root, menu) == nil {
		t.Error("a menu article kept")
	}
	desc := findClassToken(root, "woocommerce-Tabs-panel--description")
	if desc == nil || platformProduct(root, desc) == nil {
		t.Error("an article without the summary kept")
	}
	if platformProduct(root, findClassToken(root, "entry-summary")) != nil {
		t.Error("an article of prose holding the summary replaced")
	}
	if platformProduct(root, nil) == nil {
		t.Error("no article: the product not taken")
	}

	// A shop's grid of product cards (class type-product, no summary)
	// is not a product.
	grid, err := html.Parse(strings.NewReader(`<body><ul><li class="product type-product"><a href="/p/1">Ring one</a></li><li class="product type-product"><a href="/p/2">Ring two</a></li></ul></body>`))
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := wooProduct(findBody(grid)); w != nil {
		t.Errorf("a grid of cards taken for a product: %q", textOf(w))
	}
}

// TestWooProductPage: on a WooCommerce product page whose readability
// article is the description tab (its longest prose), the main content
// is the product element: the name, price and SKU line as well.
func TestWooProductPage(t *testing.T) {
	doc, err := HTML([]byte(wooPage()), "https://shop.example/product/warrior-drop-necklace/", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.PageType != TypeProduct {
		t.Fatalf("page type %s, want product", doc.PageType)
	}
	for _, s := range []string{"Warrior Drop Necklace", "$ 3,665.00", "adorned by diamonds", "SKU: N667FD", "eighteen carat gold"} {
		if !strings.Contains(doc.Text, s) {
			t.Errorf("text lacks %q:\n%s", s, doc.Text)
		}
	}
	for _, s := range []string{"Category number", "Diamond ring", "no reviews yet"} {
		if strings.Contains(doc.Text, s) {
			t.Errorf("text holds %q:\n%s", s, doc.Text)
		}
	}
}

// findClassToken returns the first element under n one of whose classes
// is c.
func findClassToken(n *html.Node, c string) *html.Node {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && hasClassToken(k, c) {
			return k
		}
		if f := findClassToken(k, c); f != nil {
			return f
		}
	}
	return nil
}
