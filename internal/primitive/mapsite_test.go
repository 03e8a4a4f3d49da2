package primitive

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/acquire"
	"webacq/internal/fetch"
	"webacq/internal/model"
)

// testSite is a local web site whose handler counts requests by path.
type testSite struct {
	*httptest.Server
	base string // http://localhost:port, so that host names can differ from 127.0.0.1

	mu    sync.Mutex
	hits  map[string]int
	pages map[string]func(w http.ResponseWriter, r *http.Request)
}

func newTestSite(t *testing.T) *testSite {
	t.Helper()
	s := &testSite{hits: make(map[string]int), pages: make(map[string]func(http.ResponseWriter, *http.Request))}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		h := s.pages[r.URL.Path]
		s.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	s.base = strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	return s
}

// handle serves body at path; "{base}" in body becomes the site's base URL.
func (s *testSite) handle(path, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(strings.ReplaceAll(body, "{base}", s.base)))
	}
}

func (s *testSite) handleFunc(path string, h func(w http.ResponseWriter, r *http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = h
}

func (s *testSite) html(path, title, body string) {
	s.handle(path, "text/html; charset=utf-8",
		"<!doctype html><html><head><title>"+title+"</title></head><body><main><h1>"+title+
			"</h1><p>Some words about "+title+" for the page to have content.</p>"+body+"</main></body></html>")
}

func (s *testSite) hitCount(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *testSite) totalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.hits {
		n += v
	}
	return n
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newMapService(allowPrivate bool) *Service {
	return &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: allowPrivate}), UserAgent: "webacq"}
}

func intPtr(v int) *int { return &v }

