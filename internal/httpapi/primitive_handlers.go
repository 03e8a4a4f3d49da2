package httpapi

import (
	"context"
	"net/http"

	"webacq/internal/billing"
	"webacq/internal/primitive"
)

// servePrimitive is the one shape of the primitive endpoints: decode the
// body, run the billed primitive with the call the middleware opened,
// respond. The billing itself lives in the billed service.
func servePrimitive[Req, Res any](s *Server, w http.ResponseWriter, r *http.Request,
	op func(context.Context, *billing.Call, Req) (Res, error)) {
	var req Req
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := op(r.Context(), infoOf(r).call, req)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// fetch serves POST /api/v1/fetch. The page's share of the node's memory
// budget is held until the answer, as large as the page, has been written.
func (s *Server) fetch(w http.ResponseWriter, r *http.Request) {
	ctx, done := primitive.WithBudgetHold(r.Context())
	defer done()
	servePrimitive(s, w, r.WithContext(ctx), s.billed.Fetch)
}

// mapSite serves POST /api/v1/map.
func (s *Server) mapSite(w http.ResponseWriter, r *http.Request) {
	servePrimitive(s, w, r, s.billed.Map)
}

// gyre serves POST /api/v1/gyre: a crawl, a crawl queued or a crawl job
// read (gyre_handlers.go); the REST API reports no progress.
func (s *Server) gyre(w http.ResponseWriter, r *http.Request) {
	servePrimitive(s, w, r, func(ctx context.Context, call *billing.Call, req primitive.GyreRequest) (any, error) {
		return s.billed.GyreAny(ctx, call, req, nil)
	})
}

// search serves POST /api/v1/search; the REST API reports no progress.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	servePrimitive(s, w, r, func(ctx context.Context, call *billing.Call, req primitive.SearchRequest) (*primitive.SearchResult, error) {
		return s.billed.Search(ctx, call, req, nil)
	})
}

// extract serves POST /api/v1/extract.
func (s *Server) extract(w http.ResponseWriter, r *http.Request) {
	servePrimitive(s, w, r, s.billed.Extract)
}
