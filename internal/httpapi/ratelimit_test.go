package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/fetch"
	"webacq/internal/httpapi"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// apiNode serves the REST API on its own store handle and biller, as one
// node of a deployment does.
func apiNode(t *testing.T, s *store.Store) string {
	t.Helper()
	cfg := testConfig(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := billing.New(s, log)
	prims := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Pages: s, Log: log}
	srv := httptest.NewServer(httpapi.New(cfg, s, b, billed.New(b, prims), log))
	t.Cleanup(func() { srv.Close(); b.Close() })
	return srv.URL
}

// A workspace's requests per minute hold across nodes: requests spread
// over two nodes on one database get the limit through and 429 with
// Retry-After for the rest, and every /api/v1 answer carries the
// RateLimit-* headers (issue 21, part 1).
func TestRateLimitsAcrossNodes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		minute := time.Now().UTC().Truncate(time.Minute).Add(10 * time.Second)
		var nodes []string
		var first *store.Store
		for range 2 {
			s, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			s.Now = func() time.Time { return minute } // no minute ends mid-test
			if first == nil {
				first = s
			}
			nodes = append(nodes, apiNode(t, s))
			if dialect == store.SQLite {
				break // one process owns a SQLite file
			}
		}
		w, err := first.CreateWorkspace(ctx, "acme", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		rpm := 5
		if err := first.SetRateLimits(ctx, w.ID, &rpm, nil); err != nil {
			t.Fatal(err)
		}
		key, _, err := first.CreateKey(ctx, w.ID, "k")
		if err != nil {
			t.Fatal(err)
		}
		do := func(node, method, path, body string) *http.Response {
			t.Helper()
			req, _ := http.NewRequest(method, node+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res
		}
		passed, limited := 0, 0
		for i := range 12 {
			// A refused body still counts: the limit is on requests.
			res := do(nodes[i%len(nodes)], "POST", "/api/v1/fetch", `{}`)
			switch res.StatusCode {
			case http.StatusTooManyRequests:
				limited++
				if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra < 1 || ra > 60 {
					t.Fatalf("429 Retry-After %q", res.Header.Get("Retry-After"))
				}
				if res.Header.Get("RateLimit-Remaining") != "0" || res.Header.Get("RateLimit-Limit") != "5" {
					t.Fatalf("429 RateLimit headers %v", res.Header)
				}
			case http.StatusBadRequest:
				passed++
			default:
				t.Fatalf("fetch {}: %d", res.StatusCode)
			}
		}
		if passed != 5 || limited != 7 {
			t.Fatalf("12 requests over %d nodes at 5 rpm: %d passed, %d limited", len(nodes), passed, limited)
		}
		// The monitor API is its own class; health is not counted but
		// carries the headers.
		if res := do(nodes[0], "GET", "/api/v1/monitor", ""); res.StatusCode == http.StatusTooManyRequests {
			t.Fatal("the monitor API shares the primitives' count")
		}
		for range 3 {
			res := do(nodes[len(nodes)-1], "GET", "/api/v1/health", "")
			if res.StatusCode != http.StatusOK || res.Header.Get("RateLimit-Limit") != "5" || res.Header.Get("RateLimit-Reset") == "" {
				t.Fatalf("health: %d, RateLimit-Limit %q", res.StatusCode, res.Header.Get("RateLimit-Limit"))
			}
		}
	})
}

// A workspace's crawls and extracts at once hold across nodes: with a
// limit of one, a second crawl on another node while the first runs is
// refused with rate_limited and Retry-After, takes no credits, and a crawl
// after the first ended runs (issue 21, part 1).
func TestConcurrentCallsAcrossNodes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		var nodes []string
		var first *store.Store
		for range 2 {
			s, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if first == nil {
				first = s
			}
			nodes = append(nodes, apiNode(t, s))
			if dialect == store.SQLite {
				break // one process owns a SQLite file
			}
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
		defer func() {
			select {
			case <-release:
			default:
				close(release)
			}
		}()
		w, err := first.CreateWorkspace(ctx, "acme", 100, false)
		if err != nil {
			t.Fatal(err)
		}
		one := 1
		if err := first.SetRateLimits(ctx, w.ID, nil, &one); err != nil {
			t.Fatal(err)
		}
		key, _, err := first.CreateKey(ctx, w.ID, "k")
		if err != nil {
			t.Fatal(err)
		}
		gyre := func(node, path string) *http.Response {
			t.Helper()
			body := `{"url":"` + site.URL + path + `","maxPages":1,"tier":"http"}`
			req, _ := http.NewRequest("POST", node+"/api/v1/gyre", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return nil
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res
		}
		done := make(chan *http.Response, 1)
		go func() { done <- gyre(nodes[0], "/slow") }()
		<-entered
		res := gyre(nodes[len(nodes)-1], "/fast")
		if res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("a second crawl while the first runs: %d, want 429", res.StatusCode)
		}
		if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra < 1 || ra > 60 {
			t.Fatalf("429 Retry-After %q", res.Header.Get("Retry-After"))
		}
		close(release)
		if res := <-done; res == nil || res.StatusCode != http.StatusOK {
			t.Fatalf("the first crawl: %v", res)
		}
		credits := func() int64 {
			t.Helper()
			ws, err := first.Workspace(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			return ws.Credits
		}
		c1 := credits()
		if res := gyre(nodes[len(nodes)-1], "/fast"); res.StatusCode != http.StatusOK {
			t.Fatalf("a crawl after the first ended: %d", res.StatusCode)
		}
		// Two one-page crawls cost the same: the refused one cost nothing.
		if c2 := credits(); 100-c1 != c1-c2 || c1 == 100 {
			t.Fatalf("credits 100 → %d after the first crawl and the refused one → %d after the third", c1, c2)
		}
	})
}
