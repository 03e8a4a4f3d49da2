package monitor_test

import (
	"context"
	"errors"
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
