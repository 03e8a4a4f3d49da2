package fetch

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRobots(t *testing.T) {
	var robotsHits atomic.Int64
	var srvURL string
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			fmt.Fprint(w, "page")
			return
		}
		robotsHits.Add(1)
		time.Sleep(20 * time.Millisecond) // let concurrent callers pile up
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: %s/sitemap.xml\n\n"+
			"User-agent: webacq\nDisallow: /nowebacq\n", srvURL)
	})
	srvURL = srv.URL
	c := New(Config{AllowPrivate: true})
	rb := c.Robots()
	var mu sync.Mutex
	now := time.Now()
	rb.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ctx := context.Background()

	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { rb.Allowed(ctx, srv.URL+"/", "otherbot") })
	}
	wg.Wait()
	if n := robotsHits.Load(); n != 1 {
		t.Fatalf("robots.txt fetched %d times, want 1", n)
	}

	cases := []struct {
		path, ua string
		want     bool
	}{
		{"/public", "otherbot", true},
		{"/private/x", "otherbot", false},
		{"/private/x", "", true}, // the webacq group replaces the * group
		{"/nowebacq?q=1", "", false},
		{"/nowebacq", "Mozilla/5.0 (compatible; webacq/1.0)", false},
		{"/nowebacq", "webacq/2.0", false},
		{"/nowebacq", "otherbot", true},
	}
	for _, tc := range cases {
		if got := rb.Allowed(ctx, srv.URL+tc.path, tc.ua); got != tc.want {
			t.Errorf("Allowed(%s, %q) = %v, want %v", tc.path, tc.ua, got, tc.want)
		}
	}
	if got := rb.Sitemaps(ctx, srv.URL+"/any"); len(got) != 1 || got[0] != srv.URL+"/sitemap.xml" {
		t.Errorf("Sitemaps = %v", got)
	}
	if got := rb.CrawlDelay(ctx, srv.URL+"/", "otherbot"); got != 2*time.Second {
		t.Errorf("CrawlDelay = %v, want 2s", got)
	}
	if n := robotsHits.Load(); n != 1 {
		t.Fatalf("robots.txt fetched %d times, want 1 (cached)", n)
	}

	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	rb.Allowed(ctx, srv.URL+"/", "")
	if n := robotsHits.Load(); n != 2 {
		t.Fatalf("robots.txt fetched %d times after expiry, want 2", n)
	}
}

func TestRobotsFailuresAllow(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusForbidden, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
		})
		c := New(Config{AllowPrivate: true})
		if !c.Robots().Allowed(context.Background(), srv.URL+"/page", "") {
			t.Errorf("status %d: not allowed, want allowed", status)
		}
	}
	// Unreachable host: allowed; the page fetch reports the outage.
	c := New(Config{AllowPrivate: true, Timeout: time.Second})
	if !c.Robots().Allowed(context.Background(), "http://127.0.0.1:1/page", "") {
		t.Error("unreachable: not allowed, want allowed")
	}
	if c.Robots().Allowed(context.Background(), "not a url", "") {
		t.Error("invalid URL allowed")
	}
}
