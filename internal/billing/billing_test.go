package billing_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var ctx = context.Background()

func setup(t *testing.T, dialect string, credits int64) (*store.Store, *billing.Biller, *model.Principal) {
	t.Helper()
	s := storetest.Open(t, dialect)
	w, err := s.CreateWorkspace(ctx, "w", credits, false)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := s.CreateKey(ctx, w.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	b := billing.New(s, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(b.Close)
	return s, b, p
}

func newCall(p *model.Principal) *billing.Call {
	return &billing.Call{Principal: p, Endpoint: "/api/v1/fetch", Via: model.ViaHTTP, Method: "POST",
		RequestID: "r", Started: time.Now(), Tier: model.TierHTTP}
}

// 200 simultaneous billed calls against a workspace that affords 50.
func TestConcurrentCallsNeverOverdraw(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s, b, p := setup(t, dialect, 50)
		var ok, exhausted atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				c := newCall(p)
				err := b.Reserve(ctx, c, billing.FetchHTTP)
				status := 200
				switch model.ErrorCode(err) {
				case model.CodeCreditsExhausted:
					exhausted.Add(1)
					c.ErrorCode, status = model.CodeCreditsExhausted, 402
				case model.CodeInternal:
					if err != nil {
						t.Error(err)
						return
					}
					ok.Add(1)
				default:
					t.Error(err)
					return
				}
				if err := b.Finish(ctx, c, billing.FetchHTTP, status); err != nil {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		b.Flush(ctx)
		if ok.Load() != 50 || exhausted.Load() != 150 {
			t.Fatalf("got %d ok and %d credits_exhausted, want 50 and 150", ok.Load(), exhausted.Load())
		}
		us, err := s.Usage(ctx, p.WorkspaceID, model.LogFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, u := range us {
			sum += u.Credits
		}
		if len(us) != 200 || sum != 50 {
			t.Fatalf("usage: %d rows summing to %d, want 200 rows summing to 50", len(us), sum)
		}
		as, _ := s.Activity(ctx, p.WorkspaceID, model.LogFilter{})
		if len(as) != 200 {
			t.Fatalf("activity: %d rows, want 200", len(as))
		}
		if w, _ := s.Workspace(ctx, p.WorkspaceID); w.Credits != 0 {
			t.Fatalf("final balance %d, want 0", w.Credits)
		}
	})
}

func TestFailedCallIsRefundedInFull(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s, b, p := setup(t, dialect, 10)
		c := newCall(p)
		if err := b.Reserve(ctx, c, 3); err != nil {
			t.Fatal(err)
		}
		c.ErrorCode = model.CodeUpstreamError
		if err := b.Finish(ctx, c, 3, 502); err != nil {
			t.Fatal(err)
		}
		if w, _ := s.Workspace(ctx, p.WorkspaceID); w.Credits != 10 {
			t.Fatalf("balance %d, want 10", w.Credits)
		}
		us, _ := s.Usage(ctx, p.WorkspaceID, model.LogFilter{})
		if len(us) != 1 || us[0].Credits != 0 || us[0].Status != 502 {
			t.Fatalf("usage %+v, want one 0-credit row with status 502", us)
		}
		as, _ := s.Activity(ctx, p.WorkspaceID, model.LogFilter{})
		if len(as) != 1 || as[0].ErrorCode != model.CodeUpstreamError {
			t.Fatalf("activity %+v, want the error code", as)
		}
		if err := b.Finish(ctx, c, 3, 200); err != nil {
			t.Fatal(err)
		}
		if us, _ := s.Usage(ctx, p.WorkspaceID, model.LogFilter{}); len(us) != 1 {
			t.Fatalf("second Finish wrote rows: %d", len(us))
		}
	})
}

func TestPartialUseRefundsRest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s, b, p := setup(t, dialect, 100)
		c := newCall(p)
		if err := b.Reserve(ctx, c, 30); err != nil { // a crawl of up to 30 pages
			t.Fatal(err)
		}
		if err := b.Finish(ctx, c, 12, 200); err != nil {
			t.Fatal(err)
		}
		if w, _ := s.Workspace(ctx, p.WorkspaceID); w.Credits != 88 {
			t.Fatalf("balance %d, want 88", w.Credits)
		}
		sum, _ := s.Credits(ctx, p.WorkspaceID)
		if sum.Spent24h != 12 || sum.Spent30d != 12 {
			t.Fatalf("spent %+v, want 12", sum)
		}
	})
}

// Free calls go through the group commit: every one is durable when
// Finish returns.
func TestFreeCallsAreAllRecorded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s, b, p := setup(t, dialect, 0)
		var wg sync.WaitGroup
		for i := 0; i < 300; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := newCall(p)
				c.Endpoint, c.Tier = "/api/v1/health", ""
				if err := b.Finish(ctx, c, 0, 200); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		b.Flush(ctx)
		us, _ := s.Usage(ctx, p.WorkspaceID, model.LogFilter{})
		if len(us) != 300 || us[0].Tier != model.TierNone {
			t.Fatalf("usage rows %d (tier %q), want 300 (none)", len(us), us[0].Tier)
		}
		keys, _ := s.Keys(ctx, p.WorkspaceID)
		if keys[0].LastUsedAt == nil {
			t.Fatal("last_used_at not set")
		}
	})
}
