package monitor

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"webacq/internal/acquire"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// denseSite serves, at every path, a page of about 1 MB of small elements:
// a parse the budget estimates at about 60 MB.
func denseSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Acme news</title></head><body><main><h1>Acme news</h1>")
	b.WriteString("<p>Acme Corp publishes its quarterly results and its press releases on this page.</p><div>")
	for b.Len() < 1<<20 {
		b.WriteString("<span>k</span>")
	}
	b.WriteString("</div></main></body></html>")
	page := b.String()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// budgetEnv is a monitor service whose jobs nobody works (an insert-only
// queue): the test runs each check itself, as the attempt it names.
func budgetEnv(t *testing.T, dialect string, memory int64) (*Service, *model.Principal) {
	t.Helper()
	ctx := context.Background()
	st := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate) // with the job queue's tables
	ws, err := st.CreateWorkspace(ctx, "acme", 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	svc := &Service{Store: st, HTTP: fetch.New(fetch.Config{AllowPrivate: true, Timeout: 10 * time.Second}),
		Timeout: 10 * time.Second, Budget: acquire.NewBudget(acquire.BudgetOptions{Memory: memory})}
	w := river.NewWorkers()
	svc.AddWorkers(w)
	q, err := jobs.New(st, w, jobs.Config{Workers: 0})
	if err != nil {
		t.Fatal(err)
	}
	svc.Queue = q
	return svc, &model.Principal{WorkspaceID: ws.ID, Monitoring: true}
}

// checkAttempt registers a monitor of u and runs its first check as River's
// attempt n of its job, returning the run it recorded.
func checkAttempt(t *testing.T, svc *Service, p *model.Principal, u string, attempt int) *model.Run {
	t.Helper()
	id := registerUnworked(t, svc, p, u)
	if err := runAttempt(svc, id, attempt); err != nil {
		t.Fatal(err)
	}
	return onlyRun(t, svc, id)
}

func registerUnworked(t *testing.T, svc *Service, p *model.Principal, u string) string {
	t.Helper()
	m, err := svc.Register(context.Background(), p, RegisterRequest{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// runAttempt runs the monitor's due check as attempt n of its job.
func runAttempt(svc *Service, id string, attempt int) error {
	ctx := context.Background()
	m, err := svc.Store.MonitorByID(ctx, id)
	if err != nil {
		return err
	}
	job := &river.Job[CheckArgs]{JobRow: &rivertype.JobRow{ID: m.JobID, Attempt: attempt}, Args: CheckArgs{MonitorID: m.ID}}
	var snooze *rivertype.JobSnoozeError
	if err := svc.check(ctx, job); err != nil && !errors.As(err, &snooze) {
		return err
	}
	return nil
}

func onlyRun(t *testing.T, svc *Service, id string) *model.Run {
	t.Helper()
	runs, err := svc.Store.Runs(context.Background(), id, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	return runs[0]
}

// A check whose job died twice at the same due time (the node was killed
// mid-check, twice) is recorded as an error without fetching the page again,
// instead of looping on what may be what kills the node.
func TestCheckAbortedTwiceIsAnError(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		srv, hits := denseSite(t)
		svc, p := budgetEnv(t, dialect, 1<<30)
		run := checkAttempt(t, svc, p, srv.URL+"/ir", 3)
		if run.Outcome != model.OutcomeError || !strings.HasPrefix(run.Error, "check aborted twice") {
			t.Errorf("third attempt: outcome %s, error %q; want error \"check aborted twice…\"", run.Outcome, run.Error)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the site was fetched %d times, want 0", n)
		}
		if run.Credits != 0 {
			t.Errorf("billed %d credits for a check that fetched nothing", run.Credits)
		}
	})
}

// A check retried after one abort runs with a quarter of the budget: a page
// that fits the budget but not that allowance ends as an error saying so;
// the same page checked normally anchors.
func TestRescuedCheckHasASmallerAllowance(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		srv, _ := denseSite(t)
		svc, p := budgetEnv(t, dialect, 256<<20) // about 100 MB for parses; the page needs about 60
		if run := checkAttempt(t, svc, p, srv.URL+"/first", 1); run.Outcome != model.OutcomeAnchored {
			t.Fatalf("first attempt: outcome %s (%s), want anchored", run.Outcome, run.Error)
		}
		run := checkAttempt(t, svc, p, srv.URL+"/rescued", 2)
		if run.Outcome != model.OutcomeError || !strings.Contains(run.Error, "smaller memory allowance") {
			t.Errorf("second attempt: outcome %s, error %q; want error naming the smaller allowance", run.Outcome, run.Error)
		}
		if running, waiting, inUse := svc.Budget.Stats(); running != 0 || waiting != 0 || inUse != 0 {
			t.Errorf("budget after the checks: %d running, %d waiting, %d bytes in use; want none", running, waiting, inUse)
		}
	})
}

