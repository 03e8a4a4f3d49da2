package console

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestTurnsOnePerKey(t *testing.T) {
	var tu turns
	var busy, peak atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := tu.take(context.Background(), "203.0.113.9")
			if err != nil {
				t.Error(err)
				return
			}
			n := busy.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			busy.Add(-1)
			release()
		}()
	}
	// Another key is not kept waiting by the queue of the first.
	release, err := tu.take(context.Background(), "198.51.100.1")
	if err != nil {
		t.Fatal(err)
	}
	release()
	wg.Wait()
	if p := peak.Load(); p != 1 {
		t.Fatalf("%d holders of one key at once, want 1", p)
	}
	// A waiter whose request ends gives up its place.
	hold, _ := tu.take(context.Background(), "k")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tu.take(ctx, "k"); err == nil {
		t.Fatal("a cancelled waiter got the turn")
	}
	hold()
	tu.mu.Lock()
	defer tu.mu.Unlock()
	if len(tu.m) != 0 {
		t.Fatalf("%d keys kept after every turn ended", len(tu.m))
	}
}
