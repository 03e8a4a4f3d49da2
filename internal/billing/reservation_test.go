package billing_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// ttl is the reservation TTL of these tests: the shortest the configuration
// takes, so that calls outlive it quickly.
const ttl = time.Second

// node is one process on the shared database: its own connections and its
// own Biller.
type node struct {
	s *store.Store
	b *billing.Biller
}

func startNode(t *testing.T, url string) *node {
	t.Helper()
	s, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b := billing.New(s, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.ReservationTTL = ttl
	t.Cleanup(b.Close)
	return &node{s, b}
}

// expiring runs the node's expiry loop until the test ends.
func (n *node) expiring(t *testing.T) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); n.b.ExpireLoop(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func principal(t *testing.T, s *store.Store, credits int64) *model.Principal {
	t.Helper()
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
	return p
}

func balanceOf(t *testing.T, s *store.Store, id string) int64 {
	t.Helper()
	w, err := s.Workspace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return w.Credits
}

// Finding 6 of issue 8: calls running for several TTLs, while other nodes
// expire holds, keep what they hold the whole time (no other call can
// spend it, nothing is refunded) and are billed exactly once at the end.
// Before holds were renewed, an expired hold was refunded mid-call and
// spent by another call, and the long call was then free.
func TestCallsOutlivingTheTTLKeepTheirHold(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		a, other := startNode(t, url), startNode(t, url)
		other.expiring(t)
		const calls, cost = 4, 3
		p := principal(t, a.s, calls*cost)

		release := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < calls; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := newCall(p)
				c.Endpoint = "/api/v1/gyre"
				err := a.b.Run(ctx, c, cost, func(ctx context.Context) (int64, error) {
					<-release
					return cost, nil
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		deadline := time.Now().Add(10 * time.Second)
		for balanceOf(t, a.s, p.WorkspaceID) != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the calls never reserved")
			}
			time.Sleep(10 * time.Millisecond)
		}

		// Three TTLs during which the holds must stay.
		for end := time.Now().Add(3 * ttl); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if n, err := other.s.ExpireReservations(ctx); err != nil || n != 0 {
				t.Fatalf("another node refunded %d holds of live calls (%v)", n, err)
			}
			if b := balanceOf(t, other.s, p.WorkspaceID); b != 0 {
				t.Fatalf("balance %d while every credit is held by a running call, want 0", b)
			}
			c := newCall(p)
			err := other.b.Run(ctx, c, 1, func(context.Context) (int64, error) { return 1, nil })
			if model.ErrorCode(err) != model.CodeCreditsExhausted {
				t.Fatalf("a call on another node while all credits are held: got %v, want credits_exhausted", err)
			}
		}
		close(release)
		wg.Wait()

		if b := balanceOf(t, a.s, p.WorkspaceID); b != 0 {
			t.Fatalf("balance after the calls %d, want 0", b)
		}
		us, err := a.s.Usage(ctx, p.WorkspaceID, model.LogFilter{Endpoint: "/api/v1/gyre"})
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != calls {
			t.Fatalf("%d usage rows of the long calls, want %d", len(us), calls)
		}
		for _, u := range us {
			if u.Credits != cost {
				t.Fatalf("a long call was billed %d credits, want %d: %+v", u.Credits, cost, u)
			}
		}
		if n, err := other.s.ExpireReservations(ctx); err != nil || n != 0 {
			t.Fatalf("holds left after the calls settled: %d refunded (%v)", n, err)
		}
	})
}

// A node that stops (its renewals stop with it) leaves holds that the
// other nodes refund once, soon after the TTL, even when several of them
// expire holds at the same time.
func TestHoldsOfADeadNodeAreRefundedOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		var survivors []*node
		for i := 0; i < 3; i++ {
			n := startNode(t, url)
			n.expiring(t)
			survivors = append(survivors, n)
		}
		dead := startNode(t, url)
		const calls, cost = 5, 2
		p := principal(t, dead.s, calls*cost)
		for i := 0; i < calls; i++ {
			if err := dead.b.Reserve(ctx, newCall(p), cost); err != nil {
				t.Fatal(err)
			}
		}
		// Renewed past the TTL, as on a live node.
		time.Sleep(2 * ttl)
		if b := balanceOf(t, dead.s, p.WorkspaceID); b != 0 {
			t.Fatalf("balance %d while the node lives, want 0", b)
		}
		dead.b.Close() // the node dies: nothing renews its holds any more
		died := time.Now()

		// The last renewal was at most ttl/3 before the death; the holds
		// expire ttl after it and wait at most ExpireEvery(ttl) for a node
		// to look. The margin is for a slow machine.
		limit := ttl + billing.ExpireEvery(ttl) + 10*time.Second
		for balanceOf(t, survivors[0].s, p.WorkspaceID) != calls*cost {
			if time.Since(died) > limit {
				t.Fatalf("balance %d %v after the node died, want %d", balanceOf(t, survivors[0].s, p.WorkspaceID),
					time.Since(died), calls*cost)
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("refunded %v after the node died (ttl %v)", time.Since(died).Round(10*time.Millisecond), ttl)
		// More rounds of every survivor's loop: nothing is refunded twice.
		time.Sleep(3 * billing.ExpireEvery(ttl))
		if b := balanceOf(t, survivors[0].s, p.WorkspaceID); b != calls*cost {
			t.Fatalf("balance %d after more expiry rounds, want %d (refunded once)", b, calls*cost)
		}
	})
}

// A work that panics is refunded in full at once, and its hold is not kept
// alive by renewals for the rest of the process's life.
func TestPanickingWorkIsRefunded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		n := startNode(t, storetest.URL(t, dialect))
		p := principal(t, n.s, 10)
		c := newCall(p)
		func() {
			defer func() {
				if v := recover(); v == nil {
					t.Fatal("the panic was swallowed")
				}
			}()
			n.b.Run(ctx, c, 4, func(context.Context) (int64, error) { panic(errors.New("boom")) })
		}()
		if b := balanceOf(t, n.s, p.WorkspaceID); b != 10 {
			t.Fatalf("balance after a panicking call %d, want 10", b)
		}
		us, err := n.s.Usage(ctx, p.WorkspaceID, model.LogFilter{})
		if err != nil || len(us) != 1 || us[0].Credits != 0 || us[0].Status != 500 {
			t.Fatalf("usage %+v (%v), want one 0-credit row with status 500", us, err)
		}
	})
}

// ExpireEvery looks several times per TTL, and never waits more than 30 s,
// so a dead node's credits return within a minute of the TTL.
func TestExpireEvery(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 10 * time.Second, time.Minute, billing.DefaultReservationTTL, 24 * time.Hour} {
		e := billing.ExpireEvery(d)
		if e <= 0 || e > d/4 || e > 30*time.Second {
			t.Errorf("ExpireEvery(%v) = %v, want in (0, min(ttl/4, 30s)]", d, e)
		}
	}
}
