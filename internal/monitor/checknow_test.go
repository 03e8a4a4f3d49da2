package monitor_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/porttest"
	"webacq/internal/store/storetest"
)

// TestCheckNowLimitedPerMonitor: a second check-now of one monitor within
// the interval is rate_limited with the wait, and schedules nothing;
// another monitor is not held back by it.
func TestCheckNowLimitedPerMonitor(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		e.svc.CheckNowInterval = time.Minute
		site := newSite(t)
		site.set("/a", press("x", releasesList, "1"))
		site.set("/b", press("x", releasesList, "1"))
		a := e.register(t, monitor.RegisterRequest{URL: site.url("/a")})
		b := e.register(t, monitor.RegisterRequest{URL: site.url("/b")})
		e.runs(t, a, 1)
		e.runs(t, b, 1)
		e.check(t, a)
		before, err := e.svc.Get(ctx, e.p, a)
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			_, err := e.svc.CheckNow(ctx, e.p, a)
			var me *model.Error
			if model.ErrorCode(err) != model.CodeRateLimited || !asError(err, &me) || me.RetryAfter <= 0 || me.RetryAfter > time.Minute {
				t.Fatalf("second check-now: %v, want rate_limited with a wait of at most a minute", err)
			}
		}
		after, err := e.svc.Get(ctx, e.p, a)
		if err != nil {
			t.Fatal(err)
		}
		if !after.NextCheckAt.Equal(before.NextCheckAt) {
			t.Errorf("a refused check-now moved the next check from %s to %s", before.NextCheckAt, after.NextCheckAt)
		}
		e.check(t, b) // its own limit
	})
}

// TestCheckNowWithoutCredits: a workspace that cannot pay a check gets
// credits_exhausted from check-now, and no run, usage or activity row is
// written for it.
func TestCheckNowWithoutCredits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/a", press("x", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/a")})
		e.runs(t, id, 1)
		if _, err := e.st.SetCredits(ctx, e.ws.ID, 0); err != nil {
			t.Fatal(err)
		}
		before, err := e.svc.Get(ctx, e.p, id)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if _, err := e.svc.CheckNow(ctx, e.p, id); model.ErrorCode(err) != model.CodeCreditsExhausted {
				t.Fatalf("check-now with 0 credits: %v, want credits_exhausted", err)
			}
		}
		after, err := e.svc.Get(ctx, e.p, id)
		if err != nil {
			t.Fatal(err)
		}
		if !after.NextCheckAt.Equal(before.NextCheckAt) || after.JobID != before.JobID {
			t.Errorf("a refused check-now scheduled a check: next %s → %s", before.NextCheckAt, after.NextCheckAt)
		}
		if rs := e.runs(t, id, 1); len(rs) != 1 {
			t.Errorf("%d runs, want the first one only", len(rs))
		}
	})
}

// TestCheckNowIsBilledAsAScheduledRun: a check the owner asked for is
// billed as a scheduled run (DECISIONS, Monitors): a fetch that fails draws
// nothing either way, and a page fetched draws its tier's price.
func TestCheckNowIsBilledAsAScheduledRun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		url := "http://" + porttest.Refusing(t) + "/ir"
		id := e.register(t, monitor.RegisterRequest{URL: url})
		first := e.runs(t, id, 1)[0]
		if first.Outcome != model.OutcomeError || first.Credits != 0 {
			t.Fatalf("scheduled run of an unreachable site: %s, %d credits (%s); want error, 0", first.Outcome, first.Credits, first.Error)
		}
		balance := e.balance(t, e.ws.ID)
		r := e.check(t, id)
		if r.Outcome != model.OutcomeError || r.Credits != first.Credits {
			t.Errorf("check-now of an unreachable site: %s, %d credits (%s); want error, %d like the scheduled run",
				r.Outcome, r.Credits, r.Error, first.Credits)
		}
		if got := e.balance(t, e.ws.ID); got != balance {
			t.Errorf("balance %d after the check-now, want %d", got, balance)
		}
	})
}

