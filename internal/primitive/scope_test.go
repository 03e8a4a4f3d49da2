package primitive

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestStartDir(t *testing.T) {
	for p, want := range map[string]string{
		"":                       "/",
		"/":                      "/",
		"/index.html":            "/",
		"/docs/":                 "/docs/",
		"/docs":                  "/",
		"/docs/guide/intro.html": "/docs/guide/",
		"/docs/guide/":           "/docs/guide/",
		"/features/feature-1":    "/features/",
		"/a%2Fb/c":               "/a%2Fb/",
	} {
		if got := startDir(p); got != want {
			t.Errorf("startDir(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestLinkFilter(t *testing.T) {
	f := &linkFilter{
		hosts: newSiteScope("example.com", true),
		dir:   "/docs/guide/",
	}
	for raw, want := range map[string]bool{
		"https://example.com/docs/guide/setup.html":   true,
		"https://www.example.com/docs/guide/a/b":      true,
		"https://example.com/docs/guide":              true, // the directory's own page
		"https://example.com/docs/guide/":             true,
		"https://example.com/docs/guidebook/x":        false,
		"https://example.com/docs/other.html":         false,
		"https://example.com/":                        false,
		"https://example.com/docs/guide/../other":     false, // dot segments resolved first
		"https://example.com/docs/./guide/x":          true,
		"https://blog.example.com/anything":           true, // a subdomain is not bounded by the directory
		"https://example.org/docs/guide/x":            false,
		"https://u:p@example.com/docs/guide/x":        false,
		"mailto:a@example.com":                        false,
		"https://EXAMPLE.com/docs/guide/x#part":       true,
		"https://example.com/docs/guide/x?utm_id=1&a": true,
	} {
		if _, ok := f.vet(raw, nil); ok != want {
			t.Errorf("vet(%q) = %t, want %t", raw, ok, want)
		}
	}

	f.external = true
	for raw, want := range map[string]bool{
		"https://example.org/":                true, // other sites: any path
		"https://example.com/docs/other.html": false,
	} {
		if _, ok := f.vet(raw, nil); ok != want {
			t.Errorf("external: vet(%q) = %t, want %t", raw, ok, want)
		}
	}

	f = &linkFilter{
		hosts:   newSiteScope("example.com", false),
		include: []*regexp.Regexp{regexp.MustCompile(`^/docs/`)},
		exclude: []*regexp.Regexp{regexp.MustCompile(`/old$`)},
	}
	for raw, want := range map[string]bool{
		"https://example.com/docs/a":     true,
		"https://example.com/docs/old/":  false, // the pattern sees the path without its slash too
		"https://example.com/blog/a":     false,
		"https://sub.example.com/docs/a": false,
	} {
		if _, ok := f.vet(raw, nil); ok != want {
			t.Errorf("patterns: vet(%q) = %t, want %t", raw, ok, want)
		}
	}

	c, ok := f.vet("../b/./c?b=2&a=1#x", mustParse(t, "https://Example.com:443/docs/a/"))
	if !ok || c.url != "https://example.com/docs/b/c?b=2&a=1" || c.key != "https://example.com/docs/b/c?a=1&b=2" || c.host != hostSite {
		t.Errorf("relative link: %+v, %t", c, ok)
	}
}

// scopeSite serves a documentation tree whose start page links in and out
// of its directory, to another host and to a subdomain; the sitemap lists
// a page in the directory and one out of it.
func scopeSite(t *testing.T) (site, other *testSite) {
	site = newTestSite(t)
	other = newTestSite(t)
	other.html("/ext", "External", "")
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	site.handle("/robots.txt", "text/plain", "User-agent: *\nSitemap: {base}/sitemap.xml\n")
	site.handle("/sitemap.xml", "application/xml", `<urlset><url><loc>{base}/docs/guide/from-sitemap.html</loc></url>`+
		`<url><loc>{base}/about.html</loc></url><url><loc>`+other.URL+`/ext</loc></url></urlset>`)
	site.html("/docs/guide/intro.html", "Intro", `<a href="setup.html">Setup</a> <a href="advanced/">Advanced</a>
		<a href="/docs/guide">Guide</a> <a href="../other.html">Other docs</a> <a href="/">Home</a>
		<a href="/blog/post">Blog</a> <a href="/docs/guidebook/x">Guidebook</a> <a href="`+other.URL+`/ext">External</a>
		<a href="http://sub.localhost:`+port+`/docs/guide/x">Subdomain</a>`)
	site.html("/docs/guide/setup.html", "Setup", `<a href="deep/page.html">Deep</a> <a href="/docs/guide/skip.html">Skip</a>`)
	site.html("/docs/guide/advanced/", "Advanced", `<a href="tips">Tips</a> <a href="../intro.html">Intro</a>`)
	site.handleFunc("/docs/guide/advanced", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs/guide/advanced/", http.StatusMovedPermanently)
	})
	site.html("/docs/guide/advanced/tips", "Tips", ``)
	site.html("/docs/guide", "Guide", `<a href="guide/intro.html">Intro</a> <a href="other.html">Other docs</a>`)
	site.html("/docs/guide/deep/page.html", "Deep", ``)
	site.html("/docs/guide/skip.html", "Skip", ``)
	site.html("/docs/guide/from-sitemap.html", "From the sitemap", ``)
	for _, p := range []string{"/docs/other.html", "/", "/blog/post", "/docs/guidebook/x", "/about.html"} {
		site.html(p, "Outside "+p, ``)
	}
	site.handleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs/guide/intro.html", http.StatusMovedPermanently)
	})
	return site, other
}

