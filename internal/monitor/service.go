// Package monitor watches URLs for material changes: registration and its
// rules, the schedule (one River job per active monitor at its due time),
// and the check that anchors, relocates and compares the watched region
// (internal/monitor/detect) and records one run per due time.
package monitor

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/acquire"
	"webacq/internal/alert"
	"webacq/internal/billing"
	"webacq/internal/channel/edgar"
	"webacq/internal/channel/wire"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/store"
)

// Service is the monitors of every workspace. Safe for concurrent use.
type Service struct {
	Store   *store.Store
	Queue   *jobs.Queue
	HTTP    *fetch.Client
	Browser *fetch.Browser // nil: no browser tier
	// Budget is the node's memory budget, shared with the primitives: the
	// bodies, parses and feeds of checks take it (nil: no bound).
	Budget *acquire.Budget
	Log    *slog.Logger
	// Index keeps a changed run's text in the workspace's search index
	// (nil: not kept).
	Index func(ctx context.Context, workspaceID, url, title, markdown string)
	// PerHost bounds this node's concurrent checks of one host.
	PerHost int
	// Workers is the number of this node's check workers, and
	// WorkspaceShare the percentage of them, and of each host's PerHost
	// slots, guaranteed to one workspace's checks (0: 100, no sharing): a
	// workspace may borrow idle ones beyond its share while no other
	// workspace's check waits (docs/MONITORS.md, "Fair share"). The monitor
	// queue runs Runners() jobs at once.
	Workers, WorkspaceShare int
	// Timeout bounds one check's fetch.
	Timeout time.Duration
	// Alerts queues the alerts of runs in their transaction and checks a
	// monitor's alert channels (nil: runs alert nobody; tests).
	Alerts *alert.Service
	// CheckNowInterval is the least time between two check-nows of one
	// monitor (0: no limit; the node's default is a minute).
	CheckNowInterval time.Duration
	// EDGAR reads SEC EDGAR for the edgar_8k channel (nil: channel off).
	EDGAR *edgar.Client
	// Wire fetches the press-wire feeds; WireFeeds has each wire channel's
	// feed URL (a channel without one is off).
	Wire      *wire.Client
	WireFeeds map[string]string
	// LLM runs the extraction previews and the locked extraction of
	// changed runs (nil: extraction unavailable).
	LLM llm.Client

	hosts, workers limiter
	// writers bounds the checks writing their runs at once (writeSlot).
	writers     chan struct{}
	writersOnce sync.Once
}

// Now is the service's clock: the store's, which tests may replace.
func (s *Service) now() time.Time { return s.Store.Now().UTC().Truncate(time.Millisecond) }

