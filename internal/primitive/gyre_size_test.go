package primitive

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A crawl stops taking pages once their content reaches MaxResultBytes,
// and says so in errors[]; pages are billed only as returned.
func TestGyreStopsAtMaxResultBytes(t *testing.T) {
	para := "<p>" + strings.Repeat("heavy words ", 8000) + "</p>" // ~100 KB of text a page
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		var links strings.Builder
		for i := range 20 {
			fmt.Fprintf(&links, `<a href="/p%s-%d">next</a> `, strings.TrimPrefix(r.URL.Path, "/"), i)
		}
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><article><h1>Page</h1>%s</article><nav>%s</nav></body></html>", r.URL.Path, para, links.String())
	}))
	t.Cleanup(srv.Close)

	const limit = 500 << 10 // about five pages
	res := gyreOrFail(t, gyreService(true), GyreRequest{URL: srv.URL + "/", MaxPages: gyreInt(100), MaxDepth: gyreInt(10)},
		GyreOptions{MaxResultBytes: limit})
	var size int64
	for i := range res.Pages {
		size += res.Pages[i].contentSize()
	}
	if len(res.Pages) < 4 || len(res.Pages) > 12 {
		t.Errorf("%d pages returned, want about five of ~100 KB under a %d KB limit", len(res.Pages), limit>>10)
	}
	if last := res.Pages[len(res.Pages)-1].contentSize(); size-last >= limit {
		t.Errorf("pages kept coming after the limit: %d bytes before the last page", size-last)
	}
	found := false
	for _, e := range res.Errors {
		found = found || (e.Code == GyreCodeResultSize && e.URL == srv.URL+"/")
	}
	if !found {
		t.Errorf("no %s entry in errors: %+v", GyreCodeResultSize, res.Errors)
	}
	if got, want := res.Cost(), int64(len(res.Pages)); got != want {
		t.Errorf("cost %d, want one credit per page returned (%d)", got, want)
	}
}