func TestGyreDirectoryScope(t *testing.T) {
	inside := []string{"/docs/guide", "/docs/guide/advanced", "/docs/guide/advanced/tips", "/docs/guide/deep/page.html",
		"/docs/guide/from-sitemap.html", "/docs/guide/intro.html", "/docs/guide/setup.html", "/docs/guide/skip.html"}
	outside := []string{"/", "/about.html", "/blog/post", "/docs/guidebook/x", "/docs/other.html"}
	for _, tc := range []struct {
		name     string
		req      GyreRequest
		want     []string
		external int // requests the other host gets for /ext
	}{
		{"directory", GyreRequest{}, inside, 0},
		{"redirected start", GyreRequest{URL: "/start"}, inside, 0},
		// "/docs/guide/advanced" redirects to "/docs/guide/advanced/", its
		// directory: "../intro.html" there is out of it.
		{"redirected to the directory", GyreRequest{URL: "/docs/guide/advanced"}, []string{"/docs/guide/advanced", "/docs/guide/advanced/tips"}, 0},
		// "/docs/guide" answers without a redirect: its directory is /docs/.
		{"directory page without its slash", GyreRequest{URL: "/docs/guide"},
			sortedUnion(inside, []string{"/docs/guidebook/x", "/docs/other.html"}), 0},
		{"entire domain", GyreRequest{CrawlEntireDomain: true}, sortedUnion(inside, outside), 0},
		{"patterns", GyreRequest{IncludePaths: []string{`^/docs/guide/(intro|setup|deep)`}, ExcludePaths: []string{`/deep/`}},
			[]string{"/docs/guide/intro.html", "/docs/guide/setup.html"}, 0},
		{"patterns beyond the directory", GyreRequest{IncludePaths: []string{`^/blog/`}}, []string{"/docs/guide/intro.html"}, 0},
		// Other sites are not bounded by the start page's directory; the
		// sitemap's link to the other host is not followed either way.
		{"external", GyreRequest{AllowExternal: true}, inside, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, other := scopeSite(t)
			req := tc.req
			if req.URL == "" {
				req.URL = "/docs/guide/intro.html"
			}
			req.URL = site.base + req.URL
			req.MaxPages, req.MaxDepth = gyreInt(100), gyreInt(10)
			res := gyreOrFail(t, gyreService(true), req, GyreOptions{})
			var got []string
			for _, p := range pagePaths(t, res) {
				if p != "/ext" {
					got = append(got, p)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("pages %v, want %v", got, tc.want)
			}
			for _, p := range outside {
				if n := site.hitCount(p); n != 0 && !slices.Contains(tc.want, p) {
					t.Errorf("%s requested %d times, out of scope", p, n)
				}
			}
			if n := other.hitCount("/ext"); n != tc.external {
				t.Errorf("the other host's page requested %d times, want %d", n, tc.external)
			}
			if tc.external > 0 && !slices.Contains(pagePaths(t, res), "/ext") {
				t.Errorf("allowExternal: the other host's page is missing from %v", pagePaths(t, res))
			}
		})
	}
}

func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return out
}

func TestMapSharesTheFilter(t *testing.T) {
	site, other := scopeSite(t)
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base + "/docs/guide/intro.html"})
	// Map has no directory bound: the whole site, neither the other host
	// nor, without includeSubdomains, the subdomain.
	var got []string
	for _, l := range res.Links {
		got = append(got, strings.TrimPrefix(l.URL, site.base))
	}
	for _, want := range []string{"/about.html", "/docs/other.html", "/docs/guide/from-sitemap.html", "/docs/guide/deep/page.html"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	for _, l := range res.Links {
		if strings.Contains(l.URL, "sub.localhost") || strings.HasPrefix(l.URL, other.URL) {
			t.Errorf("%s listed", l.URL)
		}
	}
	if n := other.totalHits(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
	if fmt.Sprint(got[:1]) != "[/docs/guide/from-sitemap.html]" {
		t.Errorf("sitemap entries come first: %v", got)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestFrontierVetLinks(t *testing.T) {
	f := &frontier[struct{}]{filter: &linkFilter{hosts: newSiteScope("example.com", false)}, capacity: 2}
	f.init()
	page := []string{"https://example.com/a", "https://example.com/a#x", "https://example.com/a.png",
		"https://other.org/", "https://example.com/b"}
	got := f.vetLinks(page, candidate.follow)
	if len(got.known) != 0 || len(got.fresh) != 2 || got.fresh[0].url != "https://example.com/a" || got.fresh[0].raw != page[0] ||
		got.fresh[1].url != "https://example.com/b" {
		t.Fatalf("vetLinks = %+v, want /a and /b once each", got)
	}
	// Refused links are settled at once, the others once admitted.
	for _, l := range page[2:4] {
		if j, ok := f.known.get(l); !ok || j != nil {
			t.Errorf("%s refused but not known as refused", l)
		}
	}
	if _, ok := f.known.get(page[0]); ok {
		t.Errorf("%s known before it was admitted", page[0])
	}
	a := &crawlJob{url: got.fresh[0].url, key: got.fresh[0].key} // as if admitted: no robots lookup here
	f.jobs[a.key] = a
	f.known.add(got.fresh[0].raw, a)
	// A second page: /a is its job (its other spelling the same page), /b
	// is vetted again.
	again := f.vetLinks(page, candidate.follow)
	if len(again.known) != 1 || again.known[0] != a || len(again.fresh) != 1 || again.fresh[0].raw != page[4] {
		t.Errorf("second page: %+v, want the job of /a and /b", again)
	}
	// The memo is bounded at linkMemoFactor × capacity entries.
	for i := range 100 {
		f.known.add(fmt.Sprintf("https://example.com/%d", i), nil)
	}
	if n := len(f.known.seen); n != linkMemoFactor*f.capacity {
		t.Errorf("memo holds %d links, want %d", n, linkMemoFactor*f.capacity)
	}
}