// Register validates and stores a monitor and schedules its first check
// now, in one transaction.
func (s *Service) Register(ctx context.Context, p *model.Principal, req RegisterRequest) (*model.Monitor, error) {
	if !p.Monitoring {
		return nil, NotEntitled()
	}
	u, err := s.monitoredURL(req.URL)
	if err != nil {
		return nil, err
	}
	m := &model.Monitor{ID: uuid.NewString(), WorkspaceID: p.WorkspaceID, URL: u.String(), Host: strings.ToLower(u.Hostname()),
		Status: model.MonitorActive}
	if req.Label != nil {
		if m.Label, err = validateLabel(*req.Label); err != nil {
			return nil, err
		}
	}
	if m.Channels, err = validateChannels(req.Channels); err != nil {
		return nil, err
	}
	if m.CheckIntervalHours, err = validateInterval(req.CheckIntervalHours); err != nil {
		return nil, err
	}
	if m.DiscoveryKeywords, err = validateKeywords(req.DiscoveryKeywords); err != nil {
		return nil, err
	}
	if m.ExtractIntent, err = validateIntent(req.ExtractIntent); err != nil {
		return nil, err
	}
	if m.ExtractIntent != "" && s.LLM == nil {
		return nil, badf("extract_intent needs a language model, and this node has none: %s", llm.ConfigureHint)
	}
	if m.AcceptSelectors, err = validateSelectors(req.AcceptSelectors); err != nil {
		return nil, err
	}
	if m.Company, err = validateCompany(req.Company); err != nil {
		return nil, err
	}
	if err := s.checkChannels(m); err != nil {
		return nil, err
	}
	if m.Alerts, err = s.Alerts.Override(p.WorkspaceID, req.Alerts); err != nil {
		return nil, err
	}
	now := s.now()
	m.CreatedAt, m.UpdatedAt, m.NextCheckAt = now, now, now
	err = s.Store.InTx(ctx, func(tx store.Tx) error {
		if err := s.Store.InsertMonitor(ctx, tx, m); err != nil {
			return err
		}
		if err := s.queuePreview(ctx, tx, m); err != nil {
			return err
		}
		return s.schedule(ctx, tx, m, now)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// NotEntitled is the answer to a workspace without the monitoring
// entitlement; it names the command that grants it.
func NotEntitled() error {
	return model.Errorf(model.CodeForbidden, "%s", NotEntitledMessage)
}

// NotEntitledMessage says how an operator enables monitoring.
const NotEntitledMessage = "monitoring is not enabled for this workspace; an operator enables it with " +
	"`webacq workspace update NAME --monitoring`"

// checkPriority puts checks behind alert deliveries (River's default
// priority 1) on the shared queue: a delivery written by a run is taken
// before checks that were waiting, so its latency does not grow with a
// burst of checks (bench/alerts: p99 1.2-2.0 s at 1,000 changed monitors
// before, about 0.2-0.3 s after).
const checkPriority = 2

// CheckArgs is the job of one monitor: it lives as long as the monitor is
// active, runs at the monitor's next_check_at and snoozes until the next
// one after each check, so each active monitor has exactly one job, waiting
// at its due time.
type CheckArgs struct {
	MonitorID string `json:"monitor_id" river:"unique"`
}

// Kind names the job.
func (CheckArgs) Kind() string { return "monitor_check" }

// InsertOpts puts checks on their own queue, one live job per monitor.
// Snoozing does not count as an attempt; attempts are failures of the
// worker itself (a panic), which it otherwise turns into snoozes.
func (CheckArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: jobs.QueueMonitor, MaxAttempts: 25, Priority: checkPriority, UniqueOpts: river.UniqueOpts{ByArgs: true,
		ByState: jobs.LiveStates}}
}

// schedule sets m's next check to due, in tx: it wakes m's job, which
// snoozes until due if that is later, or queues a job when m has none
// (new, resumed, or its job was lost).
func (s *Service) schedule(ctx context.Context, tx store.Tx, m *model.Monitor, due time.Time) error {
	m.NextCheckAt = due.UTC().Truncate(time.Millisecond)
	live, err := s.Queue.WakeTx(ctx, tx, m.JobID)
	if err != nil {
		return err
	}
	if !live {
		// A job given a time is "scheduled" and waits for River's scheduler
		// (seconds); one due now is available to workers at once.
		opts := &river.InsertOpts{}
		if m.NextCheckAt.After(s.now()) {
			opts.ScheduledAt = m.NextCheckAt
		}
		if m.JobID, err = s.Queue.InsertTx(ctx, tx, CheckArgs{MonitorID: m.ID}, opts); err != nil {
			return err
		}
	}
	return s.Store.UpdateMonitor(ctx, tx, m)
}

// nextDue is when m is checked after a run due at due: its interval later
// (four times that while it is in error), never in the past, spread by up
// to 2 % of the interval (at most 5 minutes) so monitors registered
// together drift apart instead of hitting their sites in step.
func nextDue(m *model.Monitor, due, now time.Time) time.Time {
	every := time.Duration(m.CheckIntervalHours) * time.Hour
	if m.Status == model.MonitorError {
		every *= 4
	}
	next := due.Add(every)
	if next.Before(now) {
		next = now.Add(every)
	}
	spread := min(every/50, 5*time.Minute)
	return next.Add(time.Duration(rand.Int64N(int64(spread) + 1)))
}

// Get reads the caller's monitor.
func (s *Service) Get(ctx context.Context, p *model.Principal, id string) (*model.Monitor, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, model.Errorf(model.CodeNotFound, "monitor not found")
	}
	return s.Store.Monitor(ctx, p.WorkspaceID, id)
}

// change runs fn on the caller's monitor, locked, in one transaction.
func (s *Service) change(ctx context.Context, p *model.Principal, id string, fn func(tx store.Tx, m *model.Monitor) error) (*model.Monitor, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, model.Errorf(model.CodeNotFound, "monitor not found")
	}
	var out *model.Monitor
	err := s.Store.InTx(ctx, func(tx store.Tx) error {
		m, err := s.Store.MonitorTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if m.WorkspaceID != p.WorkspaceID {
			return model.Errorf(model.CodeNotFound, "monitor not found")
		}
		if err := fn(tx, m); err != nil {
			return err
		}
		out = m
		return nil
	})
	return out, err
}

