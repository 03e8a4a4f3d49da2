package primitive

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"webacq/internal/model"
)

// gzipStream gzips what write writes, fast: the inputs are repetitive.
func gzipStream(t *testing.T, write func(w io.Writer)) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	write(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// repeatTo writes s to w n times.
func repeatTo(w io.Writer, s string, n int) {
	chunk := []byte(strings.Repeat(s, max(1, (64<<10)/len(s))))
	per := len(chunk) / len(s)
	for n > 0 {
		k := min(n, per)
		_, _ = w.Write(chunk[:k*len(s)])
		n -= k
	}
}

// allocated returns the bytes f allocates. Tests of this package do not run
// in parallel, so other goroutines add little.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestSitemapGzipBomb(t *testing.T) {
	// 64 MB of "a" in one <loc>, after one good entry: before, the reader
	// inflated 50 MB into memory and the decoder copied the text twice more
	// (150 MB allocated per file; 1 GB peak for 50 files at once).
	bomb := gzipStream(t, func(w io.Writer) {
		_, _ = io.WriteString(w, "<urlset><url><loc>https://e.com/ok</loc></url><url><loc>https://e.com/")
		repeatTo(w, "a", 64<<20)
	})
	var pages []sitemapEntry
	n := allocated(func() { pages, _ = parseSitemap(bomb, 100) })
	if len(pages) != 1 || pages[0].URL != "https://e.com/ok" {
		t.Errorf("pages = %v, want the entry before the bomb", pages)
	}
	if n > 32<<20 {
		t.Errorf("reading the bomb allocated %d MB, want under 32", n>>20)
	}
}

func TestSitemapBombOverHTTP(t *testing.T) {
	// Twelve gzipped sitemaps named by robots.txt, each 8 MB of text once
	// inflated (reading stops at sitemapMaxToken however large), and a sitemap.xml served with Content-Encoding: gzip
	// that inflates past the fetch client's body cap.
	site := newTestSite(t)
	bomb := gzipStream(t, func(w io.Writer) {
		_, _ = io.WriteString(w, "<urlset><url><loc>{base}/p</loc></url><url><loc>")
		repeatTo(w, "a", 8<<20)
	})
	encoded := gzipStream(t, func(w io.Writer) {
		_, _ = io.WriteString(w, "<urlset>")
		repeatTo(w, "<url><loc>/x</loc></url>", 1200<<10) // 28 MB
	})
	var robots strings.Builder
	robots.WriteString("User-agent: *\nAllow: /\nSitemap: {base}/encoded.xml\n")
	for i := range 12 {
		fmt.Fprintf(&robots, "Sitemap: {base}/s%d.xml.gz\n", i)
		site.handleFunc(fmt.Sprintf("/s%d.xml.gz", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/gzip")
			_, _ = w.Write(bomb)
		})
	}
	site.handle("/robots.txt", "text/plain", robots.String())
	site.handleFunc("/encoded.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(encoded)
	})
	var res *MapResult
	n := allocated(func() { res = mapOrFail(t, newMapService(true), MapRequest{URL: site.base, SitemapOnly: true}) })
	var fromSitemaps int
	for _, l := range res.Links {
		if l.Source == MapSourceSitemap {
			fromSitemaps++
		}
	}
	// {base}/p is not replaced in the bomb: it is listed as a relative
	// URL of each sitemap, once.
	if fromSitemaps != 1 {
		t.Errorf("%d links from sitemaps, want 1:\n%s", fromSitemaps, formatLinks(res.Links))
	}
	// Before, each file allocated 150 MB.
	if n > 256<<20 {
		t.Errorf("the map allocated %d MB, want under 256 MB", n>>20)
	}
}

