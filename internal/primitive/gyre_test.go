package primitive

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/store"
)

// gyreSitePages is the number of /p/N pages of the generated site.
const gyreSitePages = 60

// gyreSite is a generated site of interlinked pages that counts its
// requests and the most it served at once.
//
//   - / links to /p/0…/p/9, a robots-disallowed page, a 404, an image, a
//     slow page, a page on another site and /alias;
//   - /p/N links to /p/N+1 and /p/(7N mod 60) (both modulo 60), spelled
//     several ways: with a fragment, a trailing slash, an upper-case
//     scheme and host, a redundant default port in a relative form, a
//     tracking parameter;
//   - /alias declares /p/7 as its canonical URL;
//   - /orphan is listed only in the sitemap;
//   - robots.txt disallows /private and names the sitemap.
type gyreSite struct {
	*httptest.Server
	base string // http://localhost:port: host names other than 127.0.0.1 are other sites
	ext  *httptest.Server

	pageDelay   time.Duration // every page
	slowDelay   time.Duration // /slow
	robotsExtra string        // more robots.txt lines for the * group

	mu   sync.Mutex
	hits map[string]int // by path without a trailing slash

	active, peak atomic.Int32 // page requests being served, and the most at once
	extHits      atomic.Int32
}

func newGyreSite(t *testing.T) *gyreSite {
	t.Helper()
	s := &gyreSite{hits: make(map[string]int), slowDelay: 50 * time.Millisecond}
	s.ext = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.extHits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, gyrePageHTML("External", "<p>Another site altogether, with words enough.</p>", ""))
	}))
	t.Cleanup(s.ext.Close)
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	s.base = strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	return s
}

func gyrePageHTML(title, body, head string) string {
	return "<!doctype html><html><head><title>" + title + "</title>" + head + "</head><body><nav><a href=\"/\">Home</a></nav><main><h1>" + title +
		"</h1><p>This page is about " + title + ". It has a few sentences so that the converter keeps it as content.</p>" +
		body + "</main></body></html>"
}

func (s *gyreSite) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	s.mu.Lock()
	s.hits[p]++
	s.mu.Unlock()

	switch p {
	case "/robots.txt":
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private\n%sSitemap: %s/sitemap.xml\n", s.robotsExtra, s.base)
		return
	case "/sitemap.xml":
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
			`<url><loc>%[1]s/</loc></url><url><loc>%[1]s/p/1</loc></url><url><loc>%[1]s/orphan</loc></url></urlset>`, s.base)
		return
	}

	n := s.active.Add(1)
	defer s.active.Add(-1)
	for {
		m := s.peak.Load()
		if n <= m || s.peak.CompareAndSwap(m, n) {
			break
		}
	}
	if s.pageDelay > 0 {
		select {
		case <-time.After(s.pageDelay):
		case <-r.Context().Done():
			return
		}
	}

	html := func(title, body, head string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, gyrePageHTML(title, body, head))
	}
	switch {
	case p == "/":
		var b strings.Builder
		for i := range 10 {
			fmt.Fprintf(&b, `<p><a href="/p/%d">Page %d</a></p>`, i, i)
		}
		fmt.Fprintf(&b, `<p><a href="/private/secret">Secret</a> <a href="/missing">Missing</a>
			<img src="/img/logo.png"><a href="/img/logo.png">Logo</a> <a href="/slow">Slow</a>
			<a href="%s/x">Elsewhere</a> <a href="/alias">Alias</a> <a href="mailto:a@b.c">Mail</a></p>`, s.ext.URL)
		html("Home", b.String(), "")
	case strings.HasPrefix(p, "/p/"):
		i, err := strconv.Atoi(strings.TrimPrefix(p, "/p/"))
		if err != nil || i < 0 || i >= gyreSitePages {
			http.NotFound(w, r)
			return
		}
		next, jump := (i+1)%gyreSitePages, (i*7)%gyreSitePages
		upper := strings.ToUpper(strings.Replace(s.base, "http", "HTTP", 1))
		html(fmt.Sprintf("Page %d", i), fmt.Sprintf(`<p><a href="/p/%[1]d">Next</a> <a href="/p/%[1]d#part">Next part</a>
			<a href="/p/%[1]d/">Next again</a> <a href="%[3]s/p/%[1]d">NEXT</a> <a href="../p/./%[1]d?utm_source=feed">Next feed</a>
			<a href="/p/%[2]d">Jump</a></p>`, next, jump, upper), "")
	case p == "/alias":
		html("Page 7", "<p>The same as page 7.</p>", `<link rel="canonical" href="`+s.base+`/p/7">`)
	case p == "/orphan":
		html("Orphan", "<p>Only the sitemap knows me.</p>", "")
	case p == "/private/secret":
		html("Secret", "<p>Robots keep out.</p>", "")
	case p == "/slow":
		select {
		case <-time.After(s.slowDelay):
		case <-r.Context().Done():
			return
		}
		html("Slow", "<p>Worth the wait.</p>", "")
	case p == "/img/logo.png":
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
	default:
		http.NotFound(w, r)
	}
}

