package primitive

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// depthSite is a small site whose pages can be made to answer only after
// another page has been answered, so that a test decides which path the
// crawl finds a page by first:
//
//	/p0 → /a → /a1 → /t → /u
//	/p0 → /b → /t
//
// /t is three links away through /a and two through /b, so with maxDepth
// 3 /u (three links away through /b) is in reach.
type depthSite struct {
	*httptest.Server
	waitFor map[string]string // path → the path whose answer it waits for

	mu     sync.Mutex
	hits   map[string]int
	served map[string]chan struct{} // closed once the path has been answered
	taken  int                      // pages the crawl has taken, as its progress says
}

// progress is the crawl's progress callback: it counts the pages taken.
func (s *depthSite) progress(done, _ int) {
	s.mu.Lock()
	s.taken = done
	s.mu.Unlock()
}

// servedAndTaken tells how many pages have been answered and how many the
// crawl has taken.
func (s *depthSite) servedAndTaken() (served, taken int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.served {
		select {
		case <-c:
			served++
		default:
		}
	}
	return served, s.taken
}

var depthSiteLinks = map[string][]string{
	"/p0": {"/a", "/b"},
	"/a":  {"/a1"},
	"/a1": {"/t"},
	"/b":  {"/t"},
	"/t":  {"/u"},
	"/u":  nil,
}

func newDepthSite(t *testing.T, waitFor map[string]string) *depthSite {
	t.Helper()
	s := &depthSite{waitFor: waitFor, hits: make(map[string]int), served: make(map[string]chan struct{})}
	for p := range depthSiteLinks {
		s.served[p] = make(chan struct{})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *depthSite) serve(w http.ResponseWriter, r *http.Request) {
	links, ok := depthSiteLinks[r.URL.Path]
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
			// far) before this one answers: waited for, not slept on, so a
			// loaded machine cannot turn the order round.
			served, _ := s.servedAndTaken()
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && r.Context().Err() == nil; time.Sleep(time.Millisecond) {
				if _, taken := s.servedAndTaken(); taken >= served {
					break
				}
			}
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	var body strings.Builder
	for _, l := range links {
		fmt.Fprintf(&body, `<p>See <a href="%s">the page %s</a> for more.</p>`, l, l)
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprint(w, gyrePageHTML("Page "+r.URL.Path, body.String(), ""))
	w.(http.Flusher).Flush()
	if first {
		close(s.served[r.URL.Path])
	}
}

func (s *depthSite) hitCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.hits)
}

