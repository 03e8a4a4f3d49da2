package httpapi

import (
	"context"
	"net/http"

	"webacq/internal/billing"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/primitive"
)

func (s *Server) fetch(w http.ResponseWriter, r *http.Request) {
	var req primitive.FetchRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	// The page's share of the node's memory budget is held until the
	// answer, as large as the page, has been written.
	ctx, done := primitive.WithBudgetHold(r.Context())
	defer done()
	res, err := s.Fetch(ctx, infoOf(r).call, req)
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

func (s *Server) gyre(w http.ResponseWriter, r *http.Request) {
	var req primitive.GyreRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := s.Gyre(r.Context(), infoOf(r).call, req, nil)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// Gyre is the billed crawl shared by every surface: it reserves maxPages
// at the highest page price (capped by maxCredits) and keeps the sum of the
// pages' prices, at least 1.
func (s *Server) Gyre(ctx context.Context, call *billing.Call, req primitive.GyreRequest, progress func(done, total int)) (*primitive.GyreResult, error) {
	call.Target = req.URL
	browser := s.prims.Browser != nil
	if err := req.Normalize(s.prims.HTTP.CheckURL, browser); err != nil {
		return nil, err
	}
	var res *primitive.GyreResult
	err := s.biller.Run(ctx, call, req.MaxCost(browser), func(ctx context.Context) (int64, error) {
		var err error
		res, err = s.prims.Gyre(ctx, call.Principal.WorkspaceID, req, progress)
		if err != nil {
			return 0, err
		}
		call.Tier = model.TierHTTP
		for _, p := range res.Pages {
			if p.Tier == model.TierBrowser {
				call.Tier = model.TierBrowser
			}
		}
		return res.Cost(), nil
	})
	return res, err
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var req primitive.SearchRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := s.Search(r.Context(), infoOf(r).call, req, nil)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// Search is the billed search shared by every surface: 1 credit, plus the
// price of each result page fetched when fetch is true.
func (s *Server) Search(ctx context.Context, call *billing.Call, req primitive.SearchRequest, progress func(done, total int)) (*primitive.SearchResult, error) {
	call.Target = req.Query
	browser := s.prims.Browser != nil
	if err := req.Normalize(browser); err != nil {
		return nil, err
	}
	var res *primitive.SearchResult
	err := s.biller.Run(ctx, call, req.MaxCost(browser), func(ctx context.Context) (int64, error) {
		var err error
		res, err = s.prims.Search(ctx, call.Principal.WorkspaceID, req, progress)
		if err != nil {
			return 0, err
		}
		call.Tier = model.TierNone
		for _, h := range res.Results {
			if h.Page != nil && call.Tier != model.TierBrowser {
				call.Tier = h.Page.Tier
			}
		}
		return res.Cost(), nil
	})
	return res, err
}

func (s *Server) extract(w http.ResponseWriter, r *http.Request) {
	var req primitive.ExtractRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	res, err := s.Extract(r.Context(), infoOf(r).call, req)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, res)
}

// Extract is the billed extraction shared by every surface: 5 credits over
// HTTP, 7 when the page needed the browser; a model failure keeps nothing.
func (s *Server) Extract(ctx context.Context, call *billing.Call, req primitive.ExtractRequest) (*primitive.ExtractResult, error) {
	call.Target = req.URL
	browser := s.prims.Browser != nil
	if err := req.Normalize(s.prims.HTTP.CheckURL, browser); err != nil {
		return nil, err
	}
	if s.prims.LLM == nil {
		return nil, llm.NotConfigured()
	}
	var res *primitive.ExtractResult
	err := s.biller.Run(ctx, call, req.MaxCost(browser), func(ctx context.Context) (int64, error) {
		var err error
		res, err = s.prims.Extract(ctx, call.Principal.WorkspaceID, s.prims.LLM, req)
		if err != nil {
			return 0, err
		}
		call.Tier = res.Tier
		return billing.ExtractCost(res.Tier), nil
	})
	return res, err
}