func (s *gyreSite) hitCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.hits)
}

func gyreService(allowPrivate bool) *Service {
	return &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: allowPrivate}), UserAgent: "webacq"}
}

func gyreInt(v int) *int { return &v }

func gyreOrFail(t *testing.T, svc *Service, req GyreRequest, opt GyreOptions) *GyreResult {
	t.Helper()
	res, err := svc.GyreWith(context.Background(), "", req, opt, nil)
	if err != nil {
		t.Fatalf("Gyre: %v", err)
	}
	if res.TotalPages != len(res.Pages) {
		t.Errorf("totalPages = %d, want len(pages) = %d", res.TotalPages, len(res.Pages))
	}
	return res
}

// pagePaths returns the paths of the pages, without trailing slashes.
func pagePaths(t *testing.T, res *GyreResult) []string {
	t.Helper()
	var out []string
	for _, p := range res.Pages {
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatalf("page url %q: %v", p.URL, err)
		}
		path := u.Path
		if len(path) > 1 {
			path = strings.TrimRight(path, "/")
		}
		out = append(out, path)
	}
	slices.Sort(out)
	return out
}

func TestGyreSite(t *testing.T) {
	site := newGyreSite(t)
	res := gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000), MaxDepth: gyreInt(100)}, GyreOptions{})

	// Home, 60 pages, /slow, /orphan; /alias and /p/7 are one page.
	if got, want := len(res.Pages), 1+gyreSitePages+2; got != want {
		t.Fatalf("got %d pages, want %d: %v", got, want, pagePaths(t, res))
	}
	if res.StartURL != site.base+"/" {
		t.Errorf("startUrl = %q, want %q", res.StartURL, site.base+"/")
	}
	paths := pagePaths(t, res)
	for _, want := range []string{"/", "/orphan", "/slow", "/p/0", "/p/59"} {
		if !slices.Contains(paths, want) {
			t.Errorf("page %s missing from %v", want, paths)
		}
	}
	if slices.Contains(paths, "/alias") == slices.Contains(paths, "/p/7") {
		t.Errorf("want exactly one of /alias and /p/7 (the same canonical page), got %v", paths)
	}

	hits := site.hitCounts()
	for path, n := range hits {
		if n != 1 {
			t.Errorf("%s requested %d times, want once", path, n)
		}
	}
	for _, path := range []string{"/private/secret", "/img/logo.png"} {
		if hits[path] != 0 {
			t.Errorf("%s requested %d times, want never", path, hits[path])
		}
	}
	if n := site.extHits.Load(); n != 0 {
		t.Errorf("the other site was requested %d times, want never", n)
	}

	byURL := make(map[string]GyrePage)
	for _, p := range res.Pages {
		byURL[p.URL] = p
		if p.StatusCode != 200 || p.Tier != TierHTTP || p.Title == "" || !strings.Contains(p.Markdown, "sentences") {
			t.Errorf("page %s: status %d, tier %q, title %q, markdown %q", p.URL, p.StatusCode, p.Tier, p.Title, p.Markdown)
		}
	}
	for _, p := range res.Pages {
		switch {
		case p.URL == site.base+"/":
			if p.Via != GyreViaStart {
				t.Errorf("start page via %q, want %q", p.Via, GyreViaStart)
			}
		case strings.HasSuffix(p.URL, "/orphan"):
			if p.Via != GyreViaSitemap {
				t.Errorf("orphan via %q, want %q", p.Via, GyreViaSitemap)
			}
		case p.Via == GyreViaSitemap:
			if !strings.HasSuffix(p.URL, "/p/1") {
				t.Errorf("%s via sitemap; the sitemap does not list it", p.URL)
			}
		default:
			if _, ok := byURL[p.Via]; !ok {
				t.Errorf("%s via %q, which is not a page of the crawl", p.URL, p.Via)
			}
		}
	}

	wantErrs := map[string]string{site.base + "/private/secret": GyreCodeRobots, site.base + "/missing": GyreCodeHTTPStatus}
	if len(res.Errors) != len(wantErrs) {
		t.Errorf("errors = %+v, want %v", res.Errors, wantErrs)
	}
	for _, e := range res.Errors {
		if wantErrs[e.URL] != e.Code || e.Error == "" {
			t.Errorf("error %+v, want code %q", e, wantErrs[e.URL])
		}
	}
	if got := res.Cost(); got != int64(len(res.Pages)) {
		t.Errorf("Cost = %d, want %d", got, len(res.Pages))
	}
}

