package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"webacq/internal/store/storetest"
)

const productPage = `<!doctype html><html lang="en"><head><title>Trail Runner 2 shoe</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 2",
"description":"A light trail shoe with a grippy sole.","sku":"TR2-42",
"offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><nav><a href="/">Home</a> <a href="/shoes">Shoes</a></nav>
<main><div class="product-detail"><h1>Trail Runner 2</h1><div class="price">$89.00</div>
<form class="add-to-cart"><select name="size"><option>42</option><option>43</option></select>
<input type="number" name="qty" value="1"><button type="submit">Add to cart</button></form>
<p>A light trail shoe with a grippy sole, a rock plate and a roomy toe box for long days on rough ground.</p>
<table class="specs"><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table>
</div></main><footer>Shop footer</footer></body></html>`

// TestFetchPageTypeAndConfidence checks page_type and confidence beside
// verdict, through the real API on pages served from 127.0.0.1.
func TestFetchPageTypeAndConfidence(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 10)
		s := newSite(t, map[string]http.HandlerFunc{
			"/news/2026/acme-q3":       page(article),
			"/products/trail-runner-2": page(productPage),
			"/notes.txt": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.Write([]byte("Plain notes from the field, written as sentences that read as words and nothing else."))
			},
		})
		fields := func(body string) map[string]any {
			t.Helper()
			a := e.post("/api/v1/fetch", body)
			if a.status != 200 {
				t.Fatalf("fetch %s: %d %s", body, a.status, a.Error)
			}
			var m map[string]any
			if err := json.Unmarshal(a.Data, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		for _, c := range []struct{ path, want string }{
			{"/news/2026/acme-q3", "article"},
			{"/products/trail-runner-2", "product"},
			{"/notes.txt", "article"},
		} {
			m := fields(`{"url":"` + s.URL + c.path + `","tier":"http"}`)
			if m["page_type"] != c.want {
				t.Errorf("%s: page_type %v, want %s", c.path, m["page_type"], c.want)
			}
			conf, ok := m["confidence"].(float64)
			if !ok || conf <= 0 || conf > 1 {
				t.Errorf("%s: confidence %v, want a number in (0, 1]", c.path, m["confidence"])
			}
		}
		// The whole body was asked for: nothing was extracted, so there
		// is no confidence to give; the type stays.
		m := fields(`{"url":"` + s.URL + `/news/2026/acme-q3","tier":"http","onlyMainContent":false}`)
		if _, ok := m["confidence"]; ok || m["page_type"] != "article" {
			t.Errorf("whole body: confidence %v page_type %v, want no confidence and article", m["confidence"], m["page_type"])
		}
	})
}
