package mcp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"webacq/internal/store"
)

// A tools/call of a primitive counts as that primitive against the
// workspace's requests per minute; past it the tool answers the
// rate_limited error result (DECISIONS, Rate limits).
func TestToolCallsAreRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	rpm := 2
	if err := e.store.SetRateLimits(ctx, e.ws.ID, &rpm, nil); err != nil {
		t.Fatal(err)
	}
	// The count is per minute: keep the three calls in one.
	if now := time.Now(); now.Second() >= 50 {
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute).Sub(now))
	}
	args := map[string]any{"url": "http://127.0.0.1:1/nothing-listens-here", "tier": "http"}
	for i := range 2 {
		if text, _ := e.callTool("svc_fetch", args); strings.HasPrefix(text, "rate_limited") {
			t.Fatalf("call %d of 2 at 2 rpm was limited: %s", i+1, text)
		}
	}
	text, isError := e.callTool("svc_fetch", args)
	if !isError || !regexp.MustCompile(`^rate_limited: .*retry after \d+ s$`).MatchString(text) {
		t.Fatalf("third call at 2 rpm: isError %v, %q", isError, text)
	}
}

// A tools/call of a crawl takes one of the workspace's concurrent slots,
// as the REST crawl does: at a limit of one, a second svc_gyre while the
// first runs answers rate_limited, and one after it ended runs.
func TestToolCallsHoldConcurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	one := 1
	if err := e.store.SetRateLimits(ctx, e.ws.ID, nil, &one); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}, 1), make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-release
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body><h1>Page</h1><p>Some words of a page.</p></body></html>")
	}))
	defer site.Close()
	crawl := func(path string) map[string]any {
		return map[string]any{"url": site.URL + path, "maxPages": 1, "tier": "http"}
	}
	type result struct {
		text    string
		isError bool
	}
	done := make(chan result, 1)
	go func() {
		text, isError := e.callTool("svc_gyre", crawl("/slow"))
		done <- result{text, isError}
	}()
	<-entered
	text, isError := e.callTool("svc_gyre", crawl("/fast"))
	close(release)
	if !isError || !regexp.MustCompile(`^rate_limited: .*retry after \d+ s`).MatchString(text) {
		t.Fatalf("a second crawl while the first runs: isError %v, %q", isError, text)
	}
	if r := <-done; r.isError {
		t.Fatalf("the first crawl: %s", r.text)
	}
	if text, isError := e.callTool("svc_gyre", crawl("/fast")); isError {
		t.Fatalf("a crawl after the first ended: %s", text)
	}
}