func TestGyreMaxPages(t *testing.T) {
	for _, n := range []int{1, 7, 25} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			site := newGyreSite(t)
			res := gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(n), MaxDepth: gyreInt(100)}, GyreOptions{})
			if len(res.Pages) != n {
				t.Errorf("got %d pages, want %d", len(res.Pages), n)
			}
			fetched := 0
			for path, c := range site.hitCounts() {
				if path != "/robots.txt" && path != "/sitemap.xml" && path != "/missing" {
					fetched += c
				}
			}
			// Only failed pages (none but /missing here) and duplicates
			// may make the crawl ask for more than n pages.
			if fetched > n+1 {
				t.Errorf("%d pages requested for maxPages %d", fetched, n)
			}
		})
	}
}

func TestGyreMaxDepth(t *testing.T) {
	site := newGyreSite(t)
	svc := gyreService(true)

	res := gyreOrFail(t, svc, GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000), MaxDepth: gyreInt(0)}, GyreOptions{})
	if got := pagePaths(t, res); !slices.Equal(got, []string{"/"}) {
		t.Errorf("maxDepth 0: pages %v, want only /", got)
	}

	res = gyreOrFail(t, svc, GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000), MaxDepth: gyreInt(1), IgnoreSitemap: true}, GyreOptions{})
	for _, p := range res.Pages {
		if p.Via != GyreViaStart && p.Via != site.base+"/" {
			t.Errorf("maxDepth 1: %s found via %s, not the start page", p.URL, p.Via)
		}
	}
	// Home, /p/0…/p/9 with /alias among them, /slow.
	if got, want := len(res.Pages), 12; got != want {
		t.Errorf("maxDepth 1: got %d pages %v, want %d", got, pagePaths(t, res), want)
	}

	// From /p/0 the crawl would stay in /p/ (its directory) without
	// crawlEntireDomain.
	res = gyreOrFail(t, svc, GyreRequest{URL: site.base + "/p/0", MaxPages: gyreInt(1000), MaxDepth: gyreInt(2), IgnoreSitemap: true,
		CrawlEntireDomain: true}, GyreOptions{})
	// /p/0 → /p/1 (and itself, 7×0) → /p/2, /p/7; the nav link adds / at
	// depth 1, whose links add /p/3…/p/9, /slow, /alias at depth 2.
	got := pagePaths(t, res)
	for _, want := range []string{"/", "/p/0", "/p/1", "/p/2", "/p/9", "/slow"} {
		if !slices.Contains(got, want) {
			t.Errorf("maxDepth 2 from /p/0: %s missing from %v", want, got)
		}
	}
	// Page 7 is there once: as /p/7 (from /p/1 or /) or as /alias (from
	// /), whose canonical is /p/7, whichever the crawl took first; the
	// other is then a duplicate.
	if slices.Contains(got, "/p/7") == slices.Contains(got, "/alias") {
		t.Errorf("maxDepth 2 from /p/0: want page 7 once, as /p/7 or /alias, in %v", got)
	}
	if slices.Contains(got, "/p/14") || slices.Contains(got, "/p/10") {
		t.Errorf("maxDepth 2 from /p/0: pages three links away in %v", got)
	}
}