// fullSite builds the site most tests map: robots.txt names a sitemap index
// with a plain and a gzipped sitemap; pages link to each other, to another
// host, to subdomains, to a disallowed page and to assets.
func fullSite(t *testing.T) (*testSite, *testSite) {
	site := newTestSite(t)
	other := newTestSite(t) // reached as 127.0.0.1: another host
	other.html("/ext", "External", "")

	site.handle("/robots.txt", "text/plain", "User-agent: *\nDisallow: /private\n\nSitemap: {base}/sitemap_index.xml\n")
	site.handle("/sitemap_index.xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>{base}/sitemap-pages.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
  <sitemap><loc>{base}/sitemap-blog.xml.gz</loc></sitemap>
</sitemapindex>`)
	site.handle("/sitemap-pages.xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>{base}/</loc></url>
  <url><loc> {base}/about </loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>{base}/docs/</loc><image:image><image:loc>{base}/img/hero.png</image:loc></image:image></url>
  <url><loc>{base}/files/diagram.png</loc></url>
  <url><loc>`+other.URL+`/ext</loc></url>
</urlset>`)
	blog := gzipped(t, strings.ReplaceAll(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>{base}/blog/post-1</loc></url>
  <url><loc>{base}/blog/post-2</loc></url>
</urlset>`, "{base}", site.base))
	site.handleFunc("/sitemap-blog.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/gzip")
		_, _ = w.Write(blog)
	})

	site.html("/", "Home", `<nav>
		<a href="/about">About</a> <a href="/about#team">About the team</a>
		<a href="`+strings.ToUpper(site.base[:7])+site.base[7:]+`/about/">About again</a>
		<a href="/./docs/../about">About, dotted</a>
		<a href="/docs/">Docs</a> <a href="/docs">Docs again</a>
		<a href="/private/secret">Secret</a>
		<a href="/style.css">Style</a> <a href="/img/logo.png">Logo</a>
		<a href="/report.pdf">Annual report</a>
		<a href="/broken">Broken</a>
		<a href="/list?utm_source=home&amp;page=2">Page two</a>
		<a href="/list?page=2">Page two again</a>
		<a href="mailto:someone@example.com">Mail</a> <a href="tel:+123">Call</a>
		<a href="javascript:void(0)">Script</a>
		<a href="`+other.URL+`/ext">Elsewhere</a>
		<a href="http://sub.localhost:`+fmt.Sprint(site.Listener.Addr().(*net.TCPAddr).Port)+`/sub-page">Subdomain</a>
		<a href="http://sub.localhost:80/x">Sub x</a> <a href="http://sub.localhost/x#frag">Sub x again</a>
	</nav>`)
	site.html("/about", "About us", `<a href="/team">Our team</a> <a href="/">Home</a>`)
	site.html("/team", "Team", `<a href="/about">About</a>`)
	site.html("/docs/", "Documentation", `<a href="install">Install guide</a>`)
	site.html("/docs/install", "Installing", ``)
	site.html("/private/secret", "Secret", ``)
	site.html("/blog/post-1", "First post", ``)
	site.html("/blog/post-2", "Second post", ``)
	site.html("/list", "List", ``)
	return site, other
}

func mapOrFail(t *testing.T, svc *Service, req MapRequest) *MapResult {
	t.Helper()
	if req.Timeout == nil {
		req.Timeout = intPtr(20000)
	}
	res, err := svc.Map(context.Background(), req)
	if err != nil {
		t.Fatalf("Map: %v", err)
	}
	if res.Returned != len(res.Links) || res.Total < res.Returned {
		t.Errorf("total %d, returned %d for %d links", res.Total, res.Returned, len(res.Links))
	}
	// Truncated only when the map reached its limit.
	if res.Truncated && res.Total == res.Returned && (req.Limit == nil || res.Returned < *req.Limit) {
		t.Errorf("truncated with %d links found and returned, under the limit", res.Returned)
	}
	seen := make(map[string]bool)
	for _, l := range res.Links {
		key, err := NormalizeURL(l.URL)
		if err != nil {
			t.Errorf("link %q: %v", l.URL, err)
		}
		if seen[key] {
			t.Errorf("link %q listed twice", l.URL)
		}
		seen[key] = true
	}
	return res
}

func formatLinks(links []MapLink) string {
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "  %s %q %s\n", l.URL, l.Title, l.Source)
	}
	return b.String()
}

func TestMapSite(t *testing.T) {
	site, other := fullSite(t)
	svc := newMapService(true)
	res := mapOrFail(t, svc, MapRequest{URL: site.base})

	b := site.base
	want := []MapLink{
		{b + "/", "Home", "sitemap"},
		{b + "/about", "About us", "sitemap"},
		{b + "/docs/", "Documentation", "sitemap"},
		{b + "/files/diagram.png", "", "sitemap"},
		{b + "/blog/post-1", "", "sitemap"},
		{b + "/blog/post-2", "", "sitemap"},
		{b + "/private/secret", "Secret", "page"},
		{b + "/report.pdf", "Annual report", "page"},
		{b + "/broken", "Broken", "page"},
		{b + "/list?page=2", "List", "page"},
		{b + "/team", "Team", "page"},
		{b + "/docs/install", "Installing", "page"},
		{b + "/sitemap_index.xml", "", "robots"},
	}
	if res.URL != b+"/" {
		t.Errorf("URL = %q, want %q", res.URL, b+"/")
	}
	if got, wantS := formatLinks(res.Links), formatLinks(want); got != wantS {
		t.Errorf("links:\n%s\nwant:\n%s", got, wantS)
	}
	for _, p := range []string{"/private/secret", "/style.css", "/img/logo.png", "/report.pdf", "/files/diagram.png", "/blog/post-1"} {
		if n := site.hitCount(p); n != 0 {
			t.Errorf("%s requested %d times, want 0", p, n)
		}
	}
	for _, p := range []string{"/", "/about", "/team", "/docs/", "/docs/install", "/robots.txt", "/sitemap-blog.xml.gz"} {
		if n := site.hitCount(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	if n := site.hitCount("/docs"); n != 0 {
		t.Errorf("/docs requested %d times besides /docs/, want 0", n)
	}
	if n := other.totalHits(); n != 0 {
		t.Errorf("the other host got %d requests, want 0", n)
	}
}

func TestMapSitemapOnly(t *testing.T) {
	site, _ := fullSite(t)
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base + "/", SitemapOnly: true})
	b := site.base
	want := []MapLink{
		{b + "/", "", "sitemap"},
		{b + "/about", "", "sitemap"},
		{b + "/docs/", "", "sitemap"},
		{b + "/files/diagram.png", "", "sitemap"},
		{b + "/blog/post-1", "", "sitemap"},
		{b + "/blog/post-2", "", "sitemap"},
		{b + "/sitemap_index.xml", "", "robots"},
	}
	if got, wantS := formatLinks(res.Links), formatLinks(want); got != wantS {
		t.Errorf("links:\n%s\nwant:\n%s", got, wantS)
	}
	if got, want := site.totalHits(), 4; got != want { // robots.txt and three sitemaps
		t.Errorf("%d requests, want %d", got, want)
	}
	if n := site.hitCount("/"); n != 0 {
		t.Errorf("start page requested %d times, want 0", n)
	}
}

func TestMapLimit(t *testing.T) {
	site, _ := fullSite(t)
	all := mapOrFail(t, newMapService(true), MapRequest{URL: site.base})
	if all.Truncated || all.Total != len(all.Links) || all.Total <= 3 {
		t.Fatalf("the whole map: total %d, returned %d, truncated %t", all.Total, all.Returned, all.Truncated)
	}
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base, Limit: intPtr(3)})
	// A limit says the map was cut, and how many it found before it
	// stopped (DECISIONS, map: total counts the URLs found).
	if len(res.Links) != 3 || res.Returned != 3 || !res.Truncated || res.Total <= 3 || res.Total > all.Total {
		t.Fatalf("got %d links, returned %d, total %d (of %d), truncated %t; want 3 returned, more found, truncated:\n%s",
			len(res.Links), res.Returned, res.Total, all.Total, res.Truncated, formatLinks(res.Links))
	}
}

func TestMapSearch(t *testing.T) {
	site, _ := fullSite(t)
	svc := newMapService(true)
	plain := mapOrFail(t, svc, MapRequest{URL: site.base})
	res := mapOrFail(t, svc, MapRequest{URL: site.base, Search: "Blog  POST"})
	if len(res.Links) != len(plain.Links) {
		t.Fatalf("search kept %d links, want all %d", len(res.Links), len(plain.Links))
	}
	if got := res.Links[0].URL + " " + res.Links[1].URL; got != site.base+"/blog/post-1 "+site.base+"/blog/post-2" {
		t.Errorf("first links = %s, want the two blog posts", got)
	}
	// "team" matches /team (path and title), then "About the team"? No:
	// /about's title is its own, "About us". Ties keep discovery order.
	res = mapOrFail(t, svc, MapRequest{URL: site.base, Search: "about team"})
	if got := res.Links[0].URL; got != site.base+"/team" && got != site.base+"/about" {
		t.Errorf("first link = %s, want /about or /team", got)
	}
	if res.Links[0].URL != site.base+"/about" {
		t.Errorf("first link = %s, want /about (discovered first, one term like /team)", res.Links[0].URL)
	}

	res = mapOrFail(t, svc, MapRequest{URL: site.base, Search: "post", Limit: intPtr(2)})
	want := []MapLink{{site.base + "/blog/post-1", "", "sitemap"}, {site.base + "/blog/post-2", "", "sitemap"}}
	if got, wantS := formatLinks(res.Links), formatLinks(want); got != wantS {
		t.Errorf("links:\n%s\nwant:\n%s", got, wantS)
	}
	if res.Total != len(plain.Links) || !res.Truncated {
		t.Errorf("search with limit 2: total %d, truncated %t; want every URL found (%d), truncated", res.Total, res.Truncated, len(plain.Links))
	}
}

func TestMapIncludeSubdomains(t *testing.T) {
	site, _ := fullSite(t)
	port := fmt.Sprint(site.Listener.Addr().(*net.TCPAddr).Port)
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base, IncludeSubdomains: true})
	count := map[string]int{}
	for _, l := range res.Links {
		count[l.URL]++
	}
	for _, u := range []string{"http://sub.localhost:" + port + "/sub-page", "http://sub.localhost/x"} {
		if count[u] != 1 {
			t.Errorf("%s listed %d times, want 1:\n%s", u, count[u], formatLinks(res.Links))
		}
	}
	for _, l := range res.Links {
		if strings.Contains(l.URL, "127.0.0.1") {
			t.Errorf("external link %s listed", l.URL)
		}
	}
}

func TestSiteScope(t *testing.T) {
	tests := []struct {
		start, host string
		subdomains  bool
		want        bool
	}{
		{"example.com", "example.com", false, true},
		{"example.com", "www.example.com", false, true},
		{"www.example.com", "example.com", false, true},
		{"example.com", "blog.example.com", false, false},
		{"example.com", "blog.example.com", true, true},
		{"www.example.com", "a.b.example.com", true, true},
		{"example.com", "badexample.com", true, false},
		{"example.com", "example.com.evil.net", true, false},
		{"blog.example.com", "example.com", true, false},
		{"localhost", "127.0.0.1", true, false},
	}
	for _, tt := range tests {
		if got := newSiteScope(tt.start, tt.subdomains).contains(tt.host); got != tt.want {
			t.Errorf("scope(%s, subdomains=%v).contains(%s) = %v, want %v", tt.start, tt.subdomains, tt.host, got, tt.want)
		}
	}
}

// slowHandler answers after d, or gives up when the client does; active
// counts the requests being served.
func slowHandler(d time.Duration, active *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		active.Add(1)
		defer active.Add(-1)
		select {
		case <-time.After(d):
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><title>Slow</title><body>slow</body></html>"))
		case <-r.Context().Done():
		}
	}
}

func TestMapTimeoutReturnsPartial(t *testing.T) {
	site := newTestSite(t)
	var active atomic.Int32
	var links strings.Builder
	for i := range 8 {
		p := fmt.Sprintf("/slow%d", i)
		fmt.Fprintf(&links, `<a href="%s">Slow %d</a>`, p, i)
		site.handleFunc(p, slowHandler(10*time.Second, &active))
	}
	site.html("/", "Home", links.String())

	var res *MapResult
	timeout, elapsed, err := withGrowingTimeout(t, func(timeout int) (err error) {
		res, err = newMapService(true).Map(context.Background(), MapRequest{URL: site.base, Timeout: intPtr(timeout)})
		return err
	})
	if err != nil {
		t.Fatalf("Map: %v", err)
	}
	if limit := time.Duration(timeout)*time.Millisecond + 1500*time.Millisecond; elapsed > limit {
		t.Errorf("Map took %v with a %d ms timeout", elapsed, timeout)
	}
	if len(res.Links) != 9 {
		t.Errorf("got %d links, want the start page and its 8 links:\n%s", len(res.Links), formatLinks(res.Links))
	}
	// The fetches under way were abandoned: the slow handlers see their
	// clients go.
	deadline := time.Now().Add(2 * time.Second)
	for active.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := active.Load(); n != 0 {
		t.Errorf("%d requests still open after Map returned", n)
	}
}

func TestMapTimeoutWithNothing(t *testing.T) {
	site := newTestSite(t)
	var active atomic.Int32
	// robots.txt answers 404 at once: its fetch is shared by every caller
	// and outlives Map, which would only slow this test's cleanup.
	for _, p := range []string{"/", "/sitemap.xml", "/sitemap_index.xml"} {
		site.handleFunc(p, slowHandler(10*time.Second, &active))
	}
	begin := time.Now()
	_, err := newMapService(true).Map(context.Background(), MapRequest{URL: site.base, Timeout: intPtr(300)})
	if got := model.ErrorCode(err); got != model.CodeTimeout {
		t.Errorf("error %v has code %s, want %s", err, got, model.CodeTimeout)
	}
	if elapsed := time.Since(begin); elapsed > 2*time.Second {
		t.Errorf("Map took %v with a 300 ms timeout", elapsed)
	}
}

func TestMapForbiddenURL(t *testing.T) {
	site := newTestSite(t)
	site.html("/", "Home", "")
	_, err := newMapService(false).Map(context.Background(), MapRequest{URL: site.URL})
	if got := model.ErrorCode(err); got != model.CodeForbiddenURL {
		t.Errorf("error %v has code %s, want %s", err, got, model.CodeForbiddenURL)
	}
	if n := site.totalHits(); n != 0 {
		t.Errorf("%d requests reached the server, want 0", n)
	}
}

func TestMapBrokenSitemap(t *testing.T) {
	site := newTestSite(t)
	site.handle("/robots.txt", "text/plain", "User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n")
	site.handle("/sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset><url><loc>{base}/from-sitemap</loc></url><url><loc>{base}/cut`)
	site.html("/", "Home", `<a href="/b">B</a>`)
	site.html("/b", "Page B", "")
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base})
	b := site.base
	want := []MapLink{
		{b + "/from-sitemap", "", "sitemap"},
		{b + "/", "Home", "page"},
		{b + "/b", "Page B", "page"},
		{b + "/sitemap.xml", "", "robots"},
	}
	if got, wantS := formatLinks(res.Links), formatLinks(want); got != wantS {
		t.Errorf("links:\n%s\nwant:\n%s", got, wantS)
	}
}

