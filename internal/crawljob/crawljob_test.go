package crawljob

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/billing"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// orderedSite serves /p0 → /a → /a1 → /t → /u and /p0 → /b → /t, where a
// page can be made to answer only after another page has answered.
type orderedSite struct {
	*httptest.Server
	waitFor map[string]string

	mu     sync.Mutex
	hits   map[string]int
	served map[string]chan struct{}
	saved  func() int // the pages the crawl has saved (taken), once known
}

// servedAndSaved tells how many pages have been answered and how many the
// crawl has saved. A crawl takes one page at a time, so a page saved is
// one whose links the crawl follows before it takes the next answer.
func (s *orderedSite) servedAndSaved() (served, saved int) {
	s.mu.Lock()
	for _, c := range s.served {
		select {
		case <-c:
			served++
		default:
		}
	}
	f := s.saved
	s.mu.Unlock()
	if f != nil {
		saved = f()
	}
	return served, saved
}

var orderedLinks = map[string][]string{
	"/p0": {"/a", "/b"}, "/a": {"/a1"}, "/a1": {"/t"}, "/b": {"/t"}, "/t": {"/u"}, "/u": nil,
}

func newOrderedSite(t *testing.T, waitFor map[string]string) *orderedSite {
	s := &orderedSite{waitFor: waitFor, hits: map[string]int{}, served: map[string]chan struct{}{}}
	for p := range orderedLinks {
		s.served[p] = make(chan struct{})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		links, ok := orderedLinks[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.hits[r.URL.Path]++
		first := s.hits[r.URL.Path] == 1
		s.mu.Unlock()
		if other := s.waitFor[r.URL.Path]; other != "" {
			select {
			case <-s.served[other]:
				// The crawl takes the other page (and every page answered so
				// far) before this one answers: waited for, not slept on, so
				// a loaded machine cannot turn the order round.
				served, _ := s.servedAndSaved()
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && r.Context().Err() == nil; time.Sleep(5 * time.Millisecond) {
					if _, saved := s.servedAndSaved(); saved >= served {
						break
					}
				}
			case <-time.After(10 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><html><head><title>Page %s</title></head><body><main><h1>Page %s</h1>", r.URL.Path, r.URL.Path)
		b.WriteString("<p>This page has a few sentences so that the converter keeps it as the content of the page.</p>")
		for _, l := range links {
			fmt.Fprintf(&b, `<p>See <a href="%s">the page %s</a> for more.</p>`, l, l)
		}
		b.WriteString("</main></body></html>")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, b.String())
		w.(http.Flusher).Flush()
		if first {
			close(s.served[r.URL.Path])
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestJobDepthShortestPath: an asynchronous crawl with maxDepth 3 reaches
// /u (three links away through /b) when /t is first found through /a1,
// three links away, and /b's shorter path arrives while /t is in flight or
// after /t was saved with its links cut; each page is saved once. On both
// stores.
func TestJobDepthShortestPath(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		for name, waitFor := range map[string]map[string]string{
			"in flight": {"/b": "/a1", "/t": "/b"},
			"taken":     {"/b": "/t"},
		} {
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				st := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate) // with the job queue's tables
				log := slog.New(slog.NewTextHandler(&strings.Builder{}, nil))
				b := billing.New(st, log)
				t.Cleanup(b.Close)
				prims := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Log: log, UserAgent: "webacq"}
				svc := &Service{Store: st, Biller: b, Prims: prims, Log: log}
				w := river.NewWorkers()
				svc.AddWorkers(w)
				q, err := jobs.New(st, w, jobs.Config{Workers: 1, RescueAfter: time.Minute, PollInterval: 20 * time.Millisecond,
					Log: log, Queues: map[string]int{Queue: 1}})
				if err != nil {
					t.Fatal(err)
				}
				svc.Queue = q
				if err := q.Start(ctx); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					defer cancel()
					q.Stop(sctx)
				})
				ws, err := st.CreateWorkspace(ctx, "acme", 100, false)
				if err != nil {
					t.Fatal(err)
				}
				site := newOrderedSite(t, waitFor)
				maxPages, maxDepth := 20, 3
				req := primitive.GyreRequest{URL: site.URL + "/p0", MaxPages: &maxPages, MaxDepth: &maxDepth, IgnoreSitemap: true, Tier: "http"}
				if err := req.Normalize(prims.HTTP.CheckURL, false); err != nil {
					t.Fatal(err)
				}
				call := &billing.Call{Principal: &model.Principal{WorkspaceID: ws.ID, KeyPrefix: "test"}, Endpoint: Endpoint,
					Via: model.ViaHTTP, Method: "POST", RequestID: "req-1", Started: time.Now()}
				queued, err := svc.Start(ctx, call, req, req.MaxCost(false))
				if err != nil {
					t.Fatal(err)
				}
				site.mu.Lock()
				site.saved = func() int {
					rows, err := st.GyreJobPages(ctx, queued.JobID, -1, 0)
					if err != nil {
						return 0
					}
					return len(rows)
				}
				site.mu.Unlock()
				var st2 *Status
				for deadline := time.Now().Add(30 * time.Second); ; {
					if st2, err = svc.Read(ctx, ws.ID, queued.JobID, 100, ""); err != nil {
						t.Fatal(err)
					}
					if st2.Status != store.GyreQueued && st2.Status != store.GyreRunning {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("job still %s", st2.Status)
					}
					time.Sleep(50 * time.Millisecond)
				}
				if st2.Status != store.GyreCompleted {
					t.Fatalf("job %s: %+v", st2.Status, st2.Errors)
				}
				var got []string
				for _, p := range st2.Pages {
					got = append(got, strings.TrimPrefix(p.URL, site.URL))
				}
				slices.Sort(got)
				if want := []string{"/a", "/a1", "/b", "/p0", "/t", "/u"}; !slices.Equal(got, want) {
					t.Errorf("pages %v, want %v", got, want)
				}
				site.mu.Lock()
				for p, n := range site.hits {
					if n > 1 {
						t.Errorf("%s fetched %d times", p, n)
					}
				}
				site.mu.Unlock()
				if st2.CreditsUsed != int64(len(st2.Pages)) {
					t.Errorf("creditsUsed %d for %d pages", st2.CreditsUsed, len(st2.Pages))
				}
				// The saved /t keeps its link to /u, for a resumed run.
				rows, err := st.GyreJobPages(ctx, queued.JobID, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					var p primitive.GyrePage
					var links []string
					json.Unmarshal(r.Page, &p)
					json.Unmarshal(r.Links, &links)
					if strings.HasSuffix(p.URL, "/t") && !slices.Contains(links, site.URL+"/u") {
						t.Errorf("/t saved with links %v", links)
					}
				}
			})
		}
	})
}