// depthCheck checks that a crawl of the depth site returned every page,
// /u included, each fetched once, with via on a shortest path where the
// page was not yet taken when the shorter path was found.
func depthCheck(t *testing.T, s *depthSite, res *GyreResult, tVia string) {
	t.Helper()
	got := pagePaths(t, res)
	if want := []string{"/a", "/a1", "/b", "/p0", "/t", "/u"}; !slices.Equal(got, want) {
		t.Errorf("pages %v, want %v (/u is three links away through /b)", got, want)
	}
	for p, n := range s.hitCounts() {
		if n > 1 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
	for _, p := range res.Pages {
		if strings.HasSuffix(p.URL, "/u") && p.Via != s.URL+"/t" {
			t.Errorf("/u via %q, want /t", p.Via)
		}
		if strings.HasSuffix(p.URL, "/t") && p.Via != s.URL+tVia {
			t.Errorf("/t via %q, want %s", p.Via, tVia)
		}
	}
}

func depthRequest(s *depthSite) GyreRequest {
	return GyreRequest{URL: s.URL + "/p0", MaxPages: gyreInt(100), MaxDepth: gyreInt(3), IgnoreSitemap: true, Tier: "http"}
}

// memJournal is a GyreJournal that keeps the pages in memory.
type memJournal struct {
	GyreJournal
	saved []GyreDone
}

func newMemJournal(done []GyreDone) *memJournal {
	j := &memJournal{}
	j.Done = done
	j.Save = func(_ context.Context, d GyreDone) (bool, error) {
		j.saved = append(j.saved, d)
		return true, nil
	}
	return j
}

// TestGyreDepthShortestPath: a page found first three links away and then
// two links away, before its fetch has ended (/t waits for /b's answer) or
// after it was taken with its links cut by maxDepth (/b waits for /t's
// answer); /b waits for /a1 in the first case, so that /t is found
// through /a1 first, has depth 2, and the page it links to is crawled; each page is
// fetched once. Synchronous and journaled (asynchronous) crawls alike.
func TestGyreDepthShortestPath(t *testing.T) {
	for _, tc := range []struct {
		name    string
		waitFor map[string]string
		tVia    string // where the page is found, as returned
	}{
		// The shorter path gives /t its via while the page is not taken.
		{"found nearer in flight", map[string]string{"/b": "/a1", "/t": "/b"}, "/b"},
		// After that the page has been returned with its via.
		{"found nearer after it was taken", map[string]string{"/b": "/t"}, "/a1"},
	} {
		t.Run(tc.name+"/sync", func(t *testing.T) {
			s := newDepthSite(t, tc.waitFor)
			res, err := gyreService(true).GyreWith(context.Background(), "", depthRequest(s), GyreOptions{}, s.progress)
			if err != nil {
				t.Fatal(err)
			}
			if res.TotalPages != len(res.Pages) {
				t.Errorf("totalPages = %d, want len(pages) = %d", res.TotalPages, len(res.Pages))
			}
			depthCheck(t, s, res, tc.tVia)
		})
		t.Run(tc.name+"/journaled", func(t *testing.T) {
			s := newDepthSite(t, tc.waitFor)
			svc := gyreService(true)
			j := newMemJournal(nil)
			res, err := svc.GyreJournaled(context.Background(), "", depthRequest(s), &j.GyreJournal, s.progress)
			if err != nil {
				t.Fatal(err)
			}
			depthCheck(t, s, res, tc.tVia)
			if len(j.saved) != len(res.Pages) {
				t.Errorf("%d pages saved, %d returned", len(j.saved), len(res.Pages))
			}
			for _, d := range j.saved {
				if strings.HasSuffix(d.Page.URL, "/t") && !slices.Contains(d.Links, s.URL+"/u") {
					t.Errorf("/t saved with links %v, without /u", d.Links)
				}
			}
		})
	}
}

// TestGyreResumeShortestPath: a crawl resumed from a journal whose pages
// were saved with the depth they had when taken (/t at 3, then /b found it
// at 2) takes the shorter path from the saved links and crawls /u, and
// fetches none of the saved pages again.
func TestGyreResumeShortestPath(t *testing.T) {
	s := newDepthSite(t, nil)
	u := func(p string) string { return s.URL + p }
	page := func(p, via string) GyrePage {
		return GyrePage{URL: u(p), Title: "Page " + p, StatusCode: 200, Via: via, Tier: "http"}
	}
	done := []GyreDone{
		{Page: page("/p0", GyreViaStart), Keys: []string{u("/p0")}, Links: []string{u("/a"), u("/b")}, Depth: 0},
		{Page: page("/a", u("/p0")), Keys: []string{u("/a")}, Links: []string{u("/a1")}, Depth: 1},
		{Page: page("/a1", u("/a")), Keys: []string{u("/a1")}, Links: []string{u("/t")}, Depth: 2},
		{Page: page("/t", u("/a1")), Keys: []string{u("/t")}, Links: []string{u("/u")}, Depth: 3},
		{Page: page("/b", u("/p0")), Keys: []string{u("/b")}, Links: []string{u("/t")}, Depth: 1},
	}
	for i := range done {
		k, err := NormalizeURL(done[i].Page.URL)
		if err != nil {
			t.Fatal(err)
		}
		done[i].Keys = []string{k}
	}
	j := newMemJournal(done)
	res, err := gyreService(true).GyreJournaled(context.Background(), "", depthRequest(s), &j.GyreJournal, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.hitCounts(); !maps.Equal(got, map[string]int{"/u": 1}) {
		t.Errorf("resumed crawl fetched %v, want /u alone", got)
	}
	depthCheck(t, s, res, "/a1")
}

// TestFrontierRelax: a shorter path reaches through pages already taken:
// x and y were taken at maxDepth 2 (y linking z, parked at 3); x found at
// depth 0 brings y to 1 and z to 2, which queues z with y as its via. A
// queued job takes the nearer via; a taken one keeps its own. Parked URLs
// are bounded by the frontier's capacity, and one left out is not
// remembered, so it can be met nearer later.
func TestFrontierRelax(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	f := &frontier[struct{}]{s: gyreService(true), filter: &linkFilter{hosts: newSiteScope("127.0.0.1", false)},
		capacity: 4, maxDepth: 2, perHost: 1}
	f.init()
	defer f.wg.Wait()
	defer cancel()
	cand := func(p string) candidate {
		c, ok := f.filter.vet(srv.URL+p, nil)
		if !ok {
			t.Fatalf("%s refused", p)
		}
		c.raw = srv.URL + p
		return c
	}
	x := f.admit(ctx, cand("/x"), "/long-x", 2)
	y := f.admit(ctx, cand("/y"), "/long-y", 2)
	q := f.admit(ctx, cand("/q"), "/long-q", 2)
	x.taken, x.page = true, srv.URL+"/x"
	y.taken, y.page = true, srv.URL+"/y"
	f.follow(ctx, x, pageLinks{known: []*crawlJob{y}})
	f.follow(ctx, y, pageLinks{fresh: []candidate{cand("/z")}})
	z := f.jobs[cand("/z").key]
	if z == nil || !z.parked || z.depth != 3 || f.queued != 3 {
		t.Fatalf("z = %+v, %d queued; want z parked at depth 3 beside 3 queued", z, f.queued)
	}
	if j, ok := f.known.get(srv.URL + "/z"); !ok || j != z {
		t.Errorf("the link to z is not remembered as z's job")
	}

	f.relax(ctx, x, 0, "/start")
	if x.depth != 0 || y.depth != 1 || z.depth != 2 || z.parked || z.via != srv.URL+"/y" {
		t.Errorf("after x at 0: x %d, y %d, z %d (parked %v, via %s); want 0, 1, 2, queued, via /y", x.depth, y.depth, z.depth, z.parked, z.via)
	}
	if x.via != "/long-x" || y.via != "/long-y" {
		t.Errorf("taken pages' via changed: %s, %s", x.via, y.via)
	}
	if f.queued != 4 || f.admitted != 4 || f.parked != 0 {
		t.Errorf("queued %d, admitted %d, parked %d; want 4, 4, 0", f.queued, f.admitted, f.parked)
	}
	f.relax(ctx, q, 1, "/short-q")
	if q.depth != 1 || q.via != "/short-q" {
		t.Errorf("queued q: depth %d via %s, want 1 via /short-q", q.depth, q.via)
	}
	f.relax(ctx, q, 2, "/longer-q")
	if q.depth != 1 || q.via != "/short-q" {
		t.Errorf("a longer path changed q: depth %d via %s", q.depth, q.via)
	}

	// Parking stops at capacity (4); the fifth is neither kept nor
	// remembered.
	for i := range 5 {
		c := cand(fmt.Sprintf("/deep%d", i))
		j := f.admit(ctx, c, y.page, 3)
		if (j == nil) != (i == 4) {
			t.Errorf("parking /deep%d: %v", i, j)
		}
		if _, ok := f.known.get(c.raw); ok != (i < 4) {
			t.Errorf("/deep%d remembered: %v", i, ok)
		}
	}
}

// TestFrontierRequestOver: the per-host limit counts requests, not pages.
// With one request at a time per host, a page whose worker says its
// request is over (requestOver) while it goes on (converting) lets the
// host's next page start; a page that does not say so holds the host
// until its report.
func TestFrontierRequestOver(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler()) // robots.txt: 404, all allowed
	t.Cleanup(srv.Close)
	for _, over := range []bool{true, false} {
		var mu sync.Mutex
		started := map[string]bool{}
		running := 0
		both := make(chan struct{})
		var overlapped bool
		f := &frontier[struct{}]{s: gyreService(true), filter: &linkFilter{hosts: newSiteScope("127.0.0.1", false)},
			capacity: 10, maxDepth: 5, workers: 4, perHost: 1,
			mayStart: func(int) bool { return true },
			take:     func(context.Context, crawlReport[struct{}]) {},
		}
		f.visit = func(ctx context.Context, j *crawlJob) struct{} {
			mu.Lock()
			started[j.url] = true
			if running++; running == 2 {
				overlapped = true
				close(both)
			}
			mu.Unlock()
			if over {
				f.requestOver(ctx, j)
			}
			// Where the pages may overlap, the first waits for the second
			// as long as a loaded machine may take to start it; where they
			// may not, a second in which none started is the finding.
			wait := time.Second
			if over {
				wait = 20 * time.Second
			}
			select {
			case <-both:
			case <-time.After(wait):
			}
			mu.Lock()
			running--
			mu.Unlock()
			return struct{}{}
		}
		f.init()
		ctx := context.Background()
		c, ok := f.filter.vet(srv.URL+"/b", nil)
		if !ok {
			t.Fatal("/b refused")
		}
		f.admit(ctx, c, srv.URL+"/a", 1)
		f.run(ctx, srv.URL+"/a")
		if len(started) != 2 || overlapped != over {
			t.Errorf("requestOver %v: %d pages started, pages overlapped %v; want 2, %v", over, len(started), overlapped, over)
		}
	}
}