func TestMapErrorStartPage(t *testing.T) {
	t.Run("no sitemap", func(t *testing.T) {
		site := newTestSite(t)
		site.handleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		})
		_, err := newMapService(true).Map(context.Background(), MapRequest{URL: site.base})
		if got := model.ErrorCode(err); got != model.CodeUpstreamError {
			t.Errorf("error %v has code %s, want %s", err, got, model.CodeUpstreamError)
		}
	})
	t.Run("conventional sitemap", func(t *testing.T) {
		site := newTestSite(t)
		site.handleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		})
		site.handle("/sitemap.xml", "text/xml", `<urlset><url><loc>{base}/a</loc></url></urlset>`)
		res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base})
		want := []MapLink{{site.base + "/a", "", "sitemap"}}
		if got, wantS := formatLinks(res.Links), formatLinks(want); got != wantS {
			t.Errorf("links:\n%s\nwant:\n%s", got, wantS)
		}
		if n := site.hitCount("/sitemap_index.xml"); n != 1 {
			t.Errorf("/sitemap_index.xml requested %d times, want 1", n)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		site := newTestSite(t)
		base := site.base
		site.Close()
		_, err := newMapService(true).Map(context.Background(), MapRequest{URL: base, Timeout: intPtr(5000)})
		if got := model.ErrorCode(err); got != model.CodeUpstreamError {
			t.Errorf("error %v has code %s, want %s", err, got, model.CodeUpstreamError)
		}
		_, err = newMapService(true).Map(context.Background(), MapRequest{URL: base, SitemapOnly: true, Timeout: intPtr(5000)})
		if got := model.ErrorCode(err); got != model.CodeUpstreamError {
			t.Errorf("sitemapOnly: error %v has code %s, want %s", err, got, model.CodeUpstreamError)
		}
	})
}

