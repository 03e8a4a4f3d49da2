package httpapi

import (
	"net/http"
	"strconv"

	"webacq/internal/model"
)

// ownSlot are the routes whose handlers take a concurrency slot themselves,
// when they need one: POST /api/v1/gyre takes one for a synchronous crawl
// only (billed.GyreAny), not to queue a job or read one.
var ownSlot = map[string]bool{"POST /api/v1/gyre": true}

// gyreJobRoutes are the asynchronous crawls (DECISIONS, Async gyre).
func (s *Server) gyreJobRoutes() {
	s.handle("GET /api/v1/gyre/{job_id}", s.gyreJob)
	s.handle("DELETE /api/v1/gyre/{job_id}", s.cancelGyreJob)
}

// gyreJob serves GET /api/v1/gyre/{job_id}?limit=&next=: free, answered
// as POST /api/v1/gyre answers {job_id, limit, next}.
func (s *Server) gyreJob(w http.ResponseWriter, r *http.Request) {
	call := infoOf(r).call
	id := r.PathValue("job_id")
	call.Target = id
	limit := 0
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fail(w, r, s.log, model.Errorf(model.CodeBadRequest, "limit must be a whole number"))
			return
		}
		limit = n
	}
	req, err := s.billed.GyreJobRequest(id, limit, q.Get("next"))
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := s.billed.GyreAny(r.Context(), call, req, nil)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// cancelGyreJob serves DELETE /api/v1/gyre/{job_id}: the job ends
// cancelled, its pages so far stay billed, the rest of its hold is
// refunded; it answers the job as GET does.
func (s *Server) cancelGyreJob(w http.ResponseWriter, r *http.Request) {
	call := infoOf(r).call
	id := r.PathValue("job_id")
	call.Target = id
	res, err := s.billed.CancelGyreJob(r.Context(), call, id)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}
