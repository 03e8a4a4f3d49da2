package monitor

import (
	"context"
	"testing"
	"time"
)

// take acquires a slot that must be free at once; a short wait stands for
// "not now" (nothing is released meanwhile, so it is not a timing test).
func take(t *testing.T, l *limiter, ws string, n, share int) func() {
	t.Helper()
	done, ok := l.acquire(context.Background(), "k", ws, n, share, time.Millisecond)
	if !ok {
		t.Fatalf("%s: no slot, want one", ws)
	}
	return done
}

func refused(t *testing.T, l *limiter, ws string, n, share int) {
	t.Helper()
	if done, ok := l.acquire(context.Background(), "k", ws, n, share, time.Millisecond); ok {
		done()
		t.Fatalf("%s: got a slot, want none", ws)
	}
}

func TestLimiterLendsTheShareBeyondABorrower(t *testing.T) {
	var l limiter
	// A alone borrows all four slots, not only its share of two.
	var a []func()
	for range 4 {
		a = append(a, take(t, &l, "A", 4, 2))
	}
	refused(t, &l, "A", 4, 2)
	// B's share is lent beyond the four A holds: A's checks run on.
	b1, b2 := take(t, &l, "B", 4, 2), take(t, &l, "B", 4, 2)
	refused(t, &l, "B", 4, 2) // past its share, and no slot is idle
	// A's checks end one by one; A starts none while n are in use.
	a[0]()
	refused(t, &l, "A", 4, 2)
	a[1]()
	refused(t, &l, "A", 4, 2) // 4 in use: A's 2, B's 2
	b1()
	a2 := take(t, &l, "A", 4, 2) // an idle slot and nobody waits: borrowed again
	for _, done := range []func(){a[2], a[3], a2, b2} {
		done()
	}
	if len(l.pools) != 0 {
		t.Errorf("%d pools kept after every slot was given back, want 0", len(l.pools))
	}
}

// TestLimiterBorrowerYieldsToAWaiter: a slot given back goes to the check
// of a workspace within its share that waits for it, not to a workspace
// past its share starting a check, whichever looks first.
func TestLimiterBorrowerYieldsToAWaiter(t *testing.T) {
	var l limiter
	a1, a2 := take(t, &l, "A", 2, 1), take(t, &l, "A", 2, 1) // A borrows both
	b := take(t, &l, "B", 2, 1)                              // lent: 3 in use
	got := make(chan bool)
	go func() {
		done, ok := l.acquire(context.Background(), "k", "C", 2, 1, time.Minute)
		if ok {
			defer done()
		}
		got <- ok
	}()
	for waiting := 0; waiting == 0; {
		l.mu.Lock()
		waiting = l.pools["k"].waiting["C"]
		l.mu.Unlock()
	}
	a1() // 2 in use, nobody past its share: C still waits (n in use)
	b()  // 1 in use: C's turn, not A's
	refused(t, &l, "A", 2, 1)
	if !<-got {
		t.Fatal("C's check got no slot")
	}
	a2()
}

func TestLimiterGivesUpWithTheContext(t *testing.T) {
	var l limiter
	done := take(t, &l, "A", 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := l.acquire(ctx, "k", "A", 1, 1, time.Minute); ok {
		t.Fatal("got a slot with a cancelled context and none free")
	}
	done()
	if len(l.pools) != 0 {
		t.Errorf("%d pools kept, want 0", len(l.pools))
	}
}