func TestMapCrawlDelay(t *testing.T) {
	site := newTestSite(t)
	site.handle("/robots.txt", "text/plain", "User-agent: *\nCrawl-delay: 0.2\n")
	var mu sync.Mutex
	var times []time.Time
	var active, peak atomic.Int32
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			n := active.Add(1)
			defer active.Add(-1)
			if n > peak.Load() {
				peak.Store(n)
			}
			mu.Lock()
			times = append(times, time.Now())
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><title>P</title><body>" + body + "</body></html>"))
		}
	}
	site.handleFunc("/", page(`<a href="/a">A</a><a href="/b">B</a><a href="/c">C</a>`))
	for _, p := range []string{"/a", "/b", "/c"} {
		site.handleFunc(p, page(""))
	}
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base})
	if len(res.Links) != 4 {
		t.Errorf("got %d links, want 4:\n%s", len(res.Links), formatLinks(res.Links))
	}
	if p := peak.Load(); p != 1 {
		t.Errorf("%d pages fetched at once, want 1", p)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 180*time.Millisecond {
			t.Errorf("requests %d and %d %v apart, want at least the 200 ms Crawl-delay", i-1, i, gap)
		}
	}
}

// TestMapCrawlDelayFromAnswer: the Crawl-delay is quiet time the site
// gets between the end of one answer and the next request, so a slow
// answer does not eat into it (spacing request starts alone would send
// the next request 200 ms after the last one started, 50 ms after its
// 150 ms answer ended).
func TestMapCrawlDelayFromAnswer(t *testing.T) {
	site := newTestSite(t)
	site.handle("/robots.txt", "text/plain", "User-agent: *\nCrawl-delay: 0.2\n")
	var mu sync.Mutex
	var arrived, ended []time.Time
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrived = append(arrived, time.Now())
			mu.Unlock()
			time.Sleep(150 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><title>P</title><body>" + body + "</body></html>"))
			mu.Lock()
			ended = append(ended, time.Now())
			mu.Unlock()
		}
	}
	site.handleFunc("/", page(`<a href="/a">A</a><a href="/b">B</a>`))
	for _, p := range []string{"/a", "/b"} {
		site.handleFunc(p, page(""))
	}
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base})
	if len(res.Links) != 3 {
		t.Errorf("got %d links, want 3:\n%s", len(res.Links), formatLinks(res.Links))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(arrived) != 3 {
		t.Fatalf("%d page requests, want 3", len(arrived))
	}
	for i := 1; i < len(arrived); i++ {
		if gap := arrived[i].Sub(ended[i-1]); gap < 180*time.Millisecond {
			t.Errorf("request %d came %v after answer %d ended, want at least the 200 ms Crawl-delay", i, gap, i-1)
		}
	}
}

