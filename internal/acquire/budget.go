package acquire

import (
	"bytes"
	"container/list"
	"context"
	"runtime"
	"sync"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/metrics"
	"webacq/internal/model"
)

// Budget bounds the memory and the concurrency of conversions (parse → main
// content → markdown) on one node. Converting a page costs far more memory
// than its size: a 6 MB page of 200,000 links holds about 180 MB of live
// tree and scores, so without a bound a handful of such pages at once takes
// a node down. Each conversion reserves an estimate of its peak live heap
// (see EstimateConversion) and waits, first in first out, until the
// reservations in flight leave room for it. The queue is bounded too: a
// request that would wait behind a full queue, or that waited MaxWait, is
// refused with rate_limited (429 and Retry-After) instead of holding its
// body in memory for nothing.
//
// A nil *Budget admits everything at once.
type Budget struct {
	capacity  int64 // bytes of estimated live heap shared by conversions
	workers   int   // conversions at once
	maxQueue  int   // waiters at once
	maxQueued int64 // bytes of bodies held by waiters
	maxWait   time.Duration

	mu      sync.Mutex
	inUse   int64
	running int
	queued  int64
	waiters list.List // of *budgetWaiter, oldest first
}

type budgetWaiter struct {
	cost  int64
	size  int64
	slot  bool          // takes one of the conversions at once
	ready chan struct{} // closed when the waiter is admitted
}

// BudgetOptions configure NewBudget. Zero fields take defaults.
type BudgetOptions struct {
	// Memory is the node's memory budget in bytes (default 1 GiB); 40 % of
	// it is shared by conversions, the rest is left to bodies in flight,
	// responses, memory outside the Go heap and the collector's headroom.
	Memory int64
	// Workers is how many conversions run at once (default 4 per CPU): they
	// are CPU-bound, so more would only hold more memory.
	Workers int
	// Queue is how many conversions may wait (default 512). The bytes of
	// the bodies they hold are bounded apart (a quarter of Memory), so the
	// count only bounds goroutines: at 64, 200 clients fetching small pages
	// had three of four refused while the node had memory to spare
	// (bench/load).
	Queue int
	// MaxWait is how long a caller's own page waits for its turn before it
	// is refused with rate_limited (default 20 s): a clear answer to retry
	// beats a timeout at the end of the request's whole time.
	MaxWait time.Duration
}

// DefaultMemoryBudget is the memory budget of a node unless the operator
// sets another (WEBACQ_MEMORY_BUDGET).
const DefaultMemoryBudget = 1 << 30

// budgetRetryAfter is what a refused caller is told to wait: long enough
// for a few conversions ahead of it to finish.
const budgetRetryAfter = 5 * time.Second

// NewBudget returns a Budget for o.
func NewBudget(o BudgetOptions) *Budget {
	if o.Memory <= 0 {
		o.Memory = DefaultMemoryBudget
	}
	if o.Workers <= 0 {
		o.Workers = 4 * runtime.GOMAXPROCS(0)
	}
	if o.Queue <= 0 {
		o.Queue = 512
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 20 * time.Second
	}
	return &Budget{capacity: o.Memory * 2 / 5, workers: o.Workers, maxQueue: o.Queue, maxQueued: o.Memory / 4, maxWait: o.MaxWait}
}

// EstimateConversion is the peak live heap, in bytes, that converting a
// body of kind may take. For HTML: a fixed part, a part per byte and a part
// per tag, factors measured on both main-content corpora and on generated
// link farms (the worst case per byte): the estimate was at least the
// measured peak for every page over 50 KB, and within a factor of two of it
// for the link farms. Other kinds hold little more than the body and its
// text (a PDF is read by a separate process).
func EstimateConversion(kind fetch.Kind, body []byte) int64 {
	if kind == fetch.KindHTML {
		return 4<<20 + 8*int64(len(body)) + 400*int64(bytes.Count(body, []byte{'<'}))
	}
	return 4<<20 + 4*int64(len(body))
}

// Acquire waits until a conversion of the estimated cost (see
// EstimateConversion) may run and returns the func that ends it; held is
// the size of the body the caller keeps in memory while it waits. queueing
// false (a caller's own page) refuses with rate_limited when the queue is
// full or after MaxWait; true (a page of a crawl already admitted, whose
// concurrency the crawl bounds) waits as long as ctx lets it. A conversion
// larger than the whole budget is refused with upstream_error, and ctx
// ending while waiting with timeout.
func (b *Budget) Acquire(ctx context.Context, cost, held int64, queueing bool) (release func(), err error) {
	return b.acquire(ctx, &budgetWaiter{cost: cost, size: held, slot: true}, queueing)
}

