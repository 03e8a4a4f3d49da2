package monitor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/monitor/detect"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// site is a real local web site whose pages a test rewrites between checks.
type site struct {
	mu    sync.Mutex
	pages map[string]string
	sizes map[string]int64 // declared Content-Length of big documents
	hits  map[string]int
	srv   *httptest.Server
}

func newSite(t *testing.T) *site {
	s := &site{pages: map[string]string{}, sizes: map[string]int64{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) set(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = body
}

func (s *site) url(path string) string { return s.srv.URL + path }

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.pages[r.URL.Path]
	size, big := s.sizes[r.URL.Path]
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	if big {
		// A document too large to pass: its length is declared, and the
		// test fails if anyone reads more than a little of it.
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		if r.Method == http.MethodHead {
			return
		}
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 64<<10)
		for written := int64(0); written < size; written += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256([]byte(body))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if strings.HasPrefix(body, "%PDF") {
		w.Header().Set("Content-Type", "application/pdf")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	if strings.Contains(body, "cf-challenge") {
		w.WriteHeader(http.StatusForbidden)
	}
	fmt.Fprint(w, body)
}

type env struct {
	st  *store.Store
	svc *monitor.Service
	p   *model.Principal
	ws  *model.Workspace
}

func newEnv(t *testing.T, dialect string) *env {
	t.Helper()
	return newEnvWorkers(t, dialect, 4)
}

// newEnvWorkers is newEnv with a monitor queue that runs that many jobs at
// once, and no workspace shares.
func newEnvWorkers(t *testing.T, dialect string, workers int) *env {
	t.Helper()
	return newEnvWith(t, dialect, func(*monitor.Service) int { return workers })
}

// newEnvShares is newEnv with a node of that many check workers, workspace
// share (percent) and slots per host, its queue running the service's
// Runners() as cmd/webacq wires it.
func newEnvShares(t *testing.T, dialect string, workers, share, perHost int) *env {
	t.Helper()
	return newEnvWith(t, dialect, func(s *monitor.Service) int {
		s.Workers, s.WorkspaceShare, s.PerHost = workers, share, perHost
		// Slow checks outlast the test: one that timed out would free its
		// slot while its site still counts the request in flight.
		s.Timeout = 5 * time.Minute
		s.HTTP = fetch.New(fetch.Config{AllowPrivate: true, Timeout: s.Timeout})
		return s.Runners()
	})
}

// newEnvWith builds the env; set configures the service before its queue
// starts and returns how many jobs the queue runs at once.
func newEnvWith(t *testing.T, dialect string, set func(*monitor.Service) int) *env {
	t.Helper()
	ctx := context.Background()
	st := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate) // with the job queue's tables
	ws, err := st.CreateWorkspace(ctx, "acme", 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	hc := fetch.New(fetch.Config{AllowPrivate: true, Timeout: 10 * time.Second})
	svc := &monitor.Service{Store: st, HTTP: hc, Timeout: 10 * time.Second, Alerts: &alert.Service{Store: st, HTTP: hc}}
	w := river.NewWorkers()
	workers := set(svc)
	svc.AddWorkers(w)
	svc.Alerts.AddWorkers(w)
	q, err := jobs.New(st, w, jobs.Config{Workers: workers, RescueAfter: time.Minute, PollInterval: 20 * time.Millisecond,
		JobTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	svc.Queue, svc.Alerts.Queue = q, q
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	go svc.ReconcileLoop(rctx, 200*time.Millisecond)
	t.Cleanup(func() {
		stop()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		q.Stop(sctx)
	})
	return &env{st: st, svc: svc, ws: ws, p: &model.Principal{WorkspaceID: ws.ID, Monitoring: true}}
}

// runs waits until the monitor has n runs and returns them, newest first.
func (e *env) runs(t *testing.T, id string, n int) []*model.Run {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rs, err := e.st.Runs(context.Background(), id, time.Time{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) >= n {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("monitor %s: %d runs after 20 s, want %d", id, len(rs), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// check runs a check now and returns its run. It waits until River has
// ended the monitor's previous run (its job no longer running): a check-now
// that meets a job still running is left to the schedule repair, 2 s
// later (TestCheckNowOnARunningJobIsRepaired), which would make every step
// of a test wait for it.
func (e *env) check(t *testing.T, id string) *model.Run {
	t.Helper()
	before := len(e.runs(t, id, 0))
	e.jobIdle(t, id)
	if _, err := e.svc.CheckNow(context.Background(), e.p, id); err != nil {
		t.Fatal(err)
	}
	rs := e.runs(t, id, before+1)
	return rs[0]
}

// jobIdle waits until the monitor's job is not running.
func (e *env) jobIdle(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, err := e.st.MonitorByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var running int
		ctx := context.Background()
		if err := e.st.InTx(ctx, func(tx store.Tx) error {
			return tx.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'running'`, m.JobID).Scan(&running)
		}); err != nil {
			t.Fatal(err)
		}
		if running == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("monitor %s: its job %d still running after 20 s", id, m.JobID)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *env) register(t *testing.T, req monitor.RegisterRequest) string {
	t.Helper()
	m, err := e.svc.Register(context.Background(), e.p, req)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return m.ID
}

const pressTemplate = `<!doctype html><html><head><title>Acme Investors</title></head><body>
<nav class="top"><a href="/">Home</a> <a href="/about">About</a> <span>Updated %s</span></nav>
%s
<footer class="foot"><p>© 2026 Acme Corp · %s visitors</p><a href="/privacy">Privacy</a></footer>
</body></html>`

const releasesList = `<main><h1>Press releases</h1><ul class="releases">
<li><a href="/pr/q1.html">Acme reports first quarter results</a> <span>May 1, 2026</span></li>
<li><a href="/pr/q2.html">Acme reports second quarter results</a> <span>Aug 1, 2026</span></li>
<li><a href="/pr/ceo.html">Acme names a new chief financial officer</a> <span>Sep 9, 2026</span></li>
</ul></main>`

func press(nav, body, foot string) string { return fmt.Sprintf(pressTemplate, nav, body, foot) }

func TestMonitorLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1,204"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"}})

		first := e.runs(t, id, 1)[0]
		if first.Outcome != model.OutcomeAnchored || first.TopScore == nil || *first.TopScore != 100 || first.Credits != 1 {
			t.Fatalf("first run = %s score %v credits %d (%s), want anchored 100 1", first.Outcome, scoreOf(first), first.Credits, first.Error)
		}

		// Nothing changed: the server answers 304 and nothing is parsed.
		r := e.check(t, id)
		if r.Outcome != model.OutcomeUnchanged || r.StatusCode != http.StatusNotModified {
			t.Errorf("unchanged page: %s status %d, want unchanged 304", r.Outcome, r.StatusCode)
		}

		// Navigation, footer counter and a date change: not material.
		site.set("/ir", press("Nov 23, 2026", releasesList, "1,377"))
		r = e.check(t, id)
		if r.Outcome != model.OutcomeUnchanged {
			t.Errorf("nav/footer/date change: %s %+v, want unchanged", r.Outcome, r.ChangeSignal)
		}

		// A new item in the watched list without any keyword: a change,
		// suppressed, with its diff kept.
		base := strings.Replace(releasesList, `<ul class="releases">`, `<ul class="releases">
<li><a href="/pr/office.html">Acme opens an office in Lyon</a> <span>Nov 2, 2026</span></li>`, 1)
		site.set("/ir", press("Nov 23, 2026", base, "1,377"))
		r = e.check(t, id)
		if r.Outcome != model.OutcomeUnchanged || !r.Suppressed {
			t.Errorf("change without a keyword: %s suppressed=%v, want unchanged and suppressed", r.Outcome, r.Suppressed)
		}
		if full, err := e.st.Run(context.Background(), id, r.ID); err != nil || full.Diff == nil || !strings.Contains(*full.Diff, "Lyon") {
			t.Errorf("suppressed run keeps no diff: %v %v", full, err)
		}

		// A new press release with the keyword and its PDF: changed.
		added := strings.Replace(base, `<ul class="releases">`, `<ul class="releases">
<li><a href="/pr/q3.html">Acme reports third quarter results</a> <a href="/pr/q3.pdf">PDF</a> <span>Nov 20, 2026</span></li>`, 1)
		site.set("/ir", press("Nov 23, 2026", added, "1,377"))
		r = e.check(t, id)
		if r.Outcome != model.OutcomeChanged {
			t.Fatalf("new release: %s (%s), want changed", r.Outcome, r.Error)
		}
		if !signalMentions(r.ChangeSignal, "third quarter") {
			t.Errorf("change_signal %+v does not show the new release", r.ChangeSignal)
		}
		if len(r.PDFLinks) != 1 || r.PDFLinks[0] != site.url("/pr/q3.pdf") {
			t.Errorf("pdf_links = %v, want [%s]", r.PDFLinks, site.url("/pr/q3.pdf"))
		}
		full, err := e.st.Run(context.Background(), id, r.ID)
		if err != nil || full.Snapshot == nil || !strings.Contains(*full.Snapshot, "third quarter") ||
			full.Diff == nil || !strings.Contains(*full.Diff, "+") {
			t.Errorf("run record lacks snapshot or diff: %+v", full)
		}

		// A cosmetic restructure: a wrapper, renamed classes, the region
		// moved below an aside.
		restructured := `<div class="page-wrap"><aside class="promo"><p>Join our investor day</p></aside><section class="content-v2">` +
			strings.NewReplacer(`class="releases"`, `class="pr-list-2026"`, "<main>", "<div class=\"main-col\">", "</main>", "</div>").Replace(added) +
			`</section></div>`
		site.set("/ir", press("Nov 23, 2026", restructured, "1,377"))
		r = e.check(t, id)
		if r.Outcome != model.OutcomeUnchanged || scoreOf(r) < detect.RelocateThreshold {
			t.Errorf("restructure: %s score %v (%s), want unchanged, relocated", r.Outcome, scoreOf(r), r.Error)
		}

		// The region removed and the keyword with it: an error, loudly,
		// that compared nothing.
		site.set("/ir", press("Nov 23, 2026", `<main><h1>We moved</h1><p>Our site is being rebuilt. Come back soon.</p></main>`, "1,377"))
		r = e.check(t, id)
		if r.Outcome != model.OutcomeError || r.Error != monitor.ErrKeywordsMatchedNothing || r.TopScore != nil {
			t.Errorf("region removed: %s %q score %v, want error %q without score", r.Outcome, r.Error, scoreOf(r),
				monitor.ErrKeywordsMatchedNothing)
		}

		m, err := e.st.Monitor(context.Background(), e.ws.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.LastOutcome != model.OutcomeError || m.LastChanged == nil || m.Status != model.MonitorActive || m.TopScore != nil {
			t.Errorf("monitor after runs: %+v", m)
		}
		balance, _ := e.st.Balance(context.Background(), e.ws.ID)
		rs := e.runs(t, id, 0)
		var spent int64
		for _, r := range rs {
			spent += r.Credits
		}
		if balance != 1000-spent || spent != int64(len(rs)) {
			t.Errorf("balance %d after %d runs billed %d, want %d", balance, len(rs), spent, 1000-spent)
		}
	})
}

func signalMentions(ss []model.Signal, text string) bool {
	for _, s := range ss {
		if s.To != nil && strings.Contains(strings.ToLower(*s.To), text) {
			return true
		}
	}
	return false
}

func TestKeywordsNowhereIsAnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	site := newSite(t)
	site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"dividend"}})
	r := e.runs(t, id, 1)[0]
	if r.Outcome != model.OutcomeError || r.Error != monitor.ErrKeywordsMatchedNothing || r.TopScore != nil {
		t.Fatalf("run = %s %q score %v, want error %q without score", r.Outcome, r.Error, scoreOf(r), monitor.ErrKeywordsMatchedNothing)
	}
	if r.Credits != 1 {
		t.Errorf("credits = %d: the fetch was made and is billed", r.Credits)
	}
}

func TestLargeDocumentIsNotDownloaded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	site := newSite(t)
	site.mu.Lock()
	site.sizes["/annual.pdf"] = 30 << 20
	site.mu.Unlock()
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/annual.pdf"), Channels: []string{model.ChannelDirectPDF}})
	r := e.runs(t, id, 1)[0]
	if r.Outcome != model.OutcomePayloadTooLarge || r.SizeBytes != 30<<20 || len(r.PDFLinks) != 1 {
		t.Fatalf("run = %s size %d links %v (%s), want payload_too_large 30 MB", r.Outcome, r.SizeBytes, r.PDFLinks, r.Error)
	}
	if r.Channel != model.ChannelDirectPDF {
		t.Errorf("channel = %s", r.Channel)
	}
}

func TestChallengePageIsBlocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite) // no browser tier in this test
	site := newSite(t)
	site.set("/ir", `<html><head><title>Just a moment...</title></head><body><div id="cf-challenge">Checking your browser</div></body></html>`)
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir")})
	r := e.runs(t, id, 1)[0]
	if r.Outcome != model.OutcomeBlocked || r.StatusCode != http.StatusForbidden || r.Credits != 0 {
		t.Fatalf("run = %s status %d, want blocked 403", r.Outcome, r.StatusCode)
	}
}

func TestRegistrationRules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		ctx := context.Background()
		site := newSite(t)
		site.set("/a", press("x", releasesList, "1"))
		bad := []struct {
			req   monitor.RegisterRequest
			field string
		}{
			{monitor.RegisterRequest{}, "url"},
			{monitor.RegisterRequest{URL: "ftp://example.com/"}, "url"},
			{monitor.RegisterRequest{URL: site.url("/a"), Channels: []string{"rss"}}, "channels"},
			{monitor.RegisterRequest{URL: site.url("/a"), Channels: []string{}}, "channels"},
			{monitor.RegisterRequest{URL: site.url("/a"), CheckIntervalHours: ptr(0)}, "check_interval_hours"},
			{monitor.RegisterRequest{URL: site.url("/a"), CheckIntervalHours: ptr(169)}, "check_interval_hours"},
			{monitor.RegisterRequest{URL: site.url("/a"), DiscoveryKeywords: []string{" "}}, "discovery_keywords"},
			{monitor.RegisterRequest{URL: site.url("/a"), AcceptSelectors: []string{"button[["}}, "accept_selectors"},
			{monitor.RegisterRequest{URL: site.url("/a"), Label: ptr(strings.Repeat("x", 201))}, "label"},
			{monitor.RegisterRequest{URL: site.url("/a"), Company: &model.Company{CIK: "12a"}}, "company.cik"},
			{monitor.RegisterRequest{URL: site.url("/a"), Alerts: []byte(`{"email_to":"x"}`)}, "alerts"},
		}
		for _, c := range bad {
			_, err := e.svc.Register(ctx, e.p, c.req)
			if model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(model.ErrorMessage(err), c.field) {
				t.Errorf("register %+v: %v, want bad_request naming %s", c.req, err, c.field)
			}
		}
		// The SSRF guard: a private address is refused.
		if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://10.1.2.3/ir"}); model.ErrorCode(err) != model.CodeForbiddenURL {
			t.Errorf("private address: %v, want forbidden_url", err)
		}
		// Not entitled.
		if _, err := e.svc.Register(ctx, &model.Principal{WorkspaceID: e.ws.ID}, monitor.RegisterRequest{URL: site.url("/a")}); model.ErrorCode(err) != model.CodeForbidden {
			t.Errorf("workspace without monitoring: %v, want forbidden", err)
		}

		// 50 concurrent registrations of one URL: one monitor, 49 conflicts.
		var wg sync.WaitGroup
		codes := make(chan string, 50)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: site.url("/a"), CheckIntervalHours: ptr(168)})
				if err == nil {
					codes <- ""
					return
				}
				codes <- model.ErrorCode(err)
			}()
		}
		wg.Wait()
		close(codes)
		count := map[string]int{}
		for c := range codes {
			count[c]++
		}
		if count[""] != 1 || count[model.CodeConflict] != 49 {
			t.Errorf("50 concurrent registrations: %v, want 1 success and 49 conflict", count)
		}
		ms, err := e.st.Monitors(ctx, e.ws.ID, time.Time{}, 100)
		if err != nil || len(ms) != 1 {
			t.Fatalf("monitors = %d (%v), want 1", len(ms), err)
		}

		// Another workspace sees nothing.
		other, _ := e.st.CreateWorkspace(ctx, "other", 10, true)
		op := &model.Principal{WorkspaceID: other.ID, Monitoring: true}
		if _, err := e.svc.Get(ctx, op, ms[0].ID); model.ErrorCode(err) != model.CodeNotFound {
			t.Errorf("other workspace get: %v, want not_found", err)
		}
		if err := e.svc.Delete(ctx, op, ms[0].ID); model.ErrorCode(err) != model.CodeNotFound {
			t.Errorf("other workspace delete: %v, want not_found", err)
		}
	})
}

func TestPauseResumeDelete(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		ctx := context.Background()
		site := newSite(t)
		site.set("/a", press("x", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/a")})
		e.runs(t, id, 1)
		m, err := e.svc.Pause(ctx, e.p, id)
		if err != nil || m.Status != model.MonitorPaused || m.JobID != 0 {
			t.Fatalf("pause: %+v %v", m, err)
		}
		if n := queued(t, e.st, id, 0); n != 0 {
			t.Errorf("paused monitor has %d queued checks, want 0", n)
		}
		m, err = e.svc.Resume(ctx, e.p, id)
		if err != nil || m.Status != model.MonitorActive {
			t.Fatalf("resume: %+v %v", m, err)
		}
		e.runs(t, id, 2) // resume checks now
		if n := queued(t, e.st, id, 1); n != 1 {
			t.Errorf("active monitor has %d queued checks, want exactly 1", n)
		}
		p, err := e.svc.Patch(ctx, e.p, id, monitor.PatchRequest{Label: ptr("Acme IR"), CheckIntervalHours: ptr(6),
			DiscoveryKeywords: []string{"results"}})
		if err != nil || p.Label != "Acme IR" || p.CheckIntervalHours != 6 || !p.Reanchor {
			t.Fatalf("patch: %+v %v", p, err)
		}
		if _, err := e.svc.Patch(ctx, e.p, id, monitor.PatchRequest{URL: []byte(`"http://x/"`)}); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("patch url: %v, want bad_request", err)
		}
		if r := e.check(t, id); r.Outcome != model.OutcomeAnchored {
			t.Errorf("after new keywords: %s, want anchored afresh", r.Outcome)
		}
		if err := e.svc.Delete(ctx, e.p, id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Get(ctx, e.p, id); model.ErrorCode(err) != model.CodeNotFound {
			t.Errorf("deleted monitor: %v", err)
		}
		if n := queued(t, e.st, id, 0); n != 0 {
			t.Errorf("deleted monitor has %d queued checks", n)
		}
	})
}

// queued counts a monitor's live jobs in River's table once they settle
// (a check that has just run stays "running" until River's completer
// snoozes or completes it): want is awaited for up to five seconds.
func queued(t *testing.T, st *store.Store, id string, want int) int {
	t.Helper()
	var n int
	for deadline := time.Now().Add(5 * time.Second); ; {
		err := st.InTx(context.Background(), func(tx store.Tx) error {
			return tx.QueryRow(context.Background(), `SELECT COUNT(*) FROM river_job WHERE kind = 'monitor_check'
			AND state IN ('available', 'scheduled', 'retryable', 'running', 'pending')
			AND CAST(args AS TEXT) LIKE '%' || $1 || '%'`, id).Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }

func TestErrorsTurnTheMonitorToErrorAndBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	ctx := context.Background()
	site := newSite(t)
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/gone")}) // 404 until set
	e.runs(t, id, 1)
	for i := 2; i <= 5; i++ {
		if r := e.check(t, id); r.Outcome != model.OutcomeError || r.Credits != 1 {
			t.Fatalf("run %d: %s credits %d, want error billed 1", i, r.Outcome, r.Credits)
		}
	}
	m, _ := e.st.Monitor(ctx, e.ws.ID, id)
	if m.Status != model.MonitorError || m.ConsecutiveErrors != 5 {
		t.Fatalf("after 5 errors: status %s, %d errors", m.Status, m.ConsecutiveErrors)
	}
	// Runs continue at four times the interval.
	if gap := m.NextCheckAt.Sub(*m.LastChecked); gap < 4*24*time.Hour-time.Minute {
		t.Errorf("next check %v after the last, want about 4 × 24 h", gap)
	}
	site.set("/gone", press("x", releasesList, "1"))
	if r := e.check(t, id); r.Outcome != model.OutcomeAnchored {
		t.Fatalf("recovered page: %s (%s)", r.Outcome, r.Error)
	}
	m, _ = e.st.Monitor(ctx, e.ws.ID, id)
	if m.Status != model.MonitorActive || m.ConsecutiveErrors != 0 {
		t.Errorf("after a good run: %s, %d errors", m.Status, m.ConsecutiveErrors)
	}
}

func TestRunWithoutCreditsIsRecordedUnbilled(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		ctx := context.Background()
		site := newSite(t)
		site.set("/ir", press("x", releasesList, "1"))
		poor, _ := e.st.CreateWorkspace(ctx, "poor", 0, true)
		p := &model.Principal{WorkspaceID: poor.ID, Monitoring: true}
		m, err := e.svc.Register(ctx, p, monitor.RegisterRequest{URL: site.url("/ir")})
		if err != nil {
			t.Fatal(err)
		}
		r := e.runs(t, m.ID, 1)[0]
		if r.Outcome != model.OutcomeError || r.Error != model.CodeCreditsExhausted || r.Credits != 0 {
			t.Fatalf("run = %s %q credits %d, want error credits_exhausted 0", r.Outcome, r.Error, r.Credits)
		}
		site.mu.Lock()
		hits := site.hits["/ir"]
		site.mu.Unlock()
		if hits != 0 {
			t.Errorf("the site was fetched %d times for a run nobody could pay", hits)
		}
		if got, _ := e.st.Monitor(ctx, poor.ID, m.ID); got.AnchorSet() {
			t.Error("an unpaid run set the anchor")
		}
	})
}

// TestBotWallPassedByTheBrowser: the site answers a plain HTTP client with
// a 403 challenge and a browser, which runs the challenge's script and
// clicks the consent button of accept_selectors, with the page.
func TestBotWallPassedByTheBrowser(t *testing.T) {
	t.Parallel()
	path := fetch.FindChromium()
	if path == "" {
		t.Skip("no chromium on PATH (scripts/setup.sh installs it)")
	}
	e := newEnv(t, store.SQLite)
	e.svc.Browser = fetch.NewBrowser(fetch.Config{AllowPrivate: true, ChromiumPath: path, BrowserTabs: 1})
	t.Cleanup(func() { e.svc.Browser.Close() })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if c, err := r.Cookie("passed"); err != nil || c.Value != "1" {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<html><head><title>Just a moment...</title></head><body><div id="cf-chl-widget">Checking your browser before accessing the site.</div>
<script>document.cookie = "passed=1; path=/"; location.reload();</script></body></html>`)
			return
		}
		fmt.Fprint(w, `<html><body><div id="consent"><button id="agree" onclick="document.getElementById('consent').remove();document.getElementById('news').hidden=false">I agree</button></div>
<main id="news" hidden><h1>News</h1><ul><li><a href="/q1">Acme reports first quarter results</a></li><li><a href="/q2">Acme reports second quarter results</a></li></ul></main></body></html>`)
	}))
	defer srv.Close()
	id := e.register(t, monitor.RegisterRequest{URL: srv.URL + "/ir", DiscoveryKeywords: []string{"results"},
		AcceptSelectors: []string{"#agree"}})
	r := e.runs(t, id, 1)[0]
	if r.Outcome != model.OutcomeAnchored || r.Tier != model.TierBrowser || r.Credits != 3 {
		t.Fatalf("run = %s tier %s credits %d (%s), want anchored on the browser tier for 3", r.Outcome, r.Tier, r.Credits, r.Error)
	}
	full, _ := e.st.Run(context.Background(), id, r.ID)
	if full.Snapshot == nil || !strings.Contains(*full.Snapshot, "second quarter results") {
		t.Errorf("snapshot = %v", full.Snapshot)
	}
}

// TestPerHostLimit: many monitors of one site never hit it with more than
// the per-host limit of requests at once.
func TestPerHostLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	e.svc.PerHost = 2
	var mu sync.Mutex
	inFlight, peak := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		fmt.Fprint(w, press("x", releasesList, "1"))
	}))
	defer srv.Close()
	var ids []string
	for i := range 12 {
		ids = append(ids, e.register(t, monitor.RegisterRequest{URL: fmt.Sprintf("%s/ir/%d", srv.URL, i)}))
	}
	for _, id := range ids {
		if r := e.runs(t, id, 1)[0]; r.Outcome != model.OutcomeAnchored {
			t.Errorf("%s: %s (%s)", id, r.Outcome, r.Error)
		}
	}
	if peak > 2 {
		t.Errorf("the site saw %d requests at once, limit 2", peak)
	}
}

// scoreOf is a run's top_score, -1 when it is null.
func scoreOf(r *model.Run) float64 {
	if r.TopScore == nil {
		return -1
	}
	return *r.TopScore
}

// TestDeepPageIsMonitored: a page nested deeper than the HTML parser
// accepts (here a comment thread whose template never closes its
// <div>s, below the watched list) is checked like any other: anchored,
// then a new release in the list is a change.
func TestDeepPageIsMonitored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	site := newSite(t)
	thread := strings.Repeat(`<div class="comment">A reader's comment on the results. `, 700)
	site.set("/ir", press("Nov 1, 2026", releasesList+thread, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"}})
	if r := e.runs(t, id, 1)[0]; r.Outcome != model.OutcomeAnchored {
		t.Fatalf("first run = %s (%s), want anchored", r.Outcome, r.Error)
	}
	added := strings.Replace(releasesList, `<ul class="releases">`, `<ul class="releases">
<li><a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 20, 2026</span></li>`, 1)
	site.set("/ir", press("Nov 1, 2026", added+thread, "1"))
	r := e.check(t, id)
	if r.Outcome != model.OutcomeChanged || !signalMentions(r.ChangeSignal, "third quarter") {
		t.Fatalf("new release: %s %+v (%s), want changed, naming it", r.Outcome, r.ChangeSignal, r.Error)
	}
}
