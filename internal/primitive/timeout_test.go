package primitive

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func allowAll(raw string) (*url.URL, error) { return url.Parse(raw) }

// TestTimeoutRanges: milliseconds are range-checked as integers, so a
// value whose Duration overflows is refused instead of passing as an
// instant deadline.
func TestTimeoutRanges(t *testing.T) {
	const huge = 9223372036855 // × 1 ms overflows time.Duration to a negative value
	for name, r := range map[string]FetchRequest{
		"timeout huge":     {URL: "https://example.com/", Timeout: huge},
		"timeout max int":  {URL: "https://example.com/", Timeout: math.MaxInt},
		"timeout over max": {URL: "https://example.com/", Timeout: 120001},
		"timeout negative": {URL: "https://example.com/", Timeout: -1},
		"waitFor huge":     {URL: "https://example.com/", WaitFor: huge},
		"waitFor over max": {URL: "https://example.com/", WaitFor: 30001},
	} {
		if err := r.Normalize(allowAll, false); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("fetch %s: err = %v, want bad_request", name, err)
		}
	}
	ok := FetchRequest{URL: "https://example.com/", Timeout: 120000, WaitFor: 30000}
	if err := ok.Normalize(allowAll, false); err != nil {
		t.Errorf("fetch at the maxima: %v", err)
	}
	for _, ms := range []int{huge, math.MaxInt, 600001, -1} {
		r := ExtractRequest{URL: "https://example.com/", Intent: "prices", Timeout: ms}
		if err := r.Normalize(allowAll, false); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("extract timeout %d: err = %v, want bad_request", ms, err)
		}
	}
}

// slowSite answers after delay, or gives up when the client goes away.
func slowSite(t *testing.T, delay time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "worth the wait")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRequestTimeoutGovernsHTTPTier: a request's timeout bounds the HTTP
// tier whether it is longer or shorter than the client's default.
func TestRequestTimeoutGovernsHTTPTier(t *testing.T) {
	t.Run("longer", func(t *testing.T) {
		srv := slowSite(t, 600*time.Millisecond)
		s := &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true, Timeout: 200 * time.Millisecond}), Log: slog.New(slog.DiscardHandler)}
		req := FetchRequest{URL: srv.URL, Tier: TierHTTP, Timeout: 10000}
		if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
			t.Fatal(err)
		}
		res, err := s.Fetch(context.Background(), "", req)
		if err != nil {
			t.Fatalf("a 10 s request on a client with a 200 ms default: %v", err)
		}
		if res.StatusCode != 200 || res.Markdown == nil || *res.Markdown != "worth the wait" {
			t.Fatalf("got status %d, markdown %v", res.StatusCode, res.Markdown)
		}
	})
	t.Run("shorter", func(t *testing.T) {
		srv := slowSite(t, 20*time.Second)
		s := &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true, Timeout: 30 * time.Second}), Log: slog.New(slog.DiscardHandler)}
		req := FetchRequest{URL: srv.URL, Tier: TierHTTP, Timeout: 300}
		if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err := s.Fetch(context.Background(), "", req)
		if model.ErrorCode(err) != model.CodeTimeout {
			t.Fatalf("err = %v, want timeout", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("a 300 ms request took %v", d)
		}
	})
}

// TestHugeMaxAge: a maxAge whose Duration would overflow means "any age",
// not "nothing is fresh enough".
func TestHugeMaxAge(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, store.SQLite)
	ws, err := st.CreateWorkspace(ctx, "ws", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "the site must not be asked", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	s := &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Pages: st, Log: slog.New(slog.DiscardHandler)}
	req := FetchRequest{URL: srv.URL + "/", Tier: TierHTTP, MaxAge: math.MaxInt}
	if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
		t.Fatal(err)
	}
	stored, _ := json.Marshal(FetchResult{URL: req.URL, FinalURL: req.URL, StatusCode: 200, Title: "Stored copy"})
	if err := st.SavePage(ctx, &store.Page{WorkspaceID: ws.ID, URL: req.URL, Variant: req.variant(), FinalURL: req.URL,
		Status: 200, Tier: TierHTTP, Title: "Stored copy", ContentHash: "h", Result: stored,
		FetchedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Fetch(ctx, ws.ID, req)
	if err != nil {
		t.Fatalf("Fetch: %v (site asked %d times)", err, hits.Load())
	}
	if !res.Cached || res.Title != "Stored copy" || hits.Load() != 0 {
		t.Fatalf("cached %t, title %q, site asked %d times; want the stored copy", res.Cached, res.Title, hits.Load())
	}
}