// A page whose parse needs more than the node's whole budget is not parsed:
// the run is an error that says so, and nothing of the budget stays taken.
func TestCheckOverTheMemoryBudgetIsAnError(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		srv, _ := denseSite(t)
		svc, p := budgetEnv(t, dialect, 64<<20) // about 25 MB for parses
		run := checkAttempt(t, svc, p, srv.URL+"/ir", 1)
		if run.Outcome != model.OutcomeError || !strings.Contains(run.Error, "memory budget") {
			t.Errorf("outcome %s, error %q; want error naming the memory budget", run.Outcome, run.Error)
		}
		if _, _, inUse := svc.Budget.Stats(); inUse != 0 {
			t.Errorf("%d bytes of the budget still taken", inUse)
		}
	})
}

// A check whose parse does not fit the budget now waits for it (the body
// read, about 2 MB, fits and goes first), and goes on once it frees.
func TestCheckWaitsForTheBudget(t *testing.T) {
	srv, _ := denseSite(t)
	svc, p := budgetEnv(t, store.SQLite, 256<<20)
	hold, err := svc.Budget.Acquire(context.Background(), svc.Budget.Capacity()-10<<20, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	id := registerUnworked(t, svc, p, srv.URL+"/ir")
	done := make(chan error, 1)
	go func() { done <- runAttempt(svc, id, 1) }()
	waitUntil(t, func() bool { _, w, _ := svc.Budget.Stats(); return w == 1 })
	hold()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if run := onlyRun(t, svc, id); run.Outcome != model.OutcomeAnchored {
		t.Fatalf("after the budget freed: outcome %s (%s), want anchored", run.Outcome, run.Error)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
	}
}

// TestPreviewParseTakesTheBudget: the extraction preview parses the page
// through the same memory budget as a check: a page over the share is a
// final failure, never parsed, and leaves nothing held.
func TestPreviewParseTakesTheBudget(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		srv, _ := denseSite(t)
		svc, _ := budgetEnv(t, dialect, 64<<20) // about 25 MB for parses; the page needs about 60
		m := &model.Monitor{URL: srv.URL + "/ir", DiscoveryKeywords: []string{"results"}}
		_, err := svc.scope(context.Background(), m)
		if err == nil || !strings.Contains(err.Error(), "memory budget") {
			t.Fatalf("preview scope of a page over the share: %v, want an error naming the memory budget", err)
		}
		if retryable(err) {
			t.Errorf("an over-budget preview is retried: %v", err)
		}
		if _, _, inUse := svc.Budget.Stats(); inUse != 0 {
			t.Errorf("budget after the preview: %d bytes in use, want 0", inUse)
		}
		big, _ := budgetEnv(t, dialect, 1<<30)
		if sc, err := big.scope(context.Background(), m); err != nil || !strings.Contains(sc.markdown, "results") {
			t.Fatalf("preview scope under a budget that fits: %v", err)
		}
	})
}