// Delete removes the monitor, its runs and its queued check.
func (s *Service) Delete(ctx context.Context, p *model.Principal, id string) error {
	_, err := s.change(ctx, p, id, func(tx store.Tx, m *model.Monitor) error {
		if err := s.Queue.CancelTx(ctx, tx, m.JobID); err != nil {
			return err
		}
		return s.Store.DeleteMonitor(ctx, tx, m.ID)
	})
	return err
}

// Pause stops the schedule: the queued check is cancelled.
func (s *Service) Pause(ctx context.Context, p *model.Principal, id string) (*model.Monitor, error) {
	return s.change(ctx, p, id, func(tx store.Tx, m *model.Monitor) error {
		if m.Status == model.MonitorPaused {
			return nil
		}
		if err := s.Queue.CancelTx(ctx, tx, m.JobID); err != nil {
			return err
		}
		m.Status, m.JobID = model.MonitorPaused, 0
		return s.Store.UpdateMonitor(ctx, tx, m)
	})
}

// Resume makes a paused or failing monitor active and checks it now.
func (s *Service) Resume(ctx context.Context, p *model.Principal, id string) (*model.Monitor, error) {
	return s.change(ctx, p, id, func(tx store.Tx, m *model.Monitor) error {
		if m.Status == model.MonitorActive {
			return nil
		}
		m.Status, m.ConsecutiveErrors = model.MonitorActive, 0
		// The run that resume schedules now counts as a check-now: pausing
		// and resuming is no way around the check-now limit. Within the
		// limit, resume still succeeds and its run comes when the limit
		// allows.
		now := s.now()
		wait, err := s.Store.ClaimCheckNow(ctx, tx, m.ID, now, s.CheckNowInterval)
		if err != nil {
			return err
		}
		return s.schedule(ctx, tx, m, now.Add(wait))
	})
}

// CheckNow moves the next check to now. A paused monitor, which has no
// job, gets one that checks it once; it stays paused. It is limited per
// monitor (CheckNowInterval: rate_limited with the wait), and a workspace
// that cannot pay a run's fetch gets credits_exhausted: nothing is
// scheduled, so no run is written. The run is billed as a scheduled run
// (DECISIONS.md, Monitors).
func (s *Service) CheckNow(ctx context.Context, p *model.Principal, id string) (*model.Monitor, error) {
	return s.change(ctx, p, id, func(tx store.Tx, m *model.Monitor) error {
		now := s.now()
		wait, err := s.Store.ClaimCheckNow(ctx, tx, m.ID, now, s.CheckNowInterval)
		if err != nil {
			return err
		}
		if wait > 0 {
			e := model.Errorf(model.CodeRateLimited, "this monitor was checked on request less than %s ago; retry after %d s",
				s.CheckNowInterval, int(wait.Seconds()+0.999))
			e.RetryAfter = wait
			return e
		}
		if bal, err := s.Store.Balance(ctx, m.WorkspaceID); err != nil {
			return err
		} else if bal < billing.FetchHTTP {
			return model.Errorf(model.CodeCreditsExhausted,
				"the workspace has %d credits; a check costs at least %d", bal, billing.FetchHTTP)
		}
		return s.schedule(ctx, tx, m, now)
	})
}

