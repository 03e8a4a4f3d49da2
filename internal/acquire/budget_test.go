package acquire

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/model"
)

func codeOf(err error) string {
	var me *model.Error
	if errors.As(err, &me) {
		return me.Code
	}
	return ""
}

func TestBudgetWaitsForMemory(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 200 << 20, Workers: 8, Queue: 8}) // 80 MB for conversions
	ctx := context.Background()
	r1, err := b.Acquire(ctx, 60<<20, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	admitted := make(chan func())
	go func() {
		r2, err := b.Acquire(ctx, 60<<20, 0, false)
		if err != nil {
			t.Error(err)
		}
		admitted <- r2
	}()
	waitFor(t, func() bool { _, w, _ := b.Stats(); return w == 1 })
	select {
	case <-admitted:
		t.Fatal("a second 60 MB conversion started beside the first within 80 MB")
	case <-time.After(50 * time.Millisecond):
	}
	if running, _, _ := b.Stats(); running != 1 {
		t.Fatalf("running %d, want 1", running)
	}
	r1()
	r1() // releasing twice changes nothing
	select {
	case r2 := <-admitted:
		r2()
	case <-time.After(5 * time.Second):
		t.Fatal("the second conversion did not start after the first ended")
	}
	if running, waiting, inUse := b.Stats(); running != 0 || waiting != 0 || inUse != 0 {
		t.Fatalf("after both: running %d waiting %d in use %d", running, waiting, inUse)
	}
}

func TestBudgetRefusesWhenTheQueueIsFull(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 200 << 20, Workers: 1, Queue: 2})
	ctx := context.Background()
	hold, err := b.Acquire(ctx, 10<<20, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := b.Acquire(ctx, 10<<20, 0, false)
			if err != nil {
				t.Error(err)
				return
			}
			r()
		}()
	}
	waitFor(t, func() bool { _, w, _ := b.Stats(); return w == 2 })
	_, err = b.Acquire(ctx, 10<<20, 0, false)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeRateLimited || me.RetryAfter <= 0 {
		t.Fatalf("third waiter: %v, want rate_limited with Retry-After", err)
	}
	// A crawl's page waits even so.
	crawlDone := make(chan error, 1)
	go func() {
		r, err := b.Acquire(ctx, 10<<20, 0, true)
		if err == nil {
			r()
		}
		crawlDone <- err
	}()
	waitFor(t, func() bool { _, w, _ := b.Stats(); return w == 3 })
	hold()
	wg.Wait()
	if err := <-crawlDone; err != nil {
		t.Fatalf("crawl page: %v", err)
	}
}

func TestBudgetRefusesQueuedBytesOverAQuarter(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 400 << 20, Workers: 1, Queue: 100}) // 100 MB of waiting bodies
	hold, _ := b.Acquire(context.Background(), 4<<20, 0, false)
	defer hold()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const small = 20 << 20 // a 20 MB body
	for range 5 {
		go b.Acquire(ctx, small*8, small, false)
	}
	waitFor(t, func() bool { _, w, _ := b.Stats(); return w == 5 })
	if _, err := b.Acquire(ctx, small*8, small, false); codeOf(err) != model.CodeRateLimited {
		t.Fatalf("sixth 20 MB body: %v, want rate_limited (100 MB of bodies already wait)", err)
	}
}

func TestBudgetTimeoutLeavesTheQueue(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 100 << 20, Workers: 1, Queue: 4})
	hold, _ := b.Acquire(context.Background(), 4<<20, 0, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := b.Acquire(ctx, 4<<20, 0, false)
	if codeOf(err) != model.CodeTimeout {
		t.Fatalf("waiting past the deadline: %v, want timeout", err)
	}
	if _, w, _ := b.Stats(); w != 0 {
		t.Fatalf("%d waiters left after a timeout", w)
	}
	hold()
	if r, _, inUse := b.Stats(); r != 0 || inUse != 0 {
		t.Fatalf("running %d, in use %d after release", r, inUse)
	}
}

