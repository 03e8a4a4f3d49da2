package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"webacq/internal/config"
	"webacq/internal/porttest"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestMapSite(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 3)
		// Handlers name their own address from the request: the site's URL
		// is not known before it starts.
		s := newSite(t, map[string]http.HandlerFunc{
			"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "User-agent: *\nDisallow: /private\nSitemap: http://%s/sitemap.xml\n", r.Host)
			},
			"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://%s/investors/q3-results</loc></url><url><loc>http://%s/about</loc></url></urlset>`, r.Host, r.Host)
			},
			"/":     page(`<html><head><title>Home</title></head><body><a href="/news">News</a> <a href="/private/x">Secret</a> <a href="/about#team">About</a></body></html>`),
			"/news": page(`<html><head><title>News</title></head><body><a href="/news/dividend">Dividend declared</a></body></html>`),
			"/private/x": func(w http.ResponseWriter, r *http.Request) {
				t.Error("map fetched a page robots.txt disallows")
			},
		})
		a := e.post("/api/v1/map", `{"url":"`+s.URL+`/","search":"dividend"}`)
		if a.status != 200 {
			t.Fatalf("map: %d %s", a.status, a.Error)
		}
		var r primitive.MapResult
		json.Unmarshal(a.Data, &r)
		if r.Total != len(r.Links) || r.Returned != r.Total || r.Truncated || r.Total < 5 {
			t.Fatalf("map result %s", a.Data)
		}
		if !strings.HasSuffix(r.Links[0].URL, "/news/dividend") {
			t.Errorf("search did not rank the match first: %+v", r.Links[0])
		}
		seen := map[string]string{}
		for _, l := range r.Links {
			if _, dup := seen[l.URL]; dup {
				t.Errorf("duplicate %s", l.URL)
			}
			seen[l.URL] = l.Source
		}
		if seen[s.URL+"/investors/q3-results"] != "sitemap" || seen[s.URL+"/news"] != "page" {
			t.Errorf("sources: %v", seen)
		}
		if got := e.balance(); got != 2 {
			t.Fatalf("balance %d, want 2 (map costs 1)", got)
		}
		us := e.usageRows()
		if us[0].Endpoint != "/api/v1/map" || us[0].Credits != 1 {
			t.Fatalf("usage %+v", us[0])
		}
	})
}

func TestMapFailuresAndValidation(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 3)
	deadURL := "http://" + porttest.Refusing(t)
	wantError(t, e.post("/api/v1/map", `{"url":"`+deadURL+`/"}`), 502, "upstream_error")
	for name, body := range map[string]string{
		"no url":       `{}`,
		"limit zero":   `{"url":"http://example.com","limit":0}`,
		"limit huge":   `{"url":"http://example.com","limit":1000000}`,
		"limit string": `{"url":"http://example.com","limit":"10"}`,
		"bad scheme":   `{"url":"file:///etc/passwd"}`,
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, e.post("/api/v1/map", body), 400, "bad_request")
		})
	}
	if got := e.balance(); got != 3 {
		t.Fatalf("balance %d, want 3", got)
	}
	guarded := newEnv(t, store.SQLite, func(c *config.Config) { c.AllowPrivate = false })
	guarded.store.AddCredits(ctx, guarded.ws.ID, 3)
	s := newSite(t, map[string]http.HandlerFunc{"/": page(article)})
	wantError(t, guarded.post("/api/v1/map", `{"url":"`+s.URL+`/"}`), 403, "forbidden_url")
	if s.hits.Load() != 0 {
		t.Fatal("the guarded map reached a loopback site")
	}
}
