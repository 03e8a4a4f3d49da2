package billing

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"webacq/internal/model"
)

// Request classes limited per workspace, across nodes (DECISIONS, Rate
// limits): the primitives (an MCP call counts as its primitive) and the
// monitor API. Other requests (health, account reads, tools/list) are not
// counted.
const (
	ClassPrimitives = "primitives"
	ClassMonitor    = "monitor"
)

// primitiveRoutes are the routes counted as primitives. Reading and
// cancelling a crawl job count too (DECISIONS, Async gyre): a read is
// free of credits but not of the database, and it is the same request
// whether sent as GET /api/v1/gyre/{job_id} or POST /api/v1/gyre {job_id}.
var primitiveRoutes = map[string]bool{"/api/v1/fetch": true, "/api/v1/map": true, "/api/v1/gyre": true,
	"/api/v1/gyre/{job_id}": true, "/api/v1/search": true, "/api/v1/extract": true}

// ClassOf is the rate-limit class of a route (a REST route pattern's
// path, which an MCP tool names as its endpoint): the primitives, the
// monitor API, or "" (not counted).
func ClassOf(route string) string {
	switch {
	case primitiveRoutes[route]:
		return ClassPrimitives
	case route == "/api/v1/monitor" || strings.HasPrefix(route, "/api/v1/monitor/"):
		return ClassMonitor
	}
	return ""
}

// Limit is a workspace's limit in one class as a request left it.
type Limit struct {
	Limit, Remaining int
	Reset            time.Time // when the current minute ends
}

// Header are the RateLimit-* header values of l at now.
func (l Limit) Header(now time.Time) (limit, remaining, reset string) {
	secs := int(l.Reset.Sub(now).Seconds() + 0.999)
	return strconv.Itoa(l.Limit), strconv.Itoa(max(l.Remaining, 0)), strconv.Itoa(max(secs, 0))
}

// limits remembers, per workspace, the last primitives limit this node
// saw, for the answers of requests that are not counted.
type limits struct {
	mu   sync.Mutex
	last map[string]Limit
}

// Admit counts a request of class for p's workspace on the counter every
// node shares and returns the limit after it; past the workspace's
// requests per minute it answers rate_limited with Retry-After (the
// minute's end). A workspace without a limit (RPM 0) is not counted.
func (b *Biller) Admit(ctx context.Context, p *model.Principal, class string) (Limit, error) {
	if p.RPM <= 0 {
		return Limit{}, nil
	}
	n, reset, err := b.store.CountRequest(ctx, p.WorkspaceID, class)
	if err != nil {
		return Limit{}, model.Wrap(model.CodeUnavailable, err, "database unavailable")
	}
	l := Limit{Limit: p.RPM, Remaining: p.RPM - n, Reset: reset}
	if class == ClassPrimitives {
		b.limits.mu.Lock()
		if b.limits.last == nil {
			b.limits.last = map[string]Limit{}
		}
		b.limits.last[p.WorkspaceID] = l
		b.limits.mu.Unlock()
	}
	if n > p.RPM {
		wait := max(time.Until(reset), time.Second)
		e := model.Errorf(model.CodeRateLimited, "this workspace made more than %d %s requests this minute; retry after %d s",
			p.RPM, class, int(wait.Seconds()+0.999))
		e.RetryAfter = wait
		return l, e
	}
	return l, nil
}

// Peek is the primitives limit of p's workspace as this node last saw it,
// without counting a request (the whole limit when it saw none this
// minute).
func (b *Biller) Peek(p *model.Principal) Limit {
	now := time.Now()
	b.limits.mu.Lock()
	l, ok := b.limits.last[p.WorkspaceID]
	b.limits.mu.Unlock()
	if !ok || !l.Reset.After(now) {
		return Limit{Limit: p.RPM, Remaining: p.RPM, Reset: now.Truncate(time.Minute).Add(time.Minute)}
	}
	return l
}

// Running calls (DECISIONS, Rate limits: concurrent crawls/extracts).
const (
	// callLease is how long a running call's slot lasts unrenewed: the
	// slots of a node that dies free themselves this long after its last
	// renewal.
	callLease = 90 * time.Second
	// callRenew is how often a running call renews its lease.
	callRenew = 30 * time.Second
	// busyRetry is the Retry-After of a call refused because the
	// workspace's crawls or extracts are all running (when one ends is
	// not known).
	busyRetry = 5 * time.Second
)

// limitedCalls are the endpoints whose calls take a concurrency slot.
var limitedCalls = map[string]bool{"/api/v1/gyre": true, "/api/v1/extract": true}

// StartCall takes one of p's workspace's slots for a call of endpoint
// (crawls and extracts; other endpoints take none) and returns the
// function that frees it, which the caller runs when the call ends.
// Every node shares the count; past the workspace's limit the answer is
// rate_limited with a short Retry-After.
func (b *Biller) StartCall(ctx context.Context, p *model.Principal, endpoint string) (end func(), err error) {
	if !limitedCalls[endpoint] || p.Concurrent <= 0 {
		return func() {}, nil
	}
	id, running, ok, err := b.store.StartCall(ctx, p.WorkspaceID, endpoint, p.Concurrent, callLease)
	if err != nil {
		return nil, model.Wrap(model.CodeUnavailable, err, "database unavailable")
	}
	if !ok {
		e := model.Errorf(model.CodeRateLimited, "this workspace has %d crawls and extracts running, its limit; retry after %d s when one has ended",
			running, int(busyRetry.Seconds()))
		e.RetryAfter = busyRetry
		return nil, e
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(callRenew)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			rctx, cancel := context.WithTimeout(context.Background(), callRenew)
			if err := b.store.RenewCall(rctx, id, callLease); err != nil {
				b.log.Error("renew running call", "err", err)
			}
			cancel()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := b.store.EndCall(ectx, id); err != nil {
				// The lease runs out on its own.
				b.log.Error("end running call", "err", err)
			}
		})
	}, nil
}