func asError(err error, target **model.Error) bool { return errors.As(err, target) }

// TestResumeCountsAsCheckNow: pausing and resuming is no way around the
// check-now limit: a resume within the interval of the last requested
// check succeeds, and its run comes when the limit allows, not now.
func TestResumeCountsAsCheckNow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		e.svc.CheckNowInterval = time.Minute
		site := newSite(t)
		site.set("/a", press("x", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/a")})
		e.runs(t, id, 1)
		e.check(t, id) // the requested check of this minute
		for i := range 5 {
			if _, err := e.svc.Pause(ctx, e.p, id); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			m, err := e.svc.Resume(ctx, e.p, id)
			if err != nil {
				t.Fatalf("resume %d: %v", i, err)
			}
			if m.Status != model.MonitorActive {
				t.Fatalf("resume %d: status %s, want active", i, m.Status)
			}
			if m.NextCheckAt.Before(start.Add(30 * time.Second)) {
				t.Fatalf("resume %d within the check-now limit scheduled a check at %s (now %s), want about a minute after the last check-now",
					i, m.NextCheckAt, start)
			}
		}
		if rs := e.runs(t, id, 2); len(rs) != 2 {
			t.Errorf("%d runs after five pause/resume rounds, want the 2 before them", len(rs))
		}
	})
}

// TestCheckNowOnARunningJobIsRepaired: a check-now that meets the
// monitor's job still running is not lost. Made while the check fetches
// (before it records), the check sees the new due time and runs again at
// once; made after the run is recorded but before River has ended the job
// (the wake leaves a running job alone, and River then snoozes it to the
// next interval), the schedule repair gives the monitor its check. (The
// other tests' env.check waits for the job to end first.)
func TestCheckNowOnARunningJobIsRepaired(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		page := press("x", releasesList, "1")
		var mu sync.Mutex
		var gate chan struct{} // when set, the next request waits on it
		entered := make(chan struct{}, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			g := gate
			gate = nil
			mu.Unlock()
			if g != nil {
				entered <- struct{}{}
				select {
				case <-g:
				case <-r.Context().Done():
					return
				}
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, page)
		}))
		t.Cleanup(srv.Close)
		id := e.register(t, monitor.RegisterRequest{URL: srv.URL + "/ir"})
		e.runs(t, id, 1)

		// While the check fetches.
		e.jobIdle(t, id)
		release := make(chan struct{})
		mu.Lock()
		gate = release
		mu.Unlock()
		if _, err := e.svc.CheckNow(ctx, e.p, id); err != nil {
			t.Fatal(err)
		}
		select {
		case <-entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the check-now's fetch never came")
		}
		if _, err := e.svc.CheckNow(ctx, e.p, id); err != nil {
			t.Fatal(err)
		}
		close(release)
		e.runs(t, id, 3)

		// After the run is recorded, the job still running: tried until a
		// wake met the job running before and after it (River ends a job
		// moments after its run commits).
		met := 0
		for try := 0; try < 20 && met == 0; try++ {
			e.jobIdle(t, id)
			n := len(e.runs(t, id, 0))
			if _, err := e.svc.CheckNow(ctx, e.p, id); err != nil {
				t.Fatal(err)
			}
			m, err := e.st.MonitorByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			e.runs(t, id, n+1)
			// The run is in; wake the job at once, as a caller would.
			before := e.jobState(t, m.JobID)
			if _, err := e.svc.CheckNow(ctx, e.p, id); err != nil {
				t.Fatal(err)
			}
			after := e.jobState(t, m.JobID)
			if before == "running" && after == "running" {
				met++
			}
			start := time.Now()
			e.runs(t, id, n+2)
			t.Logf("try %d: job %s, then %s; the run after %v", try, before, after, time.Since(start))
		}
		if met == 0 {
			t.Fatal("no check-now met its monitor's job running after its run was recorded: the repair was not tested")
		}
	})
}
