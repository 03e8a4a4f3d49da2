package billed

import (
	"context"

	"webacq/internal/billing"
	"webacq/internal/crawljob"
	"webacq/internal/model"
	"webacq/internal/primitive"
)

// SetGyreJobs gives the service the crawl jobs that the asynchronous form
// of gyre queues and reads (nil: that form answers unavailable).
func (s *Service) SetGyreJobs(j *crawljob.Service) { s.jobs = j }

// GyreAny serves every form of the gyre body, for REST and MCP alike: a
// crawl (the answer is a *primitive.GyreResult), {async: true, …} (a
// crawl queued: *crawljob.Queued), or {job_id, limit?, next?} (a read of a
// job: *crawljob.Status, free). Only the synchronous crawl takes one of the
// workspace's concurrency slots here: a job takes it when it runs, and
// reading a job takes none.
func (s *Service) GyreAny(ctx context.Context, call *billing.Call, req primitive.GyreRequest, progress func(done, total int)) (any, error) {
	switch {
	case req.IsPoll():
		call.Target = req.JobID
		if err := req.Poll(); err != nil {
			return nil, err
		}
		if s.jobs == nil {
			return nil, errNoJobs()
		}
		return s.jobs.Read(ctx, call.Principal.WorkspaceID, req.JobID, *req.Limit, req.Next)
	case req.Async:
		return s.GyreAsync(ctx, call, req)
	}
	if err := req.CheckCrawl(); err != nil {
		return nil, err
	}
	end, err := s.biller.StartCall(ctx, call.Principal, call.Endpoint)
	if err != nil {
		return nil, err
	}
	defer end()
	return s.Gyre(ctx, call, req, progress)
}

// GyreAsync queues a crawl: the request is checked and priced as a
// synchronous one, and its hold drawn with the job. The call itself costs
// nothing; the job's pages are billed when it ends.
func (s *Service) GyreAsync(ctx context.Context, call *billing.Call, req primitive.GyreRequest) (*crawljob.Queued, error) {
	call.Target = req.URL
	if err := req.CheckCrawl(); err != nil {
		return nil, err
	}
	browser := s.browser()
	if err := req.Normalize(s.prims.HTTP.CheckURL, browser); err != nil {
		return nil, err
	}
	if s.jobs == nil {
		return nil, errNoJobs()
	}
	q, err := s.jobs.Start(ctx, call, req, req.MaxCost(browser))
	return q, teach(err, req.HoldHint(browser))
}

func errNoJobs() error {
	return model.Errorf(model.CodeUnavailable, "asynchronous crawls are not available on this node")
}

// GyreJobRequest is the gyre body that reads job id (limit 0: the
// default), as GET /api/v1/gyre/{job_id} passes it on.
func (s *Service) GyreJobRequest(id string, limit int, next string) (primitive.GyreRequest, error) {
	req := primitive.GyreRequest{GyreAsync: primitive.GyreAsync{JobID: id, Next: next}}
	if limit != 0 {
		req.Limit = &limit
	}
	if id == "" {
		return req, model.Errorf(model.CodeBadRequest, "job_id is required")
	}
	return req, nil
}

// CancelGyreJob cancels a crawl job of call's workspace (free).
func (s *Service) CancelGyreJob(ctx context.Context, call *billing.Call, id string) (*crawljob.Status, error) {
	call.Target = id
	if s.jobs == nil {
		return nil, errNoJobs()
	}
	return s.jobs.Cancel(ctx, call.Principal.WorkspaceID, id)
}