// Hold takes n bytes of the budget without a conversion slot, for a body
// about to be read whole, waiting as long as ctx lets (first in first out
// with the conversions). More than the whole budget is refused with
// upstream_error.
func (b *Budget) Hold(ctx context.Context, n int64) (release func(), err error) {
	return b.acquire(ctx, &budgetWaiter{cost: n}, true)
}

// Capacity is the bytes of estimated live heap the budget shares out.
func (b *Budget) Capacity() int64 {
	if b == nil {
		return 1 << 62
	}
	return b.capacity
}

func (b *Budget) acquire(ctx context.Context, w *budgetWaiter, queueing bool) (release func(), err error) {
	if b == nil {
		return func() {}, nil
	}
	cost := w.cost
	if cost > b.capacity {
		return nil, tooLarge(cost, b.capacity)
	}
	w.ready = make(chan struct{})
	b.mu.Lock()
	if b.waiters.Len() == 0 && b.fits(w) {
		b.admit(w)
		b.mu.Unlock()
		metrics.Budget("granted")
		return b.releaser(w), nil
	}
	if !queueing && (b.waiters.Len() >= b.maxQueue || b.queued+w.size > b.maxQueued) {
		b.mu.Unlock()
		metrics.Budget("refused")
		return nil, errBudgetFull
	}
	el := b.waiters.PushBack(w)
	b.queued += w.size
	b.mu.Unlock()

	var expired <-chan time.Time
	if !queueing {
		t := time.NewTimer(b.maxWait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-w.ready:
		metrics.Budget("waited")
		return b.releaser(w), nil
	case <-ctx.Done():
		err = model.Wrap(model.CodeTimeout, ctx.Err(), "the request ran out of time waiting to convert the page")
	case <-expired:
		err = errBudgetFull
	}
	b.mu.Lock()
	select {
	case <-w.ready:
		// Admitted as it gave up: give the slot back.
		b.mu.Unlock()
		b.releaser(w)()
	default:
		b.waiters.Remove(el)
		b.queued -= w.size
		// The head may have been waiting behind this one.
		b.wake()
		b.mu.Unlock()
	}
	metrics.Budget("refused")
	return nil, err
}

// tooLarge refuses what needs more of the budget than allowed.
func tooLarge(cost, allowed int64) error {
	return model.Errorf(model.CodeUpstreamError,
		"the page is too large to convert within this node's memory budget (about %d MB needed, %d MB allowed)",
		cost>>20, allowed>>20)
}

// errBudgetFull refuses a page that cannot be converted soon.
var errBudgetFull = &model.Error{Code: model.CodeRateLimited, RetryAfter: budgetRetryAfter,
	Message: "this node is converting as many pages as its memory budget allows; retry shortly"}

// fits says whether w may start now; b.mu is held. One reservation always
// may when nothing is in use, however large, so that a page under the
// capacity never waits for ever.
func (b *Budget) fits(w *budgetWaiter) bool {
	return b.inUse == 0 || ((!w.slot || b.running < b.workers) && b.inUse+w.cost <= b.capacity)
}

// admit starts w; b.mu is held.
func (b *Budget) admit(w *budgetWaiter) {
	b.inUse += w.cost
	if w.slot {
		b.running++
	}
	close(w.ready)
}

// wake admits waiters from the head of the queue while they fit; b.mu is
// held. Strict order: a small page does not overtake a large one, which
// would otherwise wait for ever behind a stream of small ones.
func (b *Budget) wake() {
	for el := b.waiters.Front(); el != nil; el = b.waiters.Front() {
		w := el.Value.(*budgetWaiter)
		if !b.fits(w) {
			return
		}
		b.waiters.Remove(el)
		b.queued -= w.size
		b.admit(w)
	}
}

func (b *Budget) releaser(w *budgetWaiter) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.inUse -= w.cost
			if w.slot {
				b.running--
			}
			b.wake()
			b.mu.Unlock()
		})
	}
}

// Stats reports the conversions running and waiting and the estimated bytes
// in use, for tests and metrics.
func (b *Budget) Stats() (running, waiting int, inUse int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running, b.waiters.Len(), b.inUse
}