func TestSitemapIndexLoops(t *testing.T) {
	index := func(children ...string) string {
		var b strings.Builder
		b.WriteString("<sitemapindex>")
		for _, c := range children {
			fmt.Fprintf(&b, "<sitemap><loc>{base}%s</loc></sitemap>", c)
		}
		b.WriteString("</sitemapindex>")
		return b.String()
	}
	t.Run("self and each other", func(t *testing.T) {
		site := newTestSite(t)
		site.handle("/robots.txt", "text/plain", "Sitemap: {base}/a.xml\n")
		site.handle("/a.xml", "application/xml", index("/a.xml", "/b.xml", "/A.xml#x"))
		site.handle("/b.xml", "application/xml", index("/a.xml", "/b.xml"))
		mapOrFail(t, newMapService(true), MapRequest{URL: site.base, SitemapOnly: true})
		if a, b := site.hitCount("/a.xml"), site.hitCount("/b.xml"); a != 1 || b != 1 {
			t.Errorf("a.xml fetched %d times, b.xml %d, want once each", a, b)
		}
	})
	t.Run("chain 1000 deep", func(t *testing.T) {
		site := newTestSite(t)
		site.handle("/robots.txt", "text/plain", "Sitemap: {base}/chain/0.xml\n")
		for i := range 1000 {
			site.handle(fmt.Sprintf("/chain/%d.xml", i), "application/xml", index(fmt.Sprintf("/chain/%d.xml", i+1)))
		}
		mapOrFail(t, newMapService(true), MapRequest{URL: site.base, SitemapOnly: true})
		if n := site.totalHits() - site.hitCount("/robots.txt"); n != mapMaxSitemapDepth+1 {
			t.Errorf("%d sitemaps fetched, want %d", n, mapMaxSitemapDepth+1)
		}
	})
	t.Run("a million children", func(t *testing.T) {
		body := gzipStream(t, func(w io.Writer) {
			b := []byte("<sitemapindex>")
			for i := range 1_000_000 {
				b = append(b, "<sitemap><loc>/c"...)
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, ".xml</loc></sitemap>"...)
				if len(b) > 64<<10 {
					_, _ = w.Write(b)
					b = b[:0]
				}
			}
			_, _ = w.Write(b)
		})
		_, children := parseSitemap(body, 100)
		if len(children) != mapMaxSitemaps {
			t.Errorf("%d children kept, want %d (no more can be fetched)", len(children), mapMaxSitemaps)
		}
		site := newTestSite(t)
		site.handle("/robots.txt", "text/plain", "Sitemap: {base}/idx.xml.gz\n")
		site.handleFunc("/idx.xml.gz", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/gzip")
			_, _ = w.Write(body)
		})
		mapOrFail(t, newMapService(true), MapRequest{URL: site.base, SitemapOnly: true})
		if n := site.totalHits() - site.hitCount("/robots.txt"); n != mapMaxSitemaps {
			t.Errorf("%d sitemaps fetched, want %d", n, mapMaxSitemaps)
		}
	})
}

func TestSitemapEntryLimits(t *testing.T) {
	t.Run("long loc skipped", func(t *testing.T) {
		long := "https://e.com/" + strings.Repeat("a", sitemapMaxText)
		body := "<urlset><url><loc>" + long + "</loc></url><url><loc>https://e.com/b</loc></url></urlset>"
		text := long + "\nhttps://e.com/b\n"
		for _, b := range []string{body, text} {
			pages, _ := parseSitemap([]byte(b), 100)
			if len(pages) != 1 || pages[0].URL != "https://e.com/b" {
				t.Errorf("pages = %.80v, want only https://e.com/b", pages)
			}
		}
	})
	t.Run("long title cut", func(t *testing.T) {
		body := "<rss><channel><item><title>" + strings.Repeat("é", sitemapMaxText) +
			"</title><link>https://e.com/1</link></item></channel></rss>"
		pages, _ := parseSitemap([]byte(body), 100)
		if len(pages) != 1 || len(pages[0].Title) > sitemapMaxText || !strings.HasPrefix(pages[0].Title, "éé") {
			t.Fatalf("pages = %.80v, want one with a title cut to %d bytes", pages, sitemapMaxText)
		}
		if !strings.HasSuffix(pages[0].Title, "é") {
			t.Errorf("title ends in %q, want a whole character", pages[0].Title[len(pages[0].Title)-2:])
		}
	})
	t.Run("kept bytes", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("<urlset>")
		path := strings.Repeat("p", 1600)
		for i := range 30000 {
			fmt.Fprintf(&b, "<url><loc>https://e.com/%d/%s</loc></url>", i, path)
		}
		pages, _ := parseSitemap([]byte(b.String()), 30000)
		kept := 0
		for _, p := range pages {
			kept += len(p.URL) + len(p.Title)
		}
		if kept > sitemapMaxKept || len(pages) == 0 {
			t.Errorf("kept %d pages, %d bytes, want some and at most %d bytes", len(pages), kept, sitemapMaxKept)
		}
	})
	t.Run("a million urls", func(t *testing.T) {
		body := gzipStream(t, func(w io.Writer) {
			_, _ = io.WriteString(w, "<urlset>")
			repeatTo(w, "<url><loc>https://e.com/x</loc></url>", 1_000_000)
		})
		pages, _ := parseSitemap(body, MapMaxLimit)
		if len(pages) != MapMaxLimit {
			t.Errorf("%d pages, want %d", len(pages), MapMaxLimit)
		}
	})
	t.Run("deep nesting", func(t *testing.T) {
		body := "<urlset><url><loc>https://e.com/a</loc></url>" + strings.Repeat("<x>", 200_000) +
			strings.Repeat("</x>", 200_000) + "<url><loc>https://e.com/b</loc></url></urlset>"
		var pages []sitemapEntry
		n := allocated(func() { pages, _ = parseSitemap([]byte(body), 100) })
		if len(pages) != 1 || pages[0].URL != "https://e.com/a" {
			t.Errorf("pages = %v, want the entry before the nesting", pages)
		}
		if n > 16<<20 {
			t.Errorf("allocated %d MB, want under 16", n>>20)
		}
	})
	t.Run("huge comment", func(t *testing.T) {
		body := gzipStream(t, func(w io.Writer) {
			_, _ = io.WriteString(w, "<urlset><url><loc>https://e.com/a</loc></url><!--")
			repeatTo(w, "<>", 2<<20)
			_, _ = io.WriteString(w, "--><url><loc>https://e.com/b</loc></url></urlset>")
		})
		var pages []sitemapEntry
		n := allocated(func() { pages, _ = parseSitemap(body, 100) })
		if len(pages) != 1 || pages[0].URL != "https://e.com/a" {
			t.Errorf("pages = %v, want the entry before the comment", pages)
		}
		if n > 16<<20 {
			t.Errorf("allocated %d MB, want under 16", n>>20)
		}
	})
}

