// Package billed runs the primitives as billed calls, the one place their
// prices are kept: validate the request, reserve the most it may cost, run
// the primitive, settle what it cost on the tier that did the work. The REST
// API and the MCP endpoint call the same Service, so a call costs the same
// through either.
package billed

import (
	"context"

	"webacq/internal/billing"
	"webacq/internal/crawljob"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/primitive"
)

// Service is the billed primitives. Each method fills the call's Target and
// Tier and writes its usage and activity rows through the biller; the
// caller opens the call (principal, endpoint, via) and finishes it when the
// method fails before billing.
type Service struct {
	biller *billing.Biller
	prims  *primitive.Service
	jobs   *crawljob.Service // the asynchronous crawls (gyrejob.go)
}

// New bills the primitives prims through b.
func New(b *billing.Biller, prims *primitive.Service) *Service {
	return &Service{biller: b, prims: prims}
}

// browser reports whether a browser tier is configured: requests are
// normalised and priced with it in mind.
func (s *Service) browser() bool { return s.prims.Browser != nil }

// Fetch is the billed fetch: validate, reserve the maximum, fetch, settle
// the tier actually used.
func (s *Service) Fetch(ctx context.Context, call *billing.Call, req primitive.FetchRequest) (*primitive.FetchResult, error) {
	call.Target = req.URL
	browser := s.browser()
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
	return res, teach(err, req.HoldHint(browser))
}

// Map is the billed map: 1 credit flat, nothing when it fails.
func (s *Service) Map(ctx context.Context, call *billing.Call, req primitive.MapRequest) (*primitive.MapResult, error) {
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

// Gyre is the billed crawl: it reserves maxPages at the highest page price
// (capped by maxCredits) and keeps the sum of the pages' prices, at least 1.
// progress, when not nil, hears of each page done.
func (s *Service) Gyre(ctx context.Context, call *billing.Call, req primitive.GyreRequest, progress func(done, total int)) (*primitive.GyreResult, error) {
	call.Target = req.URL
	browser := s.browser()
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
	return res, teach(err, req.HoldHint(browser))
}

// Search is the billed search: 1 credit, plus the price of each result page
// fetched when fetch is true. progress, when not nil, hears of each page
// fetched.
func (s *Service) Search(ctx context.Context, call *billing.Call, req primitive.SearchRequest, progress func(done, total int)) (*primitive.SearchResult, error) {
	call.Target = req.Query
	browser := s.browser()
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
	return res, teach(err, req.HoldHint(browser))
}

// Extract is the billed extraction: 5 credits over HTTP, 7 when the page
// needed the browser; a model failure keeps nothing. Without a model
// configured it fails before reserving.
func (s *Service) Extract(ctx context.Context, call *billing.Call, req primitive.ExtractRequest) (*primitive.ExtractResult, error) {
	call.Target = req.URL
	browser := s.browser()
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
	return res, teach(err, req.HoldHint(browser))
}

// teach adds to a credits_exhausted answer what the hold was for and how
// to hold less (hint), so that a caller short of credits knows what to
// change (issue 22); other errors pass as they are.
func teach(err error, hint string) error {
	if hint == "" || model.ErrorCode(err) != model.CodeCreditsExhausted {
		return err
	}
	return model.Errorf(model.CodeCreditsExhausted, "%s: %s", model.ErrorMessage(err), hint)
}
