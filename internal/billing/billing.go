// Package billing prices calls, reserves credits before work starts, settles
// them when it ends, and writes every call's usage and activity rows.
package billing

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"webacq/internal/metrics"
	"webacq/internal/model"
	"webacq/internal/store"
)

// Prices in credits (service spec 4.1 and 8).
const (
	FetchHTTP      = 1
	FetchBrowser   = 3
	ExtractHTTP    = 5
	ExtractBrowser = 7
	Map            = 1
	SearchBase     = 1
	Preview        = 1
)

// FetchCost is the price of one page on a tier.
func FetchCost(tier string) int64 {
	if tier == model.TierBrowser {
		return FetchBrowser
	}
	return FetchHTTP
}

// ExtractCost is the price of one extraction on a tier.
func ExtractCost(tier string) int64 {
	if tier == model.TierBrowser {
		return ExtractBrowser
	}
	return ExtractHTTP
}

// DefaultReservationTTL is how long a hold outlives the last sign of life
// of its node: a node renews the holds of its calls in flight every third
// of it (so a call may run longer), and once a hold has not been renewed
// for that long, its node is taken for dead and any node refunds it.
const DefaultReservationTTL = 15 * time.Minute

// maxExpireEvery bounds how long an expired hold waits for its refund.
const maxExpireEvery = 30 * time.Second

// ExpireEvery is how often ExpireLoop looks for expired holds under ttl: a
// quarter of it, at most 30 s, so a dead node's credits come back at most
// 30 s after its holds expire.
func ExpireEvery(ttl time.Duration) time.Duration {
	return max(min(ttl/4, maxExpireEvery), time.Millisecond)
}

// renewEvery is how often a node renews its holds under ttl: a hold whose
// renewal is delayed still has two thirds of ttl before it expires.
func renewEvery(ttl time.Duration) time.Duration { return max(ttl/3, time.Millisecond) }

// touchEvery is how stale a key's last_used_at may get before a call
// refreshes it; it spares a write per request.
const touchEvery = time.Minute

// Call is one authenticated call on its way through the service.
type Call struct {
	Principal *model.Principal
	Endpoint  string // "/api/v1/fetch", also for MCP tool calls
	Via       string // model.ViaHTTP or model.ViaMCP
	Method    string
	Target    string // URL or monitor id the call is about
	RequestID string
	Started   time.Time

	// Tier is the tier that did the work (model.TierNone when none).
	Tier string
	// ErrorCode is the code the call failed with, if any.
	ErrorCode string

	mu       sync.Mutex
	res      *store.Reservation
	finished bool
}

// Biller reserves, settles and records. Safe for concurrent use.
type Biller struct {
	store *store.Store
	log   *slog.Logger
	rec   *recorder

	// ReservationTTL is how long a hold lasts unrenewed before any node may
	// refund it (DefaultReservationTTL unless set before use).
	ReservationTTL time.Duration

	// touched remembers when this process last marked each key used.
	touched sync.Map // key id → time.Time

	// held are the reservations of this process's calls in flight, which
	// the renewer keeps from expiring.
	heldMu    sync.Mutex
	held      map[string]struct{}
	startOnce sync.Once // starts the renewer at the first reservation
	stopOnce  sync.Once
	stop      chan struct{}
	renewer   sync.WaitGroup
	limits    limits // the last primitives limit seen per workspace (Peek)
}

// New starts a Biller; Close flushes what it has queued.
func New(s *store.Store, log *slog.Logger) *Biller {
	return &Biller{store: s, log: log, rec: newRecorder(s, log), ReservationTTL: DefaultReservationTTL,
		held: map[string]struct{}{}, stop: make(chan struct{})}
}

// Close writes queued records and stops the background work. Holds of calls
// still running are no longer renewed: they expire like those of a node
// that died.
func (b *Biller) Close() {
	b.stopOnce.Do(func() { close(b.stop) })
	// A reservation made after this must not start a renewer nobody stops.
	b.startOnce.Do(func() {})
	b.renewer.Wait()
	b.rec.close()
}

// hold marks a reservation as its call's, renewed until release.
func (b *Biller) hold(id string) {
	b.startOnce.Do(func() {
		b.renewer.Add(1)
		go b.renewLoop(b.ReservationTTL)
	})
	b.heldMu.Lock()
	b.held[id] = struct{}{}
	b.heldMu.Unlock()
}

func (b *Biller) release(id string) {
	b.heldMu.Lock()
	delete(b.held, id)
	b.heldMu.Unlock()
}

// renewLoop renews every hold of this process every third of ttl, in one
// statement, until Close: a call may run past ttl and still keep what it
// holds, while the holds of a node that died expire ttl after its last
// renewal.
func (b *Biller) renewLoop(ttl time.Duration) {
	defer b.renewer.Done()
	every := renewEvery(ttl)
	t := time.NewTicker(every)
	defer t.Stop()
	var ids []string
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		ids = ids[:0]
		b.heldMu.Lock()
		for id := range b.held {
			ids = append(ids, id)
		}
		b.heldMu.Unlock()
		if len(ids) == 0 {
			continue
		}
		// A renewal that cannot finish before the next one is due is
		// given up; the next one tries again.
		ctx, cancel := context.WithTimeout(context.Background(), every)
		err := b.store.RenewReservations(ctx, ids, ttl)
		cancel()
		if err != nil {
			b.log.Error("renew reservations", "err", err, "count", len(ids))
		}
	}
}