func TestGyreIncludeExclude(t *testing.T) {
	site := newGyreSite(t)
	svc := gyreService(true)

	// From /: /p/1, /p/2, /p/3 directly; /p/2 → /p/14; /p/3 → /p/21.
	// Every other link of theirs leaves the pattern.
	res := gyreOrFail(t, svc, GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000), MaxDepth: gyreInt(100),
		IncludePaths: []string{`^/p/(1|2|3|14|21)$`}}, GyreOptions{})
	if got, want := pagePaths(t, res), []string{"/", "/p/1", "/p/14", "/p/2", "/p/21", "/p/3"}; !slices.Equal(got, want) {
		t.Errorf("includePaths: pages %v, want %v", got, want)
	}

	res = gyreOrFail(t, svc, GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000), MaxDepth: gyreInt(100),
		ExcludePaths: []string{`^/p/[1-5]\d$`, `^/slow$`}}, GyreOptions{})
	got := pagePaths(t, res)
	for _, p := range got {
		if p == "/slow" || (strings.HasPrefix(p, "/p/") && len(p) == 5 && p[3] >= '1' && p[3] <= '5') {
			t.Errorf("excludePaths: page %s was crawled", p)
		}
	}
	if !slices.Contains(got, "/p/9") || !slices.Contains(got, "/orphan") {
		t.Errorf("excludePaths: /p/9 or /orphan missing from %v", got)
	}
}

func TestGyreExternalAndSubdomains(t *testing.T) {
	site := newGyreSite(t)
	res := gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000), MaxDepth: gyreInt(1),
		AllowExternal: true, IgnoreSitemap: true}, GyreOptions{})
	if n := site.extHits.Load(); n != 1 {
		t.Errorf("allowExternal: the other site was requested %d times, want once", n)
	}
	found := false
	for _, p := range res.Pages {
		found = found || p.URL == site.ext.URL+"/x"
	}
	if !found {
		t.Errorf("allowExternal: the external page is missing from %v", pagePaths(t, res))
	}

	f := &linkFilter{hosts: newSiteScope("example.com", true)}
	for raw, want := range map[string]bool{
		"https://docs.example.com/a":  true,
		"https://www.example.com/a":   true,
		"https://example.org/a":       false,
		"https://example.com/a.png":   false,
		"https://example.com/a.pdf":   true,
		"https://example.com/a.zip":   false,
		"https://example.com/a.csv":   false,
		"https://u:p@example.com/a":   false,
		"ftp://example.com/a":         false,
		"https://example.com/a.html":  true,
		"https://example.com/a/#frag": true,
	} {
		if c, ok := f.vet(raw, nil); (ok && c.follow()) != want {
			t.Errorf("vet(%q) follows %t, want %t", raw, ok && c.follow(), want)
		}
	}
}

