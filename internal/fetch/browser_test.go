package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webacq/internal/model"
)

func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow")
	}
	path := FindChromium()
	if path == "" {
		t.Skip("no chromium binary found")
	}

	private, privateHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "private data")
	})
	privPort := serverPort(t, private)
	var hanging atomic.Int64
	public, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/js":
			fmt.Fprint(w, `<html><body><div id="out"></div><script>
				document.getElementById("out").textContent = "rendered " + "by javascript";
				setTimeout(() => { document.body.insertAdjacentHTML("beforeend", "<p>late text</p>") }, 300);
			</script></body></html>`)
		case "/banner":
			fmt.Fprint(w, `<html><body>
				<div id="banner">We use cookies <button id="accept" onclick="
					document.getElementById('content').textContent = 'the hidden ' + 'article';
					document.getElementById('banner').remove()">Accept</button></div>
				<div id="content"></div></body></html>`)
		case "/hang":
			hanging.Add(1)
			<-r.Context().Done()
		case "/subresources":
			fmt.Fprintf(w, `<html><body><p>public page</p>
				<img src="http://127.0.0.1:%[1]s/img.png">
				<img src="http://localhost:%[1]s/img2.png">
				<iframe src="http://127.0.0.1:%[1]s/frame"></iframe>
				<script>fetch("http://127.0.0.1:%[1]s/fetch").catch(() => {});
				new WebSocket("ws://127.0.0.1:%[1]s/ws");</script>
				</body></html>`, privPort)
		case "/redirect":
			http.Redirect(w, r, private.URL+"/secret", http.StatusFound)
		case "/redirect-tls":
			http.Redirect(w, r, "https://127.0.0.1:"+privPort+"/secret", http.StatusFound)
		case "/redirect-name":
			http.Redirect(w, r, "http://localhost:"+privPort+"/secret", http.StatusFound)
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
		default:
			fmt.Fprint(w, "<html><body><p>plain page</p></body></html>")
		}
	})
	b := NewBrowser(Config{
		ChromiumPath: path,
		BrowserTabs:  1,
		Timeout:      20 * time.Second,
		allowAddrs:   []netip.AddrPort{serverAddr(t, public)},
	})
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()

	t.Run("javascript", func(t *testing.T) {
		resp, err := b.Render(ctx, BrowserRequest{URL: public.URL + "/js", WaitFor: 800 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		body := string(resp.Body)
		if !strings.Contains(body, "rendered by javascript") || !strings.Contains(body, "late text") {
			t.Fatalf("body lacks the script's text: %s", body)
		}
		if resp.StatusCode != 200 || resp.Tier != TierBrowser || resp.FinalURL != public.URL+"/js" || resp.Kind != KindHTML {
			t.Fatalf("got status %d tier %q final %q kind %q", resp.StatusCode, resp.Tier, resp.FinalURL, resp.Kind)
		}
	})

	t.Run("status", func(t *testing.T) {
		resp, err := b.Render(ctx, BrowserRequest{URL: public.URL + "/gone"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusGone {
			t.Fatalf("status = %d, want 410", resp.StatusCode)
		}
	})

	t.Run("accept_selectors", func(t *testing.T) {
		resp, err := b.Render(ctx, BrowserRequest{URL: public.URL + "/banner"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(resp.Body), "the hidden article") {
			t.Fatal("content visible without clicking")
		}
		resp, err = b.Render(ctx, BrowserRequest{URL: public.URL + "/banner",
			AcceptSelectors: []string{"#missing", "#accept"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(resp.Body), "the hidden article") || strings.Contains(string(resp.Body), "We use cookies") {
			t.Fatalf("banner not accepted: %s", resp.Body)
		}
	})

	t.Run("timeout frees the tab", func(t *testing.T) {
		start := time.Now()
		_, err := b.Render(ctx, BrowserRequest{URL: public.URL + "/hang", Timeout: 2 * time.Second})
		wantCode(t, err, model.CodeTimeout)
		if d := time.Since(start); d > 6*time.Second {
			t.Fatalf("timed-out render took %v", d)
		}
		if hanging.Load() == 0 {
			t.Fatal("hanging page never requested")
		}
		// The pool has one tab: this works only if the first was freed.
		resp, err := b.Render(ctx, BrowserRequest{URL: public.URL + "/plain", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("render after timeout: %v", err)
		}
		if !strings.Contains(string(resp.Body), "plain page") {
			t.Fatalf("body = %s", resp.Body)
		}
		// Only the browser's first tab remains.
		b.mu.Lock()
		bctx := b.browserCtx
		b.mu.Unlock()
		infos, err := chromedp.Targets(bctx)
		if err != nil {
			t.Fatal(err)
		}
		pages := 0
		for _, info := range infos {
			if info.Type == "page" {
				pages++
			}
		}
		if pages != 1 {
			t.Fatalf("%d page targets open, want 1", pages)
		}
	})

	t.Run("ssrf", func(t *testing.T) {
		resp, err := b.Render(ctx, BrowserRequest{URL: public.URL + "/subresources", WaitFor: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(resp.Body), "public page") {
			t.Fatalf("body = %s", resp.Body)
		}
		for _, p := range []string{"/redirect", "/redirect-tls", "/redirect-name"} {
			_, err = b.Render(ctx, BrowserRequest{URL: public.URL + p})
			wantCode(t, err, model.CodeForbiddenURL)
		}
		for _, u := range []string{private.URL + "/direct", "http://localhost:" + privPort + "/direct",
			"http://169.254.169.254/latest/meta-data/"} {
			_, err = b.Render(ctx, BrowserRequest{URL: u})
			wantCode(t, err, model.CodeForbiddenURL)
		}
		if n := privateHits.Load(); n != 0 {
			t.Fatalf("private server saw %d requests, want 0", n)
		}
	})
}

func TestBrowserRestartAndClose(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow")
	}
	path := FindChromium()
	if path == "" {
		t.Skip("no chromium binary found")
	}
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><p>still here</p></body></html>")
	})
	before := runtime.NumGoroutine()
	b := NewBrowser(Config{ChromiumPath: path, AllowPrivate: true, Timeout: 20 * time.Second})
	ctx := context.Background()
	if _, err := b.Render(ctx, BrowserRequest{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}

	// A crashed browser is replaced on the next render.
	b.mu.Lock()
	proc := chromedp.FromContext(b.browserCtx).Browser.Process()
	b.mu.Unlock()
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = proc.Wait()
	var err error
	for range 3 { // the loss may be noticed only by the first render after it
		var resp *Response
		start := time.Now()
		resp, err = b.Render(ctx, BrowserRequest{URL: srv.URL})
		t.Logf("after crash: %v in %v", err, time.Since(start))
		if err == nil {
			if !strings.Contains(string(resp.Body), "still here") {
				t.Fatalf("body = %s", resp.Body)
			}
			break
		}
	}
	if err != nil {
		t.Fatalf("render after crash: %v", err)
	}

	b.Close()
	_, err = b.Render(ctx, BrowserRequest{URL: srv.URL})
	wantCode(t, err, model.CodeUnavailable)
	srv.CloseClientConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