// Patch changes the mutable settings with the registration rules. New
// keywords or channels re-anchor on the next run; a new interval moves the
// next check.
func (s *Service) Patch(ctx context.Context, p *model.Principal, id string, req PatchRequest) (*model.Monitor, error) {
	if err := immutable("url", req.URL); err != nil {
		return nil, err
	}
	if err := immutable("extract_intent", req.ExtractIntent); err != nil {
		return nil, err
	}
	return s.change(ctx, p, id, func(tx store.Tx, m *model.Monitor) error {
		var err error
		if req.Label != nil {
			if m.Label, err = validateLabel(*req.Label); err != nil {
				return err
			}
		}
		if req.Channels != nil {
			cs, err := validateChannels(req.Channels)
			if err != nil {
				return err
			}
			if !sameStrings(cs, m.Channels) {
				m.Channels, m.Reanchor = cs, true
			}
			if err := s.checkChannels(m); err != nil {
				return err
			}
		}
		if req.DiscoveryKeywords != nil {
			ks, err := validateKeywords(req.DiscoveryKeywords)
			if err != nil {
				return err
			}
			if !sameStrings(ks, m.DiscoveryKeywords) {
				m.DiscoveryKeywords, m.Reanchor = ks, true
			}
		}
		if req.AcceptSelectors != nil {
			if m.AcceptSelectors, err = validateSelectors(req.AcceptSelectors); err != nil {
				return err
			}
		}
		if len(req.Alerts) > 0 {
			if m.Alerts, err = s.Alerts.Override(m.WorkspaceID, req.Alerts); err != nil {
				return err
			}
		}
		reschedule := false
		if req.CheckIntervalHours != nil {
			h, err := validateInterval(req.CheckIntervalHours)
			if err != nil {
				return err
			}
			reschedule = h != m.CheckIntervalHours && m.Status != model.MonitorPaused && m.LastChecked != nil
			m.CheckIntervalHours = h
		}
		if reschedule {
			return s.schedule(ctx, tx, m, nextDue(m, *m.LastChecked, s.now()))
		}
		return s.Store.UpdateMonitor(ctx, tx, m)
	})
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Reconcile repairs the schedule: an active monitor overdue by more than
// two seconds whose job is waiting for a later time (a check-now that met
// its job between the run's commit and River's snooze of it) is woken, and
// one whose job is gone is given a new one. It returns how many it fixed.
// Every node runs it every few seconds (ReconcileLoop).
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	ids, err := s.Store.StrandedMonitors(ctx, s.now().Add(-2*time.Second), 500)
	if err != nil {
		return 0, err
	}
	fixed := 0
	for _, id := range ids {
		err := s.Store.InTx(ctx, func(tx store.Tx) error {
			m, err := s.Store.MonitorTx(ctx, tx, id)
			if err != nil || m.Status == model.MonitorPaused {
				return err
			}
			fixed++
			return s.schedule(ctx, tx, m, m.NextCheckAt)
		})
		if err != nil && model.ErrorCode(err) != model.CodeNotFound {
			return fixed, err
		}
	}
	return fixed, nil
}

// ReconcileLoop runs Reconcile every period until ctx ends.
func (s *Service) ReconcileLoop(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := s.Reconcile(ctx); err != nil && ctx.Err() == nil && s.Log != nil {
			s.Log.Warn("monitor schedule repair", "err", err)
		} else if n > 0 && s.Log != nil {
			s.Log.Debug("monitor schedule repaired", "monitors", n)
		}
	}
}