func TestGyreTimeoutReturnsPartial(t *testing.T) {
	site := newGyreSite(t)
	site.pageDelay = 40 * time.Millisecond
	site.slowDelay = 10 * time.Second
	var res *GyreResult
	timeout, d, err := withGrowingTimeout(t, func(timeout int) (err error) {
		res, err = gyreService(true).GyreWith(context.Background(), "", GyreRequest{URL: site.base + "/", MaxPages: gyreInt(1000),
			MaxDepth: gyreInt(100), Timeout: gyreInt(timeout)}, GyreOptions{}, nil)
		return err
	})
	if err != nil {
		t.Fatalf("Gyre: %v", err)
	}
	if res.TotalPages != len(res.Pages) {
		t.Errorf("totalPages = %d, want len(pages) = %d", res.TotalPages, len(res.Pages))
	}
	if limit := time.Duration(timeout)*time.Millisecond + 1500*time.Millisecond; d > limit {
		t.Errorf("the crawl took %v with a %d ms timeout", d, timeout)
	}
	if len(res.Pages) == 0 || len(res.Pages) >= 1+gyreSitePages+2 {
		t.Errorf("got %d pages, want some but not all", len(res.Pages))
	}
	stops := 0
	for _, e := range res.Errors {
		if e.Code == model.CodeTimeout {
			t.Errorf("a page cut short by the crawl's end is listed as an error: %+v", e)
		}
		if e.Code == GyreCodeCrawlTimeout {
			stops++
		}
	}
	// The crawl itself says once that its time ran out (issue 22).
	if stops != 1 {
		t.Errorf("%d crawl_timeout entries in %+v, want one", stops, res.Errors)
	}
}

func TestGyreTimeoutWithNothing(t *testing.T) {
	site := newGyreSite(t)
	site.pageDelay = 5 * time.Second
	t0 := time.Now()
	_, err := gyreService(true).Gyre(context.Background(), "", GyreRequest{URL: site.base + "/", Timeout: gyreInt(300)}, nil)
	if got := model.ErrorCode(err); got != model.CodeTimeout {
		t.Errorf("error %v, want code %s", err, model.CodeTimeout)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("the crawl took %v with a 300 ms timeout", d)
	}
}

func TestGyreStartFails(t *testing.T) {
	site := newGyreSite(t)
	svc := gyreService(true)
	for _, tc := range []struct {
		path, code string
	}{
		{"/missing", model.CodeUpstreamError},
		{"/private/secret", model.CodeUpstreamError}, // robots.txt, and the sitemap adds nothing at depth 0
	} {
		_, err := svc.Gyre(context.Background(), "", GyreRequest{URL: site.base + tc.path, MaxDepth: gyreInt(0)}, nil)
		if got := model.ErrorCode(err); got != tc.code {
			t.Errorf("%s: error %v, want code %s", tc.path, err, tc.code)
		}
	}

	// A failed start page with sitemap pages is not a failed crawl.
	res, err := svc.Gyre(context.Background(), "", GyreRequest{URL: site.base + "/missing", MaxPages: gyreInt(2), MaxDepth: gyreInt(1)}, nil)
	if err != nil {
		t.Fatalf("start 404 with a sitemap: %v", err)
	}
	// Its errors: the start page, then why the crawl stopped with pages left.
	if len(res.Pages) == 0 || len(res.Errors) != 2 || res.Errors[0].Code != GyreCodeHTTPStatus || res.Errors[1].Code != GyreCodeMaxPages {
		t.Errorf("start 404 with a sitemap: pages %v, errors %+v", pagePaths(t, res), res.Errors)
	}
}

func TestGyreMaxCredits(t *testing.T) {
	site := newGyreSite(t)
	res := gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(100), MaxDepth: gyreInt(100),
		MaxCredits: gyreInt(5)}, GyreOptions{})
	if len(res.Pages) != 5 || res.Cost() != 5 {
		t.Errorf("maxCredits 5: %d pages costing %d", len(res.Pages), res.Cost())
	}
}

func TestGyrePerHostLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  GyreOptions
		want int32
	}{
		{"default", GyreOptions{}, DefaultGyrePerHost},
		{"two", GyreOptions{PerHost: 2, Workers: 8}, 2},
		{"workers", GyreOptions{PerHost: 8, Workers: 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := newGyreSite(t)
			site.pageDelay = 15 * time.Millisecond
			gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(40), MaxDepth: gyreInt(100)}, tc.opt)
			if got := site.peak.Load(); got > tc.want || got < 2 {
				t.Errorf("at most %d requests at once, want 2 to %d", got, tc.want)
			}
		})
	}
}

