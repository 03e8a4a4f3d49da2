package crawljob

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
)

// AddWorkers registers the crawl worker.
func (s *Service) AddWorkers(w *river.Workers) {
	river.AddWorker(w, &worker{s: s})
}

type worker struct {
	river.WorkerDefaults[Args]
	s *Service
}

// settleTime is what a job may take beyond its crawl's timeout: reading
// its saved pages, ending the crawl's pages in flight, settling.
const settleTime = 15 * time.Second

// Timeout lets a crawl run its timeout, with room to settle.
func (w *worker) Timeout(job *river.Job[Args]) time.Duration {
	ms := job.Args.TimeoutMS
	if ms <= 0 {
		ms = primitive.GyreMaxTimeout
	}
	return time.Duration(ms)*time.Millisecond + settleTime
}

// Work runs (or resumes) one crawl job. It takes one of the workspace's
// concurrency slots for as long as it runs (a job finding them all taken
// waits in the queue), crawls from the pages already saved, and settles
// the job. A job whose context ends before the crawl does (the node is
// stopping) returns the error: the job is retried and resumes from its
// saved pages.
func (w *worker) Work(ctx context.Context, job *river.Job[Args]) error {
	s := w.s
	j, err := s.Store.GyreJob(ctx, "", job.Args.JobID)
	if model.ErrorCode(err) == model.CodeNotFound {
		return nil // pruned
	}
	if err != nil {
		return err
	}
	if j.Final() {
		return nil
	}
	ws, err := s.Store.Workspace(ctx, j.WorkspaceID)
	if err != nil {
		return err
	}
	p := &model.Principal{WorkspaceID: ws.ID, KeyPrefix: j.KeyPrefix, RPM: ws.RPM, Concurrent: ws.Concurrent}
	end, err := s.Biller.StartCall(ctx, p, Endpoint)
	if err != nil && model.ErrorCode(err) == model.CodeRateLimited {
		return river.JobSnooze(busyWait)
	}
	if err != nil {
		return err
	}
	defer end()
	if ok, err := s.Store.StartGyreJob(ctx, j.ID); err != nil || !ok {
		return err
	}
	var req primitive.GyreRequest
	if err := json.Unmarshal(j.Request, &req); err != nil {
		return w.fail(ctx, j.ID, job, fmt.Errorf("crawljob: request: %w", err))
	}
	rows, err := s.Store.GyreJobPages(ctx, j.ID, -1, 0)
	if err != nil {
		return err
	}
	journal := &primitive.GyreJournal{Save: w.saver(j.ID, *req.MaxPages)}
	for _, r := range rows {
		d := primitive.GyreDone{Depth: r.Depth}
		if err := json.Unmarshal(r.Page, &d.Page); err != nil {
			return err
		}
		if err := json.Unmarshal(r.Keys, &d.Keys); err != nil {
			return err
		}
		if err := json.Unmarshal(r.Links, &d.Links); err != nil {
			return err
		}
		journal.Done = append(journal.Done, d)
	}
	res, err := s.Prims.GyreJournaled(ctx, j.WorkspaceID, req, journal, nil)
	if ctx.Err() != nil {
		// Stopped, not finished: the next attempt resumes.
		return ctx.Err()
	}
	if err != nil && model.ErrorCode(err) == model.CodeInternal && job.Attempt < job.MaxAttempts {
		// A fault of this node (the database): the next attempt resumes.
		return err
	}
	if err != nil {
		return w.fail(ctx, j.ID, job, err)
	}
	return s.end(ctx, j.ID, store.GyreCompleted, res.Errors, job)
}

// fail ends a job whose crawl failed, saying why in its errors.
func (w *worker) fail(ctx context.Context, id string, job *river.Job[Args], err error) error {
	code := model.ErrorCode(err)
	msg := model.ErrorMessage(err)
	if code == model.CodeInternal {
		w.s.Log.Error("crawl job", "job_id", id, "err", err)
		msg = "internal error"
	}
	return w.s.end(ctx, id, store.GyreFailed, []primitive.GyreError{{Error: msg, Code: code}}, job)
}

// saver saves each page a job takes; a page the store refuses (the job was
// cancelled or is full) ends the crawl.
func (w *worker) saver(jobID string, maxPages int) func(ctx context.Context, d primitive.GyreDone) (bool, error) {
	return func(ctx context.Context, d primitive.GyreDone) (bool, error) {
		page, err := json.Marshal(d.Page)
		if err != nil {
			return false, err
		}
		keys, _ := json.Marshal(d.Keys)
		links, _ := json.Marshal(d.Links)
		key := d.Page.URL
		if len(d.Keys) > 0 {
			key = d.Keys[0]
		}
		return w.s.Store.SaveGyreJobPage(context.WithoutCancel(ctx), jobID, maxPages,
			&store.GyreJobPage{URLKey: key, Credits: billing.FetchCost(d.Page.Tier), Depth: d.Depth,
				Page: page, Keys: keys, Links: links})
	}
}
