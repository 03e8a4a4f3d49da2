package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"webacq/internal/store"
)

// ExpireHoldsArgs refunds credit holds whose node died before settling.
type ExpireHoldsArgs struct{}

// Kind names the job.
func (ExpireHoldsArgs) Kind() string { return "expire_holds" }

// PruneArgs drops stored pages, run snapshots, settled alert deliveries and
// log rows past their retention.
type PruneArgs struct{}

// Kind names the job.
func (PruneArgs) Kind() string { return "prune" }

// Housekeeping is the periodic upkeep of the database.
type Housekeeping struct {
	Store *store.Store
	Log   *slog.Logger
	// ExpireEvery is how often expired holds are looked for.
	ExpireEvery time.Duration
	// PageRetention and SnapshotRetention bound what is kept.
	PageRetention, SnapshotRetention time.Duration
	// LogRetention bounds the activity log and the usage rows that drew
	// no credits (0 keeps them); the ledger's rows stay.
	LogRetention time.Duration
}

// LiveStates are the states of a job that is still to run or running: a
// job unique by them has one such copy at a time.
var LiveStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled}

// OneAtATime is the insert options of a housekeeping job: on the
// maintenance queue, one job of a kind waiting or running at a time
// however many nodes queue it.
func OneAtATime() *river.InsertOpts {
	return &river.InsertOpts{Queue: QueueMaintenance, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: LiveStates}}
}

// Register adds the housekeeping workers and returns the periodic jobs that
// queue pruning (whichever node leads queues them, any node works them).
// Refunding abandoned credit holds is queued by every node instead
// (ExpireHolds): a leader that died keeps its lease for 15 s, and a dead
// node's credits should not wait for a new leader on top of their expiry.
func (h *Housekeeping) Register(w *river.Workers) []*river.PeriodicJob {
	river.AddWorker(w, river.WorkFunc(h.expire))
	river.AddWorker(w, river.WorkFunc(h.prune))
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, OneAtATime() },
			&river.PeriodicJobOpts{ID: "prune", RunOnStart: true}),
	}
}

// ExpireHolds queues the refund of abandoned credit holds every
// h.ExpireEvery until ctx ends; whichever worker is free runs it, and one
// waits at a time however many nodes queue it.
func (h *Housekeeping) ExpireHolds(ctx context.Context, q *Queue) {
	t := time.NewTicker(h.ExpireEvery)
	defer t.Stop()
	// One job per period however many nodes queue it; by period, not by
	// state, so that a job left running by a node that died does not hold
	// back the next ones until River rescues it.
	opts := &river.InsertOpts{Queue: QueueMaintenance,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: max(h.ExpireEvery, time.Second)}}
	for {
		if err := q.Insert(ctx, ExpireHoldsArgs{}, opts); err != nil && ctx.Err() == nil {
			h.Log.Warn("queue expire_holds", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (h *Housekeeping) expire(ctx context.Context, _ *river.Job[ExpireHoldsArgs]) error {
	n, err := h.Store.ExpireReservations(ctx)
	if n > 0 {
		h.Log.Warn("refunded abandoned reservations", "count", n)
	}
	return err
}

func (h *Housekeeping) prune(ctx context.Context, _ *river.Job[PruneArgs]) error {
	now := h.Store.Now()
	pages, err := h.Store.PrunePages(ctx, now.Add(-h.PageRetention))
	if err != nil {
		return err
	}
	snaps, err := h.Store.PruneRunSnapshots(ctx, now.Add(-h.SnapshotRetention))
	if err != nil {
		return err
	}
	deliveries, err := h.Store.PruneDeliveries(ctx, now.Add(-h.SnapshotRetention))
	if err != nil {
		return err
	}
	var usage, activity int64
	if h.LogRetention > 0 {
		if usage, activity, err = h.Store.PruneLogs(ctx, now.Add(-h.LogRetention)); err != nil {
			return err
		}
	}
	if pages+snaps+deliveries+usage+activity > 0 {
		h.Log.Info("pruned", "pages", pages, "run_snapshots", snaps, "deliveries", deliveries,
			"usage", usage, "activity", activity)
	}
	return nil
}