func TestGyreCrawlDelay(t *testing.T) {
	site := newGyreSite(t)
	site.robotsExtra = "Crawl-delay: 0.1\n"
	t0 := time.Now()
	res := gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(5), MaxDepth: gyreInt(100)}, GyreOptions{})
	if d := time.Since(t0); d < 400*time.Millisecond {
		t.Errorf("5 pages in %v with a Crawl-delay of 100 ms", d)
	}
	if got := site.peak.Load(); got != 1 {
		t.Errorf("%d requests at once under a Crawl-delay, want 1", got)
	}
	if len(res.Pages) != 5 {
		t.Errorf("got %d pages, want 5", len(res.Pages))
	}

	site = newGyreSite(t)
	t0 = time.Now()
	gyreOrFail(t, gyreService(true), GyreRequest{URL: site.base + "/", MaxPages: gyreInt(4), MaxDepth: gyreInt(100)}, GyreOptions{Delay: 100 * time.Millisecond})
	if d := time.Since(t0); d < 300*time.Millisecond || site.peak.Load() != 1 {
		t.Errorf("Delay 100 ms: 4 pages in %v, %d at once", d, site.peak.Load())
	}
}

func TestGyreProgress(t *testing.T) {
	site := newGyreSite(t)
	var calls [][2]int
	res, err := gyreService(true).Gyre(context.Background(), "", GyreRequest{URL: site.base + "/", MaxPages: gyreInt(20), MaxDepth: gyreInt(100)},
		func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 2 {
		t.Fatalf("progress called %d times", len(calls))
	}
	for i, c := range calls {
		if c[0] > c[1] || c[1] > 20 || (i > 0 && c[0] < calls[i-1][0]) {
			t.Errorf("progress call %d: %v after %v", i, c, calls[max(i-1, 0)])
		}
	}
	if last := calls[len(calls)-1]; last != [2]int{len(res.Pages), len(res.Pages)} {
		t.Errorf("last progress %v, want done = total = %d", last, len(res.Pages))
	}
}

func TestGyreForbiddenURL(t *testing.T) {
	site := newGyreSite(t)
	svc := gyreService(false)
	for _, u := range []string{site.URL + "/", site.base + "/"} {
		_, err := svc.Gyre(context.Background(), "", GyreRequest{URL: u}, nil)
		if got := model.ErrorCode(err); got != model.CodeForbiddenURL {
			t.Errorf("%s: error %v, want code %s", u, err, model.CodeForbiddenURL)
		}
	}
	if hits := site.hitCounts(); len(hits) != 0 {
		t.Errorf("the guarded crawl reached the site: %v", hits)
	}
}

func TestGyreCost(t *testing.T) {
	res := &GyreResult{Pages: []GyrePage{{Tier: TierHTTP}, {Tier: TierBrowser}, {Tier: TierHTTP}}}
	if got := res.Cost(); got != 5 {
		t.Errorf("Cost of http+browser+http = %d, want 5", got)
	}
	if got := (&GyreResult{}).Cost(); got != 1 {
		t.Errorf("Cost of no page = %d, want 1", got)
	}

	check := func(string) (*url.URL, error) { return url.Parse("https://example.com/") }
	for _, tc := range []struct {
		req     GyreRequest
		browser bool
		want    int64
	}{
		{GyreRequest{URL: "x"}, false, 10},
		{GyreRequest{URL: "x"}, true, 30},
		{GyreRequest{URL: "x", Tier: TierHTTP}, true, 10},
		{GyreRequest{URL: "x", MaxPages: gyreInt(1000), MaxCredits: gyreInt(50)}, true, 50},
		{GyreRequest{URL: "x", MaxPages: gyreInt(2), MaxCredits: gyreInt(50)}, false, 2},
	} {
		if err := tc.req.Normalize(check, tc.browser); err != nil {
			t.Fatal(err)
		}
		if got := tc.req.MaxCost(tc.browser); got != tc.want {
			t.Errorf("MaxCost(%+v, browser %t) = %d, want %d", tc.req, tc.browser, got, tc.want)
		}
	}
}

func TestGyreRequestNormalize(t *testing.T) {
	check := fetch.New(fetch.Config{}).CheckURL
	var r GyreRequest
	r.URL = "HTTPS://Example.com/docs/#top"
	if err := r.Normalize(check, false); err != nil {
		t.Fatal(err)
	}
	if r.URL != "https://example.com/docs/" || *r.MaxPages != 10 || *r.MaxDepth != 3 || *r.Timeout != 60000 ||
		r.Tier != TierAuto || !slices.Equal(r.Formats, []string{FormatMarkdown}) || !*r.OnlyMainContent || r.MaxCredits != nil {
		t.Errorf("defaults: %+v", r)
	}
	if err := r.Normalize(check, false); err != nil {
		t.Errorf("normalising twice: %v", err)
	}

	for _, tc := range []struct {
		req  GyreRequest
		code string
		msg  string
	}{
		{GyreRequest{}, model.CodeBadRequest, "url is required"},
		{GyreRequest{URL: "ftp://example.com/"}, model.CodeBadRequest, "http"},
		{GyreRequest{URL: "http://127.0.0.1/"}, model.CodeForbiddenURL, ""},
		{GyreRequest{URL: "https://example.com", MaxPages: gyreInt(0)}, model.CodeBadRequest, "maxPages must be between 1 and 1000"},
		{GyreRequest{URL: "https://example.com", MaxPages: gyreInt(1001)}, model.CodeBadRequest, "maxPages"},
		{GyreRequest{URL: "https://example.com", MaxDepth: gyreInt(-1)}, model.CodeBadRequest, "maxDepth"},
		{GyreRequest{URL: "https://example.com", Timeout: gyreInt(300001)}, model.CodeBadRequest, "timeout must be between 1 and 300000"},
		{GyreRequest{URL: "https://example.com", IncludePaths: []string{"(unclosed"}}, model.CodeBadRequest, `includePaths: "(unclosed" is not a valid regular expression: missing closing )`},
		{GyreRequest{URL: "https://example.com", ExcludePaths: []string{"a**"}}, model.CodeBadRequest, "excludePaths"},
		{GyreRequest{URL: "https://example.com", Formats: []string{"pdf"}}, model.CodeBadRequest, "unknown format"},
		{GyreRequest{URL: "https://example.com", Tier: "fast"}, model.CodeBadRequest, "tier"},
		{GyreRequest{URL: "https://example.com", Tier: TierBrowser}, model.CodeUnavailable, "browser"},
		{GyreRequest{URL: "https://example.com", MaxCredits: gyreInt(0)}, model.CodeBadRequest, "maxCredits must be at least 1"},
	} {
		err := tc.req.Normalize(check, false)
		if model.ErrorCode(err) != tc.code || !strings.Contains(model.ErrorMessage(err), tc.msg) {
			t.Errorf("Normalize(%+v) = %v, want code %s with %q", tc.req, err, tc.code, tc.msg)
		}
	}
	r = GyreRequest{URL: "https://example.com", MaxCredits: gyreInt(2)}
	if err := r.Normalize(check, true); model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(err.Error(), "at least 3") {
		t.Errorf("maxCredits 2 with a browser for auto: %v", err)
	}
}

func TestGyreKeepsPages(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "gyre.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	w, err := st.CreateWorkspace(ctx, "gyre", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	site := newGyreSite(t)
	svc := gyreService(true)
	svc.Pages, svc.Log = st, slog.New(slog.DiscardHandler)
	res, err := svc.Gyre(ctx, w.ID, GyreRequest{URL: site.base + "/", MaxPages: gyreInt(5)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Minute)
	for _, p := range res.Pages {
		got, err := st.FreshPage(ctx, w.ID, p.URL, "main=true;formats=markdown", since)
		if err != nil || got == nil {
			t.Errorf("page %s not kept: %v", p.URL, err)
			continue
		}
		if got.Markdown != p.Markdown || got.Title != p.Title {
			t.Errorf("page %s kept as title %q, markdown %q", p.URL, got.Title, got.Markdown)
		}
	}
}
