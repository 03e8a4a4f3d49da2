package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/store/storetest"
)

// TestTakeQuota: concurrent takers never get more than n units of a
// window; a refused one learns how long until a unit frees, which
// QuotaWait tells without taking.
func TestTakeQuota(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		s := storetest.Open(t, dialect)
		var ok, refused atomic.Int32
		var wg sync.WaitGroup
		for range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, wait, err := s.TakeQuota(ctx, "q:a", 10, time.Hour)
				switch {
				case err != nil:
					t.Error(err)
				case got:
					ok.Add(1)
				case wait > 0 && wait <= 6*time.Minute+time.Second:
					refused.Add(1)
				default:
					t.Errorf("refused with wait %v", wait)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 10 || refused.Load() != 30 {
			t.Errorf("%d taken, %d refused; want 10 and 30", ok.Load(), refused.Load())
		}
		if w, err := s.QuotaWait(ctx, "q:a", 10, time.Hour); err != nil || w <= 0 {
			t.Errorf("QuotaWait after the quota is spent: %v %v", w, err)
		}
		// Another name has its own quota.
		if w, err := s.QuotaWait(ctx, "q:b", 10, time.Hour); err != nil || w != 0 {
			t.Errorf("QuotaWait of a fresh name: %v %v", w, err)
		}
		if got, _, err := s.TakeQuota(ctx, "q:b", 10, time.Hour); err != nil || !got {
			t.Errorf("fresh name: %v %v", got, err)
		}
	})
}
