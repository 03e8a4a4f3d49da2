package content

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// collectionPage is a shop category: a heading, a result count and a
// grid of product cards, beside a sidebar with a paragraph of prose.
func collectionPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Running shoes</title>
<meta property="og:type" content="website">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"CollectionPage","name":"Running shoes"}</script>
</head><body><header><nav><a href="/">Home</a> <a href="/c/shoes">Shoes</a> <a href="/c/jackets">Jackets</a></nav></header>
<div class="story"><p>Members get free shipping on every order, with returns accepted for a full year after purchase, no questions asked.</p>
<p>Our fitters have run in every shoe we sell, on roads, tracks and trails, and they will help you find the pair that suits your stride.</p></div>
<main><h1>Running shoes</h1><p class="count">12 results</p><div class="filters"><select><option>Sort</option></select></div>
<ul class="product-grid">`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, `<li class="product-card"><a href="/p/shoe-%d"><img src="/i/%d.jpg" alt=""><h3>Road Shoe Model%d</h3></a>
<div class="price">$%d.00</div><button>Add to cart</button></li>`, i, i, i, 80+i)
	}
	b.WriteString(`</ul></main><footer><a href="/help">Help</a> <a href="/about">About</a></footer></body></html>`)
	return b.String()
}

func TestCollectionKeepsEveryItem(t *testing.T) {
	doc, err := HTML([]byte(collectionPage()), "https://shop.example/collections/running-shoes", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.PageType != TypeCollection {
		t.Fatalf("page type %s, want collection", doc.PageType)
	}
	for i := 1; i <= 12; i++ {
		for _, want := range []string{fmt.Sprintf("Road Shoe Model%d", i), fmt.Sprintf("$%d.00", 80+i)} {
			if !strings.Contains(doc.Text, want) {
				t.Errorf("text lacks %q:\n%s", want, doc.Text)
			}
		}
	}
	if strings.Contains(doc.Text, "free shipping") || strings.Contains(doc.Text, "Help") {
		t.Errorf("text kept the sidebar or footer:\n%s", doc.Text)
	}
}

func TestPageTypes(t *testing.T) {
	for _, c := range []struct {
		name, url, page string
		want            PageType
	}{
		{"product", "https://shop.example/products/trail-runner-2", `<html><head><title>Trail Runner 2</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@type":"Product","name":"Trail Runner 2","offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD"}}</script>
</head><body><main><div class="product-detail"><h1>Trail Runner 2</h1><div class="price">$89.00</div>
<form class="add-to-cart"><select><option>42</option></select><input name="qty" type="number"><button>Add to cart</button></form>
<p>A light trail shoe with a grippy sole and a rock plate for long days on rough ground.</p></div></main></body></html>`, TypeProduct},
		{"documentation", "https://lib.example/docs/api/client", `<html><head><title>Client reference</title></head><body>
<nav class="sidebar toc"><ul><li><a href="/docs/a">Install</a></li><li><a href="/docs/b">Client</a></li><li><a href="/docs/c">Errors</a></li></ul></nav>
<main><h1>Client</h1><p>The <code>Client</code> type sends requests. Create one with <code>New</code>.</p>
<div class="highlight"><pre><code class="language-go">c := lib.New(lib.Options{Timeout: 5})</code></pre></div>
<div class="admonition note"><p>Clients are safe for concurrent use.</p></div>
<h2>Methods</h2><h3>Get</h3><p>Get fetches a resource by <code>id</code>.</p><pre><code>c.Get(ctx, "id")</code></pre>
<h3>Close</h3><p>Close releases the connections.</p><pre><code>c.Close()</code></pre></main></body></html>`, TypeDocumentation},
		{"article", "https://news.example/2026/11/25/acme-results", `<html><head><title>Acme results</title>
