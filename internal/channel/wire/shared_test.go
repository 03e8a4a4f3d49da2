package wire_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/channel/wire"
)

// feedServer serves one feed with an ETag and counts whole answers and 304s.
type feedServer struct {
	body          string
	full, notMod  atomic.Int32
	srv           *httptest.Server
	reserved      atomic.Int64
	reservedCalls atomic.Int32
}

func newFeedServer(t *testing.T, body string) *feedServer {
	f := &feedServer{body: body}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			f.notMod.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		f.full.Add(1)
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
		w.Write([]byte(f.body))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// Thirty monitors of one feed polled at once cost one download and one
// parse on a node: the others are answered from it. The feed's memory is
// reserved before it is read.
func TestFeedSharedByItsMonitors(t *testing.T) {
	body := rss(rssItem("bw-1", "Acme Corp Reports Results", "Thu, 05 Nov 2026 21:05:00 +0000", "x"),
		rssItem("bw-2", "Acme Corp Names New CFO", "Fri, 06 Nov 2026 21:05:00 +0000", "y"))
	f := newFeedServer(t, body)
	c := wire.NewClient("webacq-test")
	c.Fresh = time.Hour
	c.Reserve = func(_ context.Context, n int64) (func(), error) {
		f.reservedCalls.Add(1)
		f.reserved.Store(n)
		return func() {}, nil
	}
	var wg sync.WaitGroup
	feeds := make([]*wire.Feed, 30)
	errs := make([]error, 30)
	for i := range feeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			feeds[i], errs[i] = c.Fetch(context.Background(), f.srv.URL, "", "")
		}()
	}
	wg.Wait()
	for i := range feeds {
		if errs[i] != nil || len(feeds[i].Items) != 2 || feeds[i].NotModified || feeds[i].ETag != `"v1"` {
			t.Fatalf("monitor %d: %+v %v, want the two items", i, feeds[i], errs[i])
		}
	}
	if n := f.full.Load() + f.notMod.Load(); n != 1 {
		t.Errorf("30 monitors polled at once made %d requests, want 1", n)
	}
	if f.reservedCalls.Load() != 1 || f.reserved.Load() != wire.FeedCost(int64(len(body))) {
		t.Errorf("%d reservations, the last of %d bytes; want one of %d", f.reservedCalls.Load(), f.reserved.Load(),
			wire.FeedCost(int64(len(body))))
	}
	// A monitor that has seen this version of the feed is told so.
	if got, err := c.Fetch(context.Background(), f.srv.URL, `"v1"`, ""); err != nil || !got.NotModified {
		t.Errorf("monitor with the feed's ETag: %+v %v, want not modified", got, err)
	}
}

// Once the shared copy is stale, the node revalidates it with a
// conditional GET: a 304 keeps the parsed items for the monitors that have
// not seen them.
func TestSharedFeedIsRevalidated(t *testing.T) {
	f := newFeedServer(t, rss(rssItem("bw-1", "Acme Corp Reports Results", "Thu, 05 Nov 2026 21:05:00 +0000", "x")))
	c := wire.NewClient("webacq-test")
	c.Fresh = time.Nanosecond // stale at once: every call polls
	for i := range 3 {
		got, err := c.Fetch(context.Background(), f.srv.URL, "", "")
		if err != nil || len(got.Items) != 1 {
			t.Fatalf("poll %d: %+v %v", i, got, err)
		}
	}
	if f.full.Load() != 1 || f.notMod.Load() != 2 {
		t.Errorf("%d whole answers and %d 304s, want 1 and 2", f.full.Load(), f.notMod.Load())
	}
}
