package primitive

import (
	"context"
	"testing"
	"time"

	"webacq/internal/acquire"
)

// A hold keeps one reservation: setting another ends the first (an
// escalated fetch's earlier tier), done ends it, and a nil hold is a no-op.
func TestBudgetHold(t *testing.T) {
	b := acquire.NewBudget(acquire.BudgetOptions{Memory: 200 << 20, Workers: 8})
	ctx := context.Background()
	h := &budgetHold{}
	if holdOf(withHold(ctx, h)) != h || holdOf(ctx) != nil {
		t.Fatal("holdOf does not find the hold of its context")
	}
	r1, _ := b.Acquire(ctx, 10<<20, 0, false)
	h.set(r1)
	if running, _, _ := b.Stats(); running != 1 {
		t.Fatalf("running %d, want 1", running)
	}
	r2, _ := b.Acquire(ctx, 20<<20, 0, false)
	h.set(r2)
	if running, _, inUse := b.Stats(); running != 1 || inUse != 20<<20 {
		t.Fatalf("after a second set: running %d, in use %d MB; want 1 and 20", running, inUse>>20)
	}
	h.done()
	if running, _, inUse := b.Stats(); running != 0 || inUse != 0 {
		t.Fatalf("after done: running %d, in use %d", running, inUse)
	}
	var none *budgetHold
	none.done()
}

func waitFor(t *testing.T, cond func() bool, within ...time.Duration) {
	t.Helper()
	limit := 5 * time.Second
	if len(within) > 0 {
		limit = within[0]
	}
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met in %v", limit)
		}
		time.Sleep(time.Millisecond)
	}
}
