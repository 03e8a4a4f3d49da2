package content

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// wooPage is a WooCommerce category page in the default templates'
// markup: a heading and a count over ul.products of four li.product
// cards (title, price, an "Add to cart" link), below a store's menu of twelve
// categories written outside <nav>, each a link with an image and a
// line of text, which holds more words than the four cards.
func wooPage() string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lamps – Shop</title></head><body class="archive tax-product_cat woocommerce woocommerce-page">
<div class="site-menu"><ul class="menu">`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, `<li class="menu-item"><a href="/c/%d"><img src="/c%d.png">Category%d</a><span>Everything for the room %d, from the floor to the ceiling, in every colour.</span></li>`, i, i, i, i)
	}
	b.WriteString(`</ul></div><main id="main" class="site-main"><header class="woocommerce-products-header"><h1 class="page-title">Lamps</h1></header>
<p class="woocommerce-result-count">Showing all 4 results</p><ul class="products columns-4">`)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `<li class="product type-product post-%d status-publish instock"><a href="/product/lamp-%d/" class="woocommerce-LoopProduct-link woocommerce-loop-product__link"><img src="/l%d.jpg">
<h2 class="woocommerce-loop-product__title">Lamp%d brass</h2><span class="price"><span class="woocommerce-Price-amount amount">€%d9.00</span></span></a>
<a href="?add-to-cart=%d" class="button add_to_cart_button">Add to cart</a></li>`, i, i, i, i, i, i)
	}
	b.WriteString(`</ul></main><footer><a href="/help">Help</a></footer></body></html>`)
	return b.String()
}

// TestWooGrid: the item profile takes a WooCommerce shop's ul.products,
// with its heading and count, over a longer run of items elsewhere.
func TestWooGrid(t *testing.T) {
	root, err := html.Parse(strings.NewReader(wooPage()))
	if err != nil {
		t.Fatal(err)
	}
	k := itemsContent(root, nil)
	if k == nil {
		t.Fatal("no region of items found")
	}
	checkText(t, textOf(k), []string{"Lamps", "Showing all 4 results", "Lamp1 brass", "€19.00", "Lamp4 brass", "€49.00"},
		[]string{"Category1", "Everything for the room"})
}

// TestWooGridFew: a ul.products of fewer than minPlatformItems cards (a
// product page's two related products) is no grid.
func TestWooGridFew(t *testing.T) {
	page := `<html><body><ul class="products"><li class="product"><a href="/product/a/">A</a></li><li class="product"><a href="/product/b/">B</a></li></ul></body></html>`
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if g := wooGrid(findBody(root)); g != nil {
		t.Errorf("wooGrid found a grid of two")
	}
}