func TestMapRequestValidate(t *testing.T) {
	check := fetch.New(fetch.Config{}).CheckURL
	tests := []struct {
		name string
		req  MapRequest
		code string
	}{
		{"no url", MapRequest{}, model.CodeBadRequest},
		{"relative url", MapRequest{URL: "example.com/a"}, model.CodeBadRequest},
		{"ftp", MapRequest{URL: "ftp://example.com/"}, model.CodeBadRequest},
		{"private", MapRequest{URL: "http://10.0.0.1/"}, model.CodeForbiddenURL},
		{"loopback", MapRequest{URL: "http://127.0.0.1:8080/"}, model.CodeForbiddenURL},
		{"limit 0", MapRequest{URL: "https://example.com/", Limit: intPtr(0)}, model.CodeBadRequest},
		{"limit too big", MapRequest{URL: "https://example.com/", Limit: intPtr(MapMaxLimit + 1)}, model.CodeBadRequest},
		{"timeout 0", MapRequest{URL: "https://example.com/", Timeout: intPtr(0)}, model.CodeBadRequest},
		{"timeout too long", MapRequest{URL: "https://example.com/", Timeout: intPtr(MapMaxTimeout + 1)}, model.CodeBadRequest},
		{"search too long", MapRequest{URL: "https://example.com/", Search: strings.Repeat("a", 501)}, model.CodeBadRequest},
		{"ok", MapRequest{URL: "https://example.com/", Limit: intPtr(MapMaxLimit), Timeout: intPtr(MapMaxTimeout)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate(check)
			if tt.code == "" {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			if got := model.ErrorCode(err); got != tt.code {
				t.Errorf("error %v has code %s, want %s", err, got, tt.code)
			}
		})
	}

	r := MapRequest{URL: "HTTPS://Example.com/a", Search: "  words  "}
	if err := r.Validate(check); err != nil {
		t.Fatal(err)
	}
	if *r.Limit != MapDefaultLimit || *r.Timeout != MapDefaultTimeout || r.Search != "words" || r.URL != "https://example.com/a" {
		t.Errorf("defaults: limit %d, timeout %d, search %q, url %q", *r.Limit, *r.Timeout, r.Search, r.URL)
	}
}

func TestParseSitemap(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		pages    []sitemapEntry
		children []string
	}{
		{
			name: "text",
			body: "\ufeffhttps://example.com/a\n  http://example.com/b  \r\n# comment\nnot a url\n\nHTTPS://example.com/c\n",
			pages: []sitemapEntry{
				{URL: "https://example.com/a"}, {URL: "http://example.com/b"}, {URL: "HTTPS://example.com/c"},
			},
		},
		{
			name: "rss",
			body: `<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Feed</title><link>https://example.com/</link>
				<item><title> First
				item </title><link>https://example.com/1</link></item>
				<item><link>https://example.com/2</link></item></channel></rss>`,
			pages: []sitemapEntry{{URL: "https://example.com/1", Title: "First item"}, {URL: "https://example.com/2"}},
		},
		{
			name: "atom",
			body: `<feed xmlns="http://www.w3.org/2005/Atom"><title>Feed</title><link href="https://example.com/"/>
				<entry><title>One</title><link rel="edit" href="https://example.com/edit/1"/><link href="https://example.com/1"/></entry>
				<entry><title type="html">Two</title><link rel="alternate" href="https://example.com/2"/></entry></feed>`,
			pages: []sitemapEntry{{URL: "https://example.com/1", Title: "One"}, {URL: "https://example.com/2", Title: "Two"}},
		},
		{
			name:     "index",
			body:     `<sitemapindex><sitemap><loc>https://example.com/s1.xml</loc></sitemap><sitemap><loc>https://example.com/s2.xml.gz</loc></sitemap></sitemapindex>`,
			children: []string{"https://example.com/s1.xml", "https://example.com/s2.xml.gz"},
		},
		{
			name:  "urlset with images and entities",
			body:  `<urlset xmlns:image="x"><url><loc>https://example.com/?a=1&amp;b=2</loc><image:image><image:loc>https://example.com/i.png</image:loc></image:image></url></urlset>`,
			pages: []sitemapEntry{{URL: "https://example.com/?a=1&b=2"}},
		},
		{name: "html", body: `<!doctype html><html><body><a href="https://example.com/x">x</a><loc>no</loc></body></html>`},
		{name: "empty", body: "  \n"},
		{name: "garbage", body: "<<<>>>&&&"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, gz := range []bool{false, true} {
				body := []byte(tt.body)
				if gz {
					body = gzipped(t, tt.body)
				}
				pages, children := parseSitemap(body, 100)
				if fmt.Sprint(pages) != fmt.Sprint(tt.pages) || fmt.Sprint(children) != fmt.Sprint(tt.children) {
					t.Errorf("gzip %v: got %v %v, want %v %v", gz, pages, children, tt.pages, tt.children)
				}
			}
		})
	}
	pages, _ := parseSitemap([]byte("https://e.com/1\nhttps://e.com/2\nhttps://e.com/3\n"), 2)
	if len(pages) != 2 {
		t.Errorf("max 2: got %d pages", len(pages))
	}
}