// Flush waits until the rows of every call finished before it are written,
// so a read of the logs sees them.
func (b *Biller) Flush(ctx context.Context) error { return b.rec.flush(ctx) }

// Reserve holds credits for c before its work starts. A call reserves once,
// its maximum cost; credits_exhausted when the balance cannot cover it.
func (b *Biller) Reserve(ctx context.Context, c *Call, credits int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res != nil || c.finished {
		return errors.New("billing: call already reserved or finished")
	}
	r, err := b.store.Reserve(ctx, c.Principal.WorkspaceID, credits, b.ReservationTTL)
	if err != nil {
		return err
	}
	if r.ID != "" {
		b.hold(r.ID)
	}
	c.res = r
	return nil
}

// Reserved is what c holds.
func (c *Call) Reserved() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res == nil {
		return 0
	}
	return c.res.Credits
}

// Finish ends c: it keeps `used` credits of the reservation (a failed call
// keeps none), refunds the rest and writes the usage and activity rows.
// Calls that reserved nothing are queued for the group commit (see
// recorder). Only the first Finish counts.
func (b *Biller) Finish(ctx context.Context, c *Call, used int64, status int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return nil
	}
	c.finished = true
	// The rows must be written even when the client went away.
	ctx = context.WithoutCancel(ctx)
	if c.ErrorCode != "" {
		used = 0
	}
	u, a := c.rows(status)
	keyID := b.staleKey(c.Principal, u.CreatedAt)
	if c.res != nil && c.res.ID != "" {
		// Whatever Settle does, the hold is no longer renewed: settled, or
		// left to expire and be refunded when settling failed.
		b.release(c.res.ID)
		if err := b.store.Settle(ctx, c.res, used, &u, &a, keyID); err != nil {
			return err
		}
		metrics.CreditsDrawn(u.Endpoint, u.Credits)
		return nil
	}
	return b.rec.write(ctx, store.Record{Usage: u, Activity: a, KeyID: keyID})
}

func (c *Call) rows(status int) (model.Usage, model.Activity) {
	p := c.Principal
	ch := Charge{WorkspaceID: p.WorkspaceID, KeyPrefix: p.KeyPrefix, Endpoint: c.Endpoint, Via: c.Via,
		Method: c.Method, Target: c.Target, RequestID: c.RequestID, Tier: c.Tier, Status: status,
		ErrorCode: c.ErrorCode, Started: c.Started, Finished: time.Now().UTC()}
	return ch.rows()
}

// staleKey returns the id of the call's key when its last_used_at should be
// refreshed: at most once per touchEvery per process.
func (b *Biller) staleKey(p *model.Principal, now time.Time) string {
	if p.KeyID == "" || (p.KeyLastUsedAt != nil && now.Sub(*p.KeyLastUsedAt) < touchEvery) {
		return ""
	}
	if last, ok := b.touched.Load(p.KeyID); ok && now.Sub(last.(time.Time)) < touchEvery {
		return ""
	}
	b.touched.Store(p.KeyID, now)
	return p.KeyID
}

// ExpireLoop refunds the holds of dead nodes until ctx ends, looking every
// ExpireEvery(ReservationTTL).
func (b *Biller) ExpireLoop(ctx context.Context) {
	t := time.NewTicker(ExpireEvery(b.ReservationTTL))
	defer t.Stop()
	for {
		if n, err := b.store.ExpireReservations(ctx); err != nil && ctx.Err() == nil {
			b.log.Error("expire reservations", "err", err)
		} else if n > 0 {
			b.log.Warn("refunded abandoned reservations", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Run is the billed path shared by every surface (REST, MCP, monitors): it
// reserves maxCost for c, runs work, and settles the credits work says it
// used. A failed work keeps nothing. The usage and activity rows are
// written before Run returns.
func (b *Biller) Run(ctx context.Context, c *Call, maxCost int64, work func(ctx context.Context) (used int64, err error)) error {
	if err := b.Reserve(ctx, c, maxCost); err != nil {
		c.ErrorCode = model.ErrorCode(err)
		return err
	}
	defer func() {
		// A panicking work is an internal failure, refunded in full; and
		// its hold must not be renewed for the rest of the process's life.
		if v := recover(); v != nil {
			c.ErrorCode = model.CodeInternal
			if ferr := b.Finish(ctx, c, 0, model.Status(c.ErrorCode)); ferr != nil {
				b.log.Error("settle call", "request_id", c.RequestID, "workspace_id", c.Principal.WorkspaceID, "err", ferr)
			}
			panic(v)
		}
	}()
	used, err := work(ctx)
	status := model.Status("")
	if err != nil {
		c.ErrorCode = model.ErrorCode(err)
		status = model.Status(c.ErrorCode)
	}
	if ferr := b.Finish(ctx, c, used, status); ferr != nil {
		// The reservation stays and is refunded when it expires: the
		// workspace never pays for a call whose settlement failed.
		b.log.Error("settle call", "request_id", c.RequestID, "workspace_id", c.Principal.WorkspaceID, "err", ferr)
	}
	return err
}