func TestSitemapStopsWhenFull(t *testing.T) {
	// An index of fifty sitemaps of a hundred pages each and a limit of
	// ten: once the first fills the links, the others are not fetched.
	site := newTestSite(t)
	var index strings.Builder
	index.WriteString("<sitemapindex>")
	for i := range 50 {
		fmt.Fprintf(&index, "<sitemap><loc>{base}/s%d.xml</loc></sitemap>", i)
		var b strings.Builder
		b.WriteString("<urlset>")
		for j := range 100 {
			fmt.Fprintf(&b, "<url><loc>{base}/%d/%d</loc></url>", i, j)
		}
		site.handle(fmt.Sprintf("/s%d.xml", i), "application/xml", b.String())
	}
	site.handle("/robots.txt", "text/plain", "Sitemap: {base}/index.xml\n")
	site.handle("/index.xml", "application/xml", index.String())
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base, SitemapOnly: true, Limit: intPtr(10)})
	if res.Returned != 10 || !res.Truncated || res.Links[0].URL != site.base+"/0/0" || res.Links[8].URL != site.base+"/0/8" {
		t.Errorf("links:\n%s\nwant the first nine of s0.xml and index.xml", formatLinks(res.Links))
	}
	if n := site.totalHits() - site.hitCount("/robots.txt") - site.hitCount("/index.xml"); n > mapWorkers {
		t.Errorf("%d sitemaps fetched, want at most %d", n, mapWorkers)
	}
}

func TestSitemapManyRobotsSitemaps(t *testing.T) {
	// robots.txt names 18,000 sitemaps: all are listed, fifty fetched.
	site := newTestSite(t)
	var robots strings.Builder
	n := 0
	for ; robots.Len() < 500<<10-100; n++ {
		fmt.Fprintf(&robots, "Sitemap: %s/s%d.xml\n", site.base, n)
	}
	site.handle("/robots.txt", "text/plain", robots.String())
	res := mapOrFail(t, newMapService(true), MapRequest{URL: site.base, SitemapOnly: true, Limit: intPtr(MapMaxLimit)})
	if got := site.totalHits() - site.hitCount("/robots.txt"); got != mapMaxSitemaps {
		t.Errorf("%d sitemaps fetched, want %d", got, mapMaxSitemaps)
	}
	if res.Returned != n {
		t.Errorf("%d links, want the %d sitemaps robots.txt names", res.Returned, n)
	}
}

// trickle answers 200 and then a byte every 50 ms until the client leaves
// or for 4 s (robots.txt is fetched apart from the request, for up to 10 s).
func trickle(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		_, _ = io.WriteString(w, prefix)
		for end := time.Now().Add(4 * time.Second); time.Now().Before(end); {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
		}
	}
}

func TestSitemapTrickleEndsAtDeadline(t *testing.T) {
	site := newTestSite(t)
	site.handle("/robots.txt", "text/plain", "Sitemap: {base}/slow.xml\nSitemap: {base}/fast.xml\n")
	site.handleFunc("/slow.xml", trickle("<urlset><url><loc>"))
	site.handle("/fast.xml", "application/xml", "<urlset><url><loc>{base}/fast</loc></url></urlset>")
	site.html("/", "Home", "")

	start := time.Now()
	res, err := newMapService(true).Map(context.Background(), MapRequest{URL: site.base, Timeout: intPtr(1500)})
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("map returned after %v, want about 1.5 s", d)
	}
	if err != nil {
		t.Fatalf("Map: %v", err)
	}
	if !strings.Contains(formatLinks(res.Links), site.base+"/fast ") {
		t.Errorf("links:\n%s\nwant %s/fast from the sitemap after the slow one", formatLinks(res.Links), site.base)
	}

	site.handleFunc("/robots.txt", trickle("Sitemap: "))
	start = time.Now()
	_, err = gyreService(true).GyreWith(context.Background(), "", GyreRequest{URL: site.base, Timeout: intPtr(1500)}, GyreOptions{}, nil)
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("gyre returned after %v, want about 1.5 s", d)
	}
	// robots.txt never came, so the start page was never asked for.
	if got := model.ErrorCode(err); got != model.CodeTimeout {
		t.Errorf("gyre error %v has code %q, want %s", err, got, model.CodeTimeout)
	}
}
