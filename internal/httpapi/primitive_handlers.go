package httpapi

import (
	"context"
	"net/http"

	"webacq/internal/billing"
	"webacq/internal/primitive"
)

func (s *Server) fetch(w http.ResponseWriter, r *http.Request) {
	var req primitive.FetchRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := s.Fetch(r.Context(), infoOf(r).call, req)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// Fetch is the billed fetch shared by every surface: validate, reserve the
// maximum, fetch, settle the tier actually used.
func (s *Server) Fetch(ctx context.Context, call *billing.Call, req primitive.FetchRequest) (*primitive.FetchResult, error) {
	call.Target = req.URL
	browser := s.prims.Browser != nil
	if err := req.Normalize(s.prims.HTTP.CheckURL, browser); err != nil {
		return nil, err
	}
	var res *primitive.FetchResult
	err := s.biller.Run(ctx, call, req.MaxCost(browser), func(ctx context.Context) (int64, error) {
		var err error
		res, err = s.prims.Fetch(ctx, call.Principal.WorkspaceID, req)
		if err != nil {
			return 0, err
		}
		call.Tier = res.Tier
		return billing.FetchCost(res.Tier), nil
	})
	return res, err
}