<meta property="og:type" content="article">
<script type="application/ld+json">{"@type":"NewsArticle","headline":"Acme reports record quarter"}</script></head><body>
<article><h1>Acme reports record quarter</h1><time datetime="2026-11-25">Nov 25</time>
<p>Revenue grew to 12.4 million dollars, up 18 percent from a year earlier, the company said on Tuesday in its quarterly report.</p>
<p>Operating margin improved to 21 percent as the company reduced costs across its plants and renegotiated supplier contracts.</p>
<p>The company raised its guidance for the full year and said a new plant in Ohio would open in the spring.</p></article></body></html>`, TypeArticle},
	} {
		doc, err := HTML([]byte(c.page), c.url, Options{OnlyMainContent: true})
		if err != nil {
			t.Fatal(err)
		}
		if doc.PageType != c.want {
			t.Errorf("%s: page type %s, want %s", c.name, doc.PageType, c.want)
		}
	}
}

func TestConfidenceRanksExtractions(t *testing.T) {
	var art strings.Builder
	art.WriteString(`<html><head><title>Long read</title></head><body><nav><a href="/">Home</a></nav><article><h1>Long read</h1>`)
	for i := 0; i < 12; i++ {
		art.WriteString(`<p>The river rose through the night, and by morning the lower town was under water, its streets turned to canals where boats moved between the shuttered shops.</p>`)
	}
	art.WriteString(`</article><footer><a href="/about">About</a></footer></body></html>`)
	good, err := HTML([]byte(art.String()), "https://news.example/2026/flood", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	var links strings.Builder
	links.WriteString(`<html><head><title>Links</title></head><body><div>`)
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&links, `<a href="/x/%d">Section number %d</a> `, i, i)
	}
	links.WriteString(`</div><p>Short note.</p></body></html>`)
	poor, err := HTML([]byte(links.String()), "https://site.example/", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if good.Confidence <= poor.Confidence || good.Confidence < 0.5 || poor.Confidence < 0 {
		t.Errorf("confidence %.2f for a clean article, %.2f for a page of links; want the article above 0.5 and above the links",
			good.Confidence, poor.Confidence)
	}
	whole, _ := HTML([]byte(art.String()), "https://news.example/2026/flood", Options{})
	if whole.Confidence != -1 {
		t.Errorf("whole body: confidence %.2f, want -1 (not applicable)", whole.Confidence)
	}
}

func TestTextConfidence(t *testing.T) {
	clean := PlainText([]byte(strings.Repeat("Plain words that read as words in a sentence. ", 10)))
	junk := PlainText([]byte(strings.Repeat("%$# @@! ^^& *(( ", 20)))
	if clean.PageType != TypeArticle || clean.Confidence < 0.9 || junk.Confidence > 0.2 {
		t.Errorf("plain text: %s %.2f; debris %.2f", clean.PageType, clean.Confidence, junk.Confidence)
	}
}

// TestClassesAsBefore: classes counts the same class features as the
// byte-wise loop it replaced (kept here, calling classWord) on random
// class values made of classHints' words.
func TestClassesAsBefore(t *testing.T) {
	old := func(w *typeWalk, v string) {
		var seen uint64
		start := -1
		for i := 0; i <= len(v); i++ {
			var c byte
			if i < len(v) {
				c = v[i]
			}
			if i < len(v) && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				if start < 0 {
					start = i
				} else if isUpper(c) && !isUpper(v[i-1]) {
					w.classWordCount(v[start:i], &seen)
					start = i
				}
				continue
			}
			if start >= 0 {
				w.classWordCount(v[start:i], &seen)
				start = -1
			}
		}
	}
	parts := []string{"a", "Z", "-", "_", " ", "é", "9", "@", "X"}
	for h := range classHints {
		parts = append(parts, h, strings.ToUpper(h[:1])+h[1:], strings.ToUpper(h))
	}
	rng := rand.New(rand.NewSource(7))
	for range 100000 {
		var b strings.Builder
		for range rng.Intn(8) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		v := b.String()
		var got, want typeFeatures
		(&typeWalk{f: &got}).classes(v)
		old(&typeWalk{f: &want}, v)
		if got != want {
			t.Fatalf("%q: features %v, want %v", v, got, want)
		}
	}
}
