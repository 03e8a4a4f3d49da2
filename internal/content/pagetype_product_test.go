package content

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// productPage is a shop's product page: a breadcrumb, the name, price
// and buy box in one column, the description and specifications in
// another, and a row of recommended products inside the same block.
func productPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Trail Runner 2 | Shop</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 2","offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD"}}</script>
</head><body><header><nav><a href="/">Home</a> <a href="/c/shoes">Shoes</a> <a href="/c/jackets">Jackets</a></nav></header>
<main><div class="product">
<nav class="crumbs"><a href="/">Home</a> / <a href="/c/shoes">Shoes</a> / <a href="/c/mountain">Mountain gear</a></nav>
<div class="columns"><div class="col-left"><div class="media"><img src="/i/trail.jpg" alt=""></div>
<div class="buy-box"><h1>Trail Runner 2</h1><div class="price">$89.00</div><p class="stock">In stock, ships in two days</p>
<form class="add-to-cart"><label>Size <select><option>Choose a size</option><option>EU 42</option></select></label>
<button>Add to bag</button></form></div></div>
<div class="col-right"><div class="tabs"><div class="tab-panel"><h2>Description</h2>
<p>This is a light trail shoe with a grippy sole, a rock plate and a roomy toe box, made for long days on rough and rocky ground.</p>
<p>Its upper is a recycled mesh that dries fast after a river crossing, and its lacing holds the heel in place on steep descents, even when wet.</p>
<p>The outsole's lugs are five millimetres deep and spaced wide, so mud falls out of them instead of packing in, and they bite on wet rock, roots and loose gravel alike.</p>
<p>A gusseted tongue keeps out grit and small stones, and the padded collar sits low at the ankle so that it never rubs, even on a long day in the hills.</p>
<p>The midsole keeps its spring for hundreds of miles, so the shoe feels the same on the last climb of an ultra as on the first.</p>
<h2>Specifications</h2><table><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr><tr><th>Lugs</th><td>5 mm</td></tr></table></div></div></div></div>
<div class="related"><h2>You may also like</h2><ul>`)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `<li class="card item-%d"><a href="/p/other-%d"><img src="/i/%d.jpg" alt=""> Road Shoe Model%d</a> <span>$%d.00</span></li>`, i, i, i, i, 90+i)
	}
	b.WriteString(`</ul></div></div></main><footer><a href="/help">Help</a> <a href="/about">About</a></footer></body></html>`)
	return b.String()
}

func TestProductKeepsNameAndDetails(t *testing.T) {
	doc, err := HTML([]byte(productPage()), "https://shop.example/products/trail-runner-2", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.PageType != TypeProduct {
		t.Fatalf("page type %s, want product", doc.PageType)
	}
	for _, want := range []string{"Trail Runner 2", "$89.00", "In stock", "recycled mesh", "280 g"} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, doc.Text)
		}
	}
	for _, unwanted := range []string{"Road Shoe Model", "Choose a size", "Add to bag", "Jackets", "Mountain gear"} {
		if strings.Contains(doc.Text, unwanted) {
			t.Errorf("text holds %q:\n%s", unwanted, doc.Text)
		}
	}
}

func TestDropBesideProduct(t *testing.T) {
	cards := `<ul>` + strings.Repeat(`<li class="card item"><a href="/p/x"><img src="/x.jpg" alt=""> Road Shoe Model</a> <span>$95.00</span></li>`, 4) + `</ul>`
	features := `<div>` + strings.Repeat(`<div class="feature"><img src="/f.jpg" alt=""><p>Grippy lugs bite on wet rock and loose gravel alike.</p><a href="/tech">Learn more</a></div>`, 3) + `</div>`
	for _, c := range []struct {
		name, page, gone, kept string
	}{
		{"product cards", `<p>Light trail shoe</p>` + cards, "Road Shoe Model", "Light trail shoe"},
		{"feature blocks", `<p>Light trail shoe</p>` + features, "", "Grippy lugs"},
		{"breadcrumb", `<nav><a href="/">Home</a> <a href="/m">Mountain gear</a></nav><p>Light trail shoe</p>`, "Mountain gear", "Light trail shoe"},
		{"buy box form", `<p>Light trail shoe</p><form><select><option>Choose a size</option></select><button>Add to bag</button></form>`, "Choose a size", "Light trail shoe"},
	} {
		root, err := html.Parse(strings.NewReader(`<html><body><div>` + c.page + `</div></body></html>`))
		if err != nil {
			t.Fatal(err)
		}
		body := findBody(root)
		dropBesideProduct(body)
		text := textOf(body)
		if c.gone != "" && strings.Contains(text, c.gone) {
			t.Errorf("%s: text holds %q:\n%s", c.name, c.gone, text)
		}
		if !strings.Contains(text, c.kept) {
			t.Errorf("%s: text lacks %q:\n%s", c.name, c.kept, text)
		}
	}
}