func TestBudgetRefusesAConversionLargerThanTheBudget(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 64 << 20})
	body := []byte(strings.Repeat("<a href=/x>x</a>", 100000)) // 200,000 tags: ~100 MB estimated
	_, err := b.Acquire(context.Background(), est(body), int64(len(body)), true)
	if codeOf(err) != model.CodeUpstreamError || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("got %v, want upstream_error naming the memory budget", err)
	}
}

func TestBudgetKeepsOrder(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 200 << 20, Workers: 8, Queue: 8})
	ctx := context.Background()
	hold, _ := b.Acquire(ctx, 60<<20, 0, false)
	bigStarted := make(chan func(), 1)
	go func() { r, _ := b.Acquire(ctx, 60<<20, 0, false); bigStarted <- r }()
	waitFor(t, func() bool { _, w, _ := b.Stats(); return w == 1 })
	smallStarted := make(chan func(), 1)
	go func() { r, _ := b.Acquire(ctx, 5<<20, 0, false); smallStarted <- r }()
	waitFor(t, func() bool { _, w, _ := b.Stats(); return w == 2 })
	select {
	case <-smallStarted:
		t.Fatal("a small conversion overtook a large one waiting before it")
	case <-time.After(30 * time.Millisecond):
	}
	hold()
	(<-bigStarted)()
	(<-smallStarted)()
}

// Under many concurrent callers the estimated bytes in use never exceed
// the capacity, and every caller ends.
func TestBudgetUnderLoad(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 200 << 20, Workers: 4, Queue: 1000})
	var inUse, peak, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cost := int64(5+i%40) << 20
			queueing := i%2 == 0
			r, err := b.Acquire(context.Background(), cost, cost/8, queueing)
			if err != nil {
				if queueing || codeOf(err) != model.CodeRateLimited {
					t.Error(err)
				}
				refused.Add(1)
				return
			}
			n := inUse.Add(cost)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			inUse.Add(-cost)
			r()
		}()
	}
	wg.Wait()
	if refused.Load() == 100 {
		t.Fatal("every caller that may be refused was")
	}
	if peak.Load() > 80<<20 {
		t.Fatalf("peak %d MB in use, capacity 80 MB", peak.Load()>>20)
	}
	if r, w, u := b.Stats(); r != 0 || w != 0 || u != 0 {
		t.Fatalf("after load: running %d waiting %d in use %d", r, w, u)
	}
}

func TestNilBudgetAdmitsEverything(t *testing.T) {
	var b *Budget
	r, err := b.Acquire(context.Background(), 1<<40, 100<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	r()
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

func est(body []byte) int64 { return EstimateConversion(fetch.KindHTML, body) }

// The estimate covers what was measured on a link farm (about 180 MB of
// live heap for 6 MB and 400,000 tags) and stays small for plain text.
func TestEstimateConversion(t *testing.T) {
	farm := []byte(strings.Repeat(`<a href="/p/123456">l123456</a> `, 200000))
	if got := EstimateConversion(fetch.KindHTML, farm); got < 180<<20 || got > 400<<20 {
		t.Errorf("link farm of %d MB: estimate %d MB, want 180-400", len(farm)>>20, got>>20)
	}
	text := []byte(strings.Repeat("plain words ", 500000))
	if got := EstimateConversion(fetch.KindText, text); got > 8*int64(len(text)) {
		t.Errorf("text of %d MB: estimate %d MB", len(text)>>20, got>>20)
	}
}

func TestBudgetMaxWait(t *testing.T) {
	b := NewBudget(BudgetOptions{Memory: 100 << 20, Workers: 1, MaxWait: 30 * time.Millisecond})
	hold, _ := b.Acquire(context.Background(), 4<<20, 0, false)
	defer hold()
	_, err := b.Acquire(context.Background(), 4<<20, 0, false)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeRateLimited || me.RetryAfter <= 0 {
		t.Fatalf("after MaxWait: %v, want rate_limited with Retry-After", err)
	}
	if _, w, _ := b.Stats(); w != 0 {
		t.Fatalf("%d waiters left", w)
	}
	// A crawl's page is not bound by MaxWait, only by its context.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(ctx, 4<<20, 0, true); codeOf(err) != model.CodeTimeout {
		t.Fatalf("crawl page: %v, want timeout at its deadline", err)
	}
}
