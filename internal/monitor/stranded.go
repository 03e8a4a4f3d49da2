package monitor

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/jobs"
	"webacq/internal/model"
)

// PreviewSweepArgs is the periodic sweep of registration previews whose
// job River discarded.
type PreviewSweepArgs struct{}

// Kind names the job.
func (PreviewSweepArgs) Kind() string { return "fail_stranded_previews" }

// PreviewSweep returns the periodic job of the sweep (every minute, one
// waiting or running at a time); AddWorkers registers its worker.
func (s *Service) PreviewSweep() *river.PeriodicJob {
	opts := jobs.OneAtATime()
	return river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return PreviewSweepArgs{}, opts },
		&river.PeriodicJobOpts{ID: "fail_stranded_previews", RunOnStart: true})
}

func (s *Service) sweepPreviews(ctx context.Context, _ *river.Job[PreviewSweepArgs]) error {
	n, err := s.FailStrandedPreviews(ctx)
	if n > 0 && s.Log != nil {
		s.Log.Warn("registration previews left without a job failed", "count", n)
	}
	return err
}

// errPreviewStranded is the failure of a registration preview whose job
// ended without recording one.
var errPreviewStranded = model.Errorf(model.CodeInternal,
	"the preview's worker stopped during its last attempt; ask for a preview again")

// FailStrandedPreviews records a failed preview (not billed) for each
// monitor whose registration preview job River discarded with no preview
// made (its node died during the last attempt), so that its extraction
// says failed, and the user can ask for a preview, instead of pending for
// ever. Failed, not queued again: the job had all its attempts, and one
// that kills its node would otherwise be retried for ever. It returns how
// many it recorded. No grace is needed: River discards only a job it will
// not run again.
func (s *Service) FailStrandedPreviews(ctx context.Context) (int, error) {
	ids, err := s.Store.StrandedPreviews(ctx, 500)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		m, err := s.Store.MonitorByID(ctx, id)
		if model.ErrorCode(err) == model.CodeNotFound {
			continue
		}
		if err != nil {
			return i, err
		}
		if !needsPreview(m) {
			continue
		}
		if err := s.recordPreview(ctx, id, s.failedPreview(errPreviewStranded, m.Extraction.Refinements),
			model.TierNone, s.now()); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}
