// Package primitive holds the five web-acquisition primitives (search,
// fetch, gyre, extract, map): one function each, used alike by the HTTP API,
// the MCP endpoint, the command line and monitors. Billing is not done here:
// callers reserve and settle around these functions (see billing).
package primitive

import (
	"context"
	"log/slog"

	"webacq/internal/fetch"
	"webacq/internal/llm"
	"webacq/internal/store"
)

// Service runs primitives. Fields left nil turn their feature off.
type Service struct {
	HTTP    *fetch.Client
	Browser *fetch.Browser // nil: no browser tier
	Pages   *store.Store   // nil: pages are not kept (the command line)
	Log     *slog.Logger

	// UserAgent is the product token matched against robots.txt groups.
	UserAgent string

	// Searcher answers search (nil: search answers unavailable).
	Searcher SearchProvider
	// LLM extracts structured data (nil: extract answers unavailable).
	LLM llm.Client
	// Crawl bounds every gyre's concurrency and pacing.
	Crawl GyreOptions
	// Convert bounds the memory and concurrency of conversions on this node
	// (nil: unbounded).
	Convert *Budget
}

// Search runs a search with the configured provider.
func (s *Service) Search(ctx context.Context, workspaceID string, req SearchRequest, progress func(done, total int)) (*SearchResult, error) {
	return s.SearchWith(ctx, s.Searcher, workspaceID, req, progress)
}
