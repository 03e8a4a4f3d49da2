package primitive

import (
	"context"
	"sync"

	"webacq/internal/acquire"
	"webacq/internal/fetch"
)

// Budget is the node's memory budget (acquire.Budget): the primitives'
// conversions share it with the monitor checks and the channels' downloads.
type Budget = acquire.Budget

// EstimateConversion is acquire.EstimateConversion.
func EstimateConversion(kind fetch.Kind, body []byte) int64 {
	return acquire.EstimateConversion(kind, body)
}

// budgetHold keeps a page's reservation past its conversion, until the
// caller that made the hold is done with the result (Fetch keeps the page
// first). A nil *budgetHold holds nothing.
type budgetHold struct {
	mu      sync.Mutex
	release func()
}

type holdKey struct{}

// WithBudgetHold returns a context under which one Fetch keeps its page's
// conversion budget until done is called, not only until Fetch returns:
// a caller that goes on to encode and send the result (the REST handler)
// holds the memory that takes as well. One Fetch at a time per hold.
func WithBudgetHold(ctx context.Context) (_ context.Context, done func()) {
	h := &budgetHold{}
	return withHold(ctx, h), h.done
}

func withHold(ctx context.Context, h *budgetHold) context.Context {
	return context.WithValue(ctx, holdKey{}, h)
}

func holdOf(ctx context.Context) *budgetHold {
	h, _ := ctx.Value(holdKey{}).(*budgetHold)
	return h
}

// set keeps release, ending any reservation held before.
func (h *budgetHold) set(release func()) {
	h.mu.Lock()
	old := h.release
	h.release = release
	h.mu.Unlock()
	if old != nil {
		old()
	}
}

// done ends the reservation held, if any.
func (h *budgetHold) done() {
	if h != nil {
		h.set(nil)
	}
}