// A sitemap over fetch.FreeReadBytes takes the node's memory budget before
// it is read: while another caller holds the whole budget, map does not
// read it (and runs out of time); once the budget is free, it does.
func TestMapSitemapTakesTheBudget(t *testing.T) {
	site := newTestSite(t)
	var sm strings.Builder
	sm.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 20 {
		fmt.Fprintf(&sm, "<url><loc>{base}/page-%06d</loc></url>\n", i)
	}
	sm.WriteString("<!-- " + strings.Repeat("padding ", fetch.FreeReadBytes/4) + "-->")
	sm.WriteString(`</urlset>`)
	site.handle("/robots.txt", "text/plain", "User-agent: *\nSitemap: {base}/big-sitemap.xml\n")
	site.handle("/big-sitemap.xml", "application/xml", sm.String())
	site.html("/", "Home", "")

	budget := acquire.NewBudget(acquire.BudgetOptions{Memory: 64 << 20, Workers: 2})
	svc := newMapService(true)
	svc.Convert = budget
	ctx := context.Background()
	release, err := budget.Hold(ctx, budget.Capacity())
	if err != nil {
		t.Fatal(err)
	}
	res, _ := svc.Map(ctx, MapRequest{URL: site.base, Timeout: intPtr(700), Search: "page-000001"})
	if res != nil && strings.Contains(formatLinks(res.Links), "/page-") {
		t.Errorf("with the budget held elsewhere, map read the 2 MB sitemap:\n%s", formatLinks(res.Links))
	}
	release()
	res = mapOrFail(t, svc, MapRequest{URL: site.base, Search: "page-000001"})
	if len(res.Links) == 0 || !strings.HasSuffix(res.Links[0].URL, "/page-000001") {
		t.Errorf("with the budget free: %s", formatLinks(res.Links))
	}
	if _, _, inUse := budget.Stats(); inUse != 0 {
		t.Errorf("%d bytes of the budget still held after map", inUse)
	}
}

// withGrowingTimeout calls call with a timeout of 500 ms and answers the
// timeout it used, how long the call took and its error. A loaded machine
// may not even get the start page within 500 ms (the call then answers
// timeout with nothing): that attempt measured the machine, not the
// partial answer, so the call is made again with twice the time, at most
// three times in all.
func withGrowingTimeout(t *testing.T, call func(timeoutMs int) error) (timeout int, took time.Duration, err error) {
	t.Helper()
	timeout = 500
	for attempt := 1; ; attempt, timeout = attempt+1, timeout*2 {
		begin := time.Now()
		err = call(timeout)
		took = time.Since(begin)
		if model.ErrorCode(err) != model.CodeTimeout || attempt == 3 {
			return timeout, took, err
		}
		t.Logf("no start page within %d ms (%v); again with twice the time", timeout, err)
	}
}
