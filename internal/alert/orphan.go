package alert

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/jobs"
	"webacq/internal/metrics"
	"webacq/internal/model"
	"webacq/internal/store"
)

// ClassAbandoned is the error class of an attempt that never recorded an
// answer: its node died during the job's last attempt (River's rescuer then
// discards the job) or the job ended on an error there.
const ClassAbandoned = "abandoned"

// RequeueOrphansArgs is the periodic sweep of deliveries left pending
// without a job.
type RequeueOrphansArgs struct{}

// Kind names the job.
func (RequeueOrphansArgs) Kind() string { return "requeue_orphaned_deliveries" }

// OrphanGrace is how long a delivery must have been pending without a job
// before the sweep takes it: longer than River takes to rescue the job of a
// dead node (rescueAfter, or the delivery job's timeout if longer, plus the
// rescuer's 30 s round), so that only what River gave up on is taken.
func (s *Service) OrphanGrace(rescueAfter time.Duration) time.Duration {
	return max(rescueAfter, s.timeout()+20*time.Second) + time.Minute
}

// Periodic returns the sweep of orphaned deliveries, every minute, whichever
// node leads queueing it and one waiting or running at a time; grace is
// OrphanGrace. Its worker is registered by AddWorkers.
func (s *Service) Periodic(grace time.Duration) *river.PeriodicJob {
	s.orphanGrace = grace
	opts := jobs.OneAtATime()
	return river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return RequeueOrphansArgs{}, opts },
		&river.PeriodicJobOpts{ID: "requeue_orphaned_deliveries", RunOnStart: true})
}

func (s *Service) requeueOrphans(ctx context.Context, _ *river.Job[RequeueOrphansArgs]) error {
	requeued, failed, err := s.RequeueOrphans(ctx, s.orphanGrace)
	if requeued+failed > 0 && s.Log != nil {
		s.Log.Warn("deliveries left pending without a job", "requeued", requeued, "failed", failed)
	}
	return err
}

// RequeueOrphans takes the deliveries pending for longer than grace with
// no job that will send them, so that none stays pending for ever and
// holds back the later deliveries of its monitor (they wait for it:
// EarlierPending). Each one's lost attempt is logged as abandoned and one
// more attempt is queued, in the same transaction: the series had reached
// its last attempt (River discards a job only there) and that attempt
// never got an answer, so the delivery gets the attempt it was owed, not a
// new schedule (redeliver gives one). A delivery whose last attempt was
// already abandoned is failed instead: it has had its one more attempt,
// and one that kills its node every time must not hold its monitor back.
// Deliveries stay in order: the requeued job still waits for any earlier
// pending one of its monitor.
func (s *Service) RequeueOrphans(ctx context.Context, grace time.Duration) (requeued, failed int, err error) {
	ids, err := s.Store.OrphanedDeliveries(ctx, s.now().Add(-grace), 500)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		var d *model.Delivery
		status := ""
		err := s.Store.InTx(ctx, func(tx store.Tx) error {
			attempts, last, ok, err := s.Store.TakeOrphan(ctx, tx, id)
			if err != nil || !ok {
				return err
			}
			a := model.DeliveryAttempt{At: s.now(), ErrorClass: ClassAbandoned,
				Response: "no answer was recorded: the job of this attempt ended without one (its node stopped, or it failed before recording)"}
			if last == ClassAbandoned {
				status = model.DeliveryFailed
				return s.Store.RecordAttemptTx(ctx, tx, id, status, a)
			}
			status = model.DeliveryPending
			if err := s.Store.RecordAttemptTx(ctx, tx, id, status, a); err != nil {
				return err
			}
			_, err = s.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: id, Base: attempts + 1, Last: true}, nil)
			return err
		})
		if err != nil {
			return requeued, failed, err
		}
		if status == "" {
			continue
		}
		if d, err = s.Store.Delivery(ctx, id); err == nil {
			metrics.DeliveryAttempt(d.Kind, status)
		}
		if status == model.DeliveryFailed {
			failed++
		} else {
			requeued++
		}
	}
	return requeued, failed, nil
}
