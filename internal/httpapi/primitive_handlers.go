package httpapi

import (
	"context"
	"net/http"

	"webacq/internal/billing"
	"webacq/internal/model"
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

func (s *Server) mapSite(w http.ResponseWriter, r *http.Request) {
	var req primitive.MapRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := s.Map(r.Context(), infoOf(r).call, req)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// Map is the billed map shared by every surface: 1 credit flat, nothing
// when it fails.
func (s *Server) Map(ctx context.Context, call *billing.Call, req primitive.MapRequest) (*primitive.MapResult, error) {
	call.Target = req.URL
	if err := req.Validate(s.prims.HTTP.CheckURL); err != nil {
		return nil, err
	}
	var res *primitive.MapResult
	err := s.biller.Run(ctx, call, billing.Map, func(ctx context.Context) (int64, error) {
		var err error
		res, err = s.prims.Map(ctx, req)
		call.Tier = model.TierHTTP
		return billing.Map, err
	})
	return res, err
}
