package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/model"
)

// TestBrowserHostilePages: a page whose script builds a DOM far over the
// body cap is refused (ErrTooLarge) without the DOM crossing to the
// process, and a page that redirects forever ends as an upstream_error
// after Chromium's own redirect limit, not at the timeout.
func TestBrowserHostilePages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow")
	}
	path := FindChromium()
	if path == "" {
		t.Skip("no chromium binary found")
	}
	var redirects atomic.Int64
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var n int
		switch {
		case r.URL.Path == "/huge":
			// 64 MB of DOM, in an attribute (no layout to wait for).
			fmt.Fprint(w, `<html><body><p id="p">huge</p><script>
				document.getElementById("p").setAttribute("data-x", "x".repeat(64 << 20));
			</script></body></html>`)
		case strings.HasPrefix(r.URL.Path, "/loop/"):
			redirects.Add(1)
			fmt.Sscanf(r.URL.Path, "/loop/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
		default:
			fmt.Fprint(w, "<html><body><p>plain page</p></body></html>")
		}
	})
	const limit = 1 << 20
	b := NewBrowser(Config{
		ChromiumPath: path,
		BrowserTabs:  1,
		Timeout:      30 * time.Second,
		MaxBodyBytes: limit,
		allowAddrs:   []netip.AddrPort{serverAddr(t, srv)},
	})
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	// The browser starts with the first render, not counted below.
	if _, err := b.Render(ctx, BrowserRequest{URL: srv.URL + "/plain"}); err != nil {
		t.Fatal(err)
	}

	var err error
	alloc := allocated(func() { _, err = b.Render(ctx, BrowserRequest{URL: srv.URL + "/huge"}) })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("huge DOM: %v, want ErrTooLarge", err)
	}
	wantCode(t, err, model.CodeUpstreamError)
	if alloc > 32<<20 {
		t.Errorf("a 64 MB DOM cost the process %d MB of allocations: it crossed the protocol", alloc>>20)
	}

	start := time.Now()
	_, err = b.Render(ctx, BrowserRequest{URL: srv.URL + "/loop/0"})
	wantCode(t, err, model.CodeUpstreamError)
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("the redirect loop took %v: it ran into the timeout", d)
	}
	if n := redirects.Load(); n > 25 {
		t.Errorf("%d redirects followed", n)
	}
	t.Logf("huge DOM: %d MB allocated; loop: %d redirects in %v", alloc>>20, redirects.Load(), time.Since(start))
}
