package store_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestRateLimitSharedByNodes: two stores on one database (two nodes) take
// slots concurrently; every slot is distinct and 100 ms from the next, so
// at most 10 requests a second go out across both.
func TestRateLimitSharedByNodes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		u := storetest.URL(t, dialect)
		a, err := store.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := store.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		var mu sync.Mutex
		var slots []time.Time
		var wg sync.WaitGroup
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				s := a
				if i%2 == 1 {
					s = b
				}
				at, err := s.TakeSlot(ctx, "edgar", 100*time.Millisecond)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				slots = append(slots, at)
				mu.Unlock()
			}(i)
		}
		wg.Wait()
		sort.Slice(slots, func(i, j int) bool { return slots[i].Before(slots[j]) })
		for i := 1; i < len(slots); i++ {
			if gap := slots[i].Sub(slots[i-1]); gap < 100*time.Millisecond {
				t.Fatalf("slots %d and %d are %v apart", i-1, i, gap)
			}
		}
		if span := slots[len(slots)-1].Sub(slots[0]); span > 4*time.Second {
			t.Errorf("40 slots span %v, want about 3.9 s", span)
		}
		// Another limit is independent, and an idle limit starts now.
		at, err := a.TakeSlot(ctx, "other", time.Second)
		if err != nil || time.Since(at) > time.Second || time.Until(at) > 0 {
			t.Errorf("fresh limit: %v %v", at, err)
		}
		// A slot too far away is refused at once.
		if err := a.WaitSlot(ctx, "edgar", 100*time.Millisecond, 50*time.Millisecond); err == nil {
			t.Error("WaitSlot waited for a slot seconds away")
		}
	})
}
