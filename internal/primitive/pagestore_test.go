package primitive

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"webacq/internal/content"
	"webacq/internal/store/storetest"
)

// article is a page of about 80 words on subject, long enough to be ok.
func article(subject string) string {
	return fmt.Sprintf(`<html><head><title>All about the %[1]s</title></head><body><main><h1>All about the %[1]s</h1>
<p>The %[1]s lives in forests and grasslands, feeds at night and rests through the heat of the day in burrows
it digs itself or borrows from other animals of the region.</p>
<p>Field studies of the %[1]s count its numbers each spring; they show a stable population in protected areas
and a slow decline elsewhere, where roads and farms divide its range into small and separate patches.</p>
</main></body></html>`, subject)
}

func TestPageStoreKeepsBetterCopyAndSearchesFinalURLs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		st := storetest.Open(t, dialect)
		ws, err := st.CreateWorkspace(ctx, "w", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		var flaky atomic.Int32
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			switch r.URL.Path {
			case "/article":
				fmt.Fprint(w, article("pangolin"))
			case "/old":
				http.Redirect(w, r, "/article", http.StatusFound)
			case "/gone":
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, article("okapi"))
			case "/flaky":
				if flaky.Add(1) == 1 {
					fmt.Fprint(w, article("axolotl"))
					return
				}
				fmt.Fprint(w, `<html><head><title>Axolotl</title></head><body><p>Come back later, quokka.</p></body></html>`)
			default:
				http.NotFound(w, r)
			}
		}))
		defer site.Close()
		port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]

		svc := searchService(st)
		local := NewLocalSearch(st)
		fetchURL := func(u string, maxAge int) *FetchResult {
			t.Helper()
			req := FetchRequest{URL: u, MaxAge: maxAge}
			if err := req.Normalize(svc.HTTP.CheckURL, false); err != nil {
				t.Fatal(err)
			}
			res, err := svc.Fetch(ctx, ws.ID, req)
			if err != nil {
				t.Fatalf("fetch %s: %v", u, err)
			}
			return res
		}
		search := func(q string) []SearchHit {
			t.Helper()
			res, err := svc.SearchWith(ctx, local, ws.ID, SearchRequest{Query: q}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return res.Results
		}

		// A redirect, its target and the target under another loopback
		// name are one page, found at its final URL.
		if res := fetchURL(site.URL+"/old", 0); res.FinalURL != site.URL+"/article" {
			t.Fatalf("redirect: final URL %s", res.FinalURL)
		}
		fetchURL(site.URL+"/article", 0)
		alias := "http://localhost:" + port + "/article"
		fetchURL(alias, 0)
		hits := search("pangolin")
		if len(hits) != 1 || hits[0].URL != alias {
			t.Errorf("redirect and aliases: got %+v, want one hit at %s (the newest final URL)", hits, alias)
		}

		// A 404 is kept (maxAge may answer from it) but never found.
		if res := fetchURL(site.URL+"/gone", 0); res.StatusCode != http.StatusNotFound {
			t.Fatalf("gone: status %d", res.StatusCode)
		}
		if hits := search("okapi"); len(hits) != 0 {
			t.Errorf("404 page: got %+v, want no hit", hits)
		}

		// A thin copy after a good one: the caller gets the thin page, the
		// store keeps the good one for maxAge answers and search.
		if res := fetchURL(site.URL+"/flaky", 0); res.Verdict != string(content.VerdictOK) {
			t.Fatalf("first copy: verdict %s", res.Verdict)
		}
		if res := fetchURL(site.URL+"/flaky", 0); res.Verdict != string(content.VerdictThin) || res.Cached {
			t.Fatalf("second copy: verdict %s, cached %v; want a live thin page", res.Verdict, res.Cached)
		}
		if res := fetchURL(site.URL+"/flaky", 3600); !res.Cached || res.Verdict != string(content.VerdictOK) ||
			!strings.Contains(*res.Markdown, "axolotl lives in forests") {
			t.Errorf("maxAge: cached %v, verdict %s; want the good copy", res.Cached, res.Verdict)
		}
		if hits := search("quokka"); len(hits) != 0 {
			t.Errorf("the thin copy is indexed: %+v", hits)
		}
		if hits := search("axolotl"); len(hits) != 1 {
			t.Errorf("the good copy is not indexed: %+v", hits)
		}
	})
}

func TestPageQualityOrder(t *testing.T) {
	// Worst to best.
	order := []FetchResult{
		{StatusCode: 404, Verdict: "ok", Tier: TierHTTP},
		{StatusCode: 404, Verdict: "ok", Tier: TierBrowser},
		{StatusCode: 200, Verdict: "js_required", Tier: TierHTTP},
		{StatusCode: 200, Verdict: "soft_404", Tier: TierBrowser},
		{StatusCode: 200, Verdict: "thin", Tier: TierHTTP},
		{StatusCode: 200, Verdict: "thin", Tier: TierBrowser},
		{StatusCode: 200, Verdict: "ok", Tier: TierHTTP},
		{StatusCode: 200, Verdict: "ok", Tier: TierBrowser},
	}
	for i := 1; i < len(order); i++ {
		if a, b := pageQuality(&order[i-1]), pageQuality(&order[i]); a >= b {
			t.Errorf("%+v ranks %d, not below %+v (%d)", order[i-1], a, order[i], b)
		}
	}
	if q := pageQuality(&order[0]); q <= 0 {
		t.Errorf("lowest quality %d: copies stored before qualities (0) must rank below every fetch", q)
	}
}

func TestPageKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"http://localhost:8080/a", "http://127.0.0.1:8080/a"},
		{"http://[::1]:8080/a", "http://127.0.0.1:8080/a"},
		{"http://LOCALHOST:8080/a/#top", "http://127.0.0.1:8080/a"},
		{"https://Example.com:443/docs/", "https://example.com/docs"},
	} {
		if ka, kb := pageKey(tc.a), pageKey(tc.b); ka != kb || ka == "" {
			t.Errorf("pageKey(%s) = %q, pageKey(%s) = %q; want one key", tc.a, ka, tc.b, kb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"http://localhost:8080/a", "http://localhost:8081/a"},
		{"http://localhost:8080/a", "http://localhost:8080/b"},
		{"http://127.0.0.2:8080/a", "http://127.0.0.1:8080/a"},
		{"http://localhost/a", "https://localhost/a"},
	} {
		if pageKey(tc.a) == pageKey(tc.b) {
			t.Errorf("pageKey(%s) = pageKey(%s); want two pages", tc.a, tc.b)
		}
	}
	if k := pageKey("not a url"); k != "" {
		t.Errorf("pageKey of a relative URL = %q, want empty", k)
	}
}
