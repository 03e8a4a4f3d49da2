// Package crawljob runs asynchronous crawls (DECISIONS, Async gyre): a crawl
// queued as a job holds its credits from the moment it is queued, runs on
// the job engine on any worker node, saves each page to the database as it
// takes it (its results and its frontier), resumes on another worker when
// its worker dies, and is settled once when it ends: the saved pages are
// billed, the rest of the hold refunded, and the workspace's webhook told.
package crawljob

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/billing"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
)

// Queue is the job engine's queue of crawls.
const Queue = "gyre"

// Endpoint is the endpoint crawl jobs are billed and limited as.
const Endpoint = "/api/v1/gyre"

// busyWait is how long a job waits for one of its workspace's concurrency
// slots before it tries again.
const busyWait = 5 * time.Second

// Args is the job of one crawl. TimeoutMS is the crawl's timeout: the job
// may run that long and settle, and River takes its worker for dead only
// after it (plus WEBACQ_JOB_RESCUE_AFTER).
type Args struct {
	JobID     string `json:"job_id"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
}

// Kind names the job.
func (Args) Kind() string { return "gyre" }

// Service queues, runs, reads and cancels crawl jobs. Safe for concurrent
// use.
type Service struct {
	Store  *store.Store
	Queue  *jobs.Queue
	Biller *billing.Biller
	Prims  *primitive.Service
	// Alerts delivers gyre.completed to the workspace's webhook (nil: none).
	Alerts *alert.Service
	Log    *slog.Logger
}

// Queued is the answer to a crawl queued.
type Queued struct {
	JobID  string `json:"job_id"`
	Status string `json:"status"`
}

// Status is the answer of a read (GET /api/v1/gyre/{job_id}): the job's
// state, its counts and a page of its results. Next is null when no page
// follows those returned yet; a running job may add more later.
type Status struct {
	JobID       string                `json:"job_id"`
	Status      string                `json:"status"`
	TotalPages  int                   `json:"totalPages"`
	CreditsUsed int64                 `json:"creditsUsed"`
	Pages       []primitive.GyrePage  `json:"pages"`
	Next        *string               `json:"next"`
	Errors      []primitive.GyreError `json:"errors"`
}

// Start queues a normalised crawl for call's workspace: the hold (maxCost),
// the job's row and its River job are written in one transaction, so a
// crash loses none of them and holds nothing for a job that does not exist.
func (s *Service) Start(ctx context.Context, call *billing.Call, req primitive.GyreRequest, maxCost int64) (*Queued, error) {
	req.GyreAsync = primitive.GyreAsync{}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	j := &store.GyreJob{ID: uuid.NewString(), WorkspaceID: call.Principal.WorkspaceID, KeyPrefix: call.Principal.KeyPrefix,
		Status: store.GyreQueued, Request: body, Held: maxCost, RequestID: call.RequestID, Via: call.Via,
		CreatedAt: s.Store.Now().UTC()}
	err = s.Store.InTx(ctx, func(tx store.Tx) error {
		paid, err := s.Store.DrawCredits(ctx, tx, j.WorkspaceID, maxCost)
		if err != nil {
			return err
		}
		if !paid {
			return model.Errorf(model.CodeCreditsExhausted, "not enough credits: this call needs %d", maxCost)
		}
		if j.RiverJobID, err = s.Queue.InsertTx(ctx, tx, Args{JobID: j.ID, TimeoutMS: *req.Timeout},
			&river.InsertOpts{Queue: Queue}); err != nil {
			return err
		}
		return s.Store.InsertGyreJob(ctx, tx, j)
	})
	if err != nil {
		return nil, err
	}
	return &Queued{JobID: j.ID, Status: j.Status}, nil
}

// Read answers a job of workspaceID: its state and up to limit pages after
// next ("" from the first).
func (s *Service) Read(ctx context.Context, workspaceID, jobID string, limit int, next string) (*Status, error) {
	after := -1
	if next != "" {
		n, err := strconv.Atoi(next)
		if err != nil || n < 0 {
			return nil, model.Errorf(model.CodeBadRequest, "next must be the next value of an earlier answer")
		}
		after = n
	}
	j, err := s.Store.GyreJob(ctx, workspaceID, jobID)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.GyreJobPages(ctx, jobID, after, limit+1)
	if err != nil {
		return nil, err
	}
	st := &Status{JobID: j.ID, Status: j.Status, TotalPages: j.Pages, CreditsUsed: j.Spent,
		Pages: make([]primitive.GyrePage, 0, min(len(rows), limit)), Errors: []primitive.GyreError{}}
	if j.Final() {
		st.CreditsUsed = j.CreditsUsed
		if err := json.Unmarshal(j.Errors, &st.Errors); err != nil {
			return nil, err
		}
	}
	if len(rows) > limit {
		rows = rows[:limit]
		n := strconv.Itoa(rows[len(rows)-1].Seq)
		st.Next = &n
	}
	for _, r := range rows {
		var p primitive.GyrePage
		if err := json.Unmarshal(r.Page, &p); err != nil {
			return nil, err
		}
		st.Pages = append(st.Pages, p)
	}
	return st, nil
}

// Cancel ends a queued or running job of workspaceID: the pages it saved
// stay billed, the rest of its hold is refunded, and a job that has not
// run will not. A job that has ended is answered as it is.
func (s *Service) Cancel(ctx context.Context, workspaceID, jobID string) (*Status, error) {
	j, err := s.Store.GyreJob(ctx, workspaceID, jobID)
	if err != nil {
		return nil, err
	}
	if !j.Final() {
		if err := s.end(ctx, j.ID, store.GyreCancelled, nil, nil); err != nil {
			return nil, err
		}
	}
	return s.Read(ctx, workspaceID, jobID, primitive.GyreJobDefaultLimit, "")
}

// end settles a job once, in one transaction: it records its final status
// and errors, refunds the hold, draws the price of the pages saved (the
// usage and activity rows say so), queues the webhook delivery, cancels
// the job's River job, or completes it when job is the running one. A job
// that has ended already is left as it is.
func (s *Service) end(ctx context.Context, id, status string, errs []primitive.GyreError, job *river.Job[Args]) error {
	ctx = context.WithoutCancel(ctx)
	var ej []byte
	if errs != nil {
		var err error
		if ej, err = json.Marshal(errs); err != nil {
			return err
		}
	}
	cur, err := s.Store.GyreJob(ctx, "", id)
	if err != nil {
		return err
	}
	hook, err := s.Alerts.HasWebhook(ctx, cur.WorkspaceID)
	if err != nil {
		return err
	}
	return s.Store.InTx(ctx, func(tx store.Tx) error {
		j, err := s.Store.EndGyreJobTx(ctx, tx, id, status, ej)
		if err != nil {
			return err
		}
		if j != nil {
			if err := s.settle(ctx, tx, j, hook); err != nil {
				return err
			}
			if job == nil {
				if err := s.Queue.CancelTx(ctx, tx, j.RiverJobID); err != nil {
					return err
				}
			}
		}
		if job != nil {
			return jobs.CompleteTx(ctx, tx, job)
		}
		return nil
	})
}

// settle refunds an ended job's hold and draws what its pages cost, in
// tx, through the charge path of acts recorded in a transaction.
func (s *Service) settle(ctx context.Context, tx store.Tx, j *store.GyreJob, hook bool) error {
	if err := s.Store.RefundTx(ctx, tx, j.WorkspaceID, j.Held); err != nil {
		return err
	}
	var req primitive.GyreRequest
	_ = json.Unmarshal(j.Request, &req)
	code, httpStatus := "", 200
	if j.Status == store.GyreFailed {
		code = model.CodeUpstreamError
		httpStatus = model.Status(code)
	}
	tier := model.TierNone
	switch {
	case j.MaxPageCredits >= billing.FetchBrowser:
		tier = model.TierBrowser
	case j.MaxPageCredits > 0:
		tier = model.TierHTTP
	}
	paid, err := billing.ChargeTx(ctx, s.Store, tx, billing.Charge{WorkspaceID: j.WorkspaceID, KeyPrefix: j.KeyPrefix,
		Endpoint: Endpoint, Via: j.Via, Method: "POST", Target: req.URL, RequestID: j.RequestID, Tier: tier,
		Status: httpStatus, ErrorCode: code, Credits: j.CreditsUsed, Started: j.CreatedAt, Finished: *j.FinishedAt})
	if err != nil {
		return err
	}
	if !paid {
		// The hold was refunded just before: it covers what was used.
		return errors.New("crawljob: settle: the refunded hold did not cover the pages")
	}
	if !hook {
		return nil
	}
	return s.Alerts.QueueGyre(ctx, tx, j.WorkspaceID, alert.GyreCompleted{JobID: j.ID, Status: j.Status,
		TotalPages: j.Pages, CreditsUsed: j.CreditsUsed})
}

// Prune deletes the jobs that ended before cutoff, with their pages.
func (s *Service) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	return s.Store.PruneGyreJobs(ctx, cutoff)
}

// PruneArgs deletes the crawl jobs that ended more than the page
// retention period ago, with their pages.
type PruneArgs struct{}

// Kind names the job.
func (PruneArgs) Kind() string { return "prune_gyre_jobs" }

// Periodic registers the pruning of ended jobs kept for retention and
// returns its periodic job (hourly, queued by whichever node leads, on the
// maintenance queue, one at a time).
func (s *Service) Periodic(w *river.Workers, retention time.Duration) *river.PeriodicJob {
	river.AddWorker(w, river.WorkFunc(func(ctx context.Context, _ *river.Job[PruneArgs]) error {
		n, err := s.Prune(ctx, s.Store.Now().Add(-retention))
		if n > 0 {
			s.Log.Info("pruned", "crawl_jobs", n)
		}
		return err
	}))
	opts := jobs.OneAtATime()
	return river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, opts },
		&river.PeriodicJobOpts{ID: "prune_gyre_jobs", RunOnStart: true})
}

// SweepArgs is the periodic sweep of crawl jobs stranded without a River
// job.
type SweepArgs struct{}

// Kind names the job.
func (SweepArgs) Kind() string { return "fail_stranded_gyre_jobs" }

// StrandedGrace is how long a crawl job must have been queued or running
// without a live River job before the sweep fails it: longer than River
// takes to rescue the job of a dead node (rescueAfter, or the longest
// crawl's timeout if longer, plus the rescuer's 30 s round).
func StrandedGrace(rescueAfter time.Duration) time.Duration {
	return max(rescueAfter, primitive.GyreMaxTimeout*time.Millisecond+settleTime) + time.Minute
}

// SweepPeriodic registers the sweep of stranded crawl jobs and returns its
// periodic job (every minute, one waiting or running at a time).
func (s *Service) SweepPeriodic(w *river.Workers, grace time.Duration) *river.PeriodicJob {
	river.AddWorker(w, river.WorkFunc(func(ctx context.Context, _ *river.Job[SweepArgs]) error {
		n, err := s.FailStranded(ctx, grace)
		if n > 0 {
			s.Log.Warn("crawl jobs left without a job failed", "count", n)
		}
		return err
	}))
	opts := jobs.OneAtATime()
	return river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return SweepArgs{}, opts },
		&river.PeriodicJobOpts{ID: "fail_stranded_gyre_jobs", RunOnStart: true})
}

// errStranded is the error of a crawl job whose River job ended without
// settling it.
var errStranded = primitive.GyreError{Code: model.CodeInternal,
	Error: "internal error: the crawl's worker stopped during its last attempt"}

// FailStranded fails the crawl jobs queued or running for longer than
// grace whose River job will not run again (River discards the job of a
// node that died during its last attempt; after 10 attempts a crawl that
// kills its node is not tried again): each is settled as a failure would
// be (the pages saved are billed, the rest of the hold refunded, the
// webhook queued), instead of holding its credits and staying running for
// ever. It returns how many it failed.
func (s *Service) FailStranded(ctx context.Context, grace time.Duration) (int, error) {
	ids, err := s.Store.StrandedGyreJobs(ctx, s.Store.Now().Add(-grace), 500)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		if err := s.end(ctx, id, store.GyreFailed, []primitive.GyreError{errStranded}, nil); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}
