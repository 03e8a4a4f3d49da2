package primitive

import (
	"context"
	"net/url"
	"reflect"

	"webacq/internal/billing"
	"webacq/internal/model"
)

// Limits of a page of an asynchronous crawl's results.
const (
	GyreJobDefaultLimit = 10
	GyreJobMaxLimit     = 100
)

// GyreAsync are the fields of the asynchronous form of gyre (DECISIONS,
// Async gyre): {async: true, …} queues the crawl as a job; {job_id,
// limit?, next?} alone reads it, as GET /api/v1/gyre/{job_id} does.
type GyreAsync struct {
	Async bool   `json:"async,omitempty" jsonschema:"queue the crawl and answer at once {job_id, status}; read it later with {job_id} (status, pages by limit and next). Pages crawled are billed as for a synchronous crawl"`
	JobID string `json:"job_id,omitempty" jsonschema:"read the asynchronous crawl with this id (send it alone, with limit and next): {job_id, status, totalPages, creditsUsed, pages, next, errors}. Reading is free"`
	Limit *int   `json:"limit,omitempty" jsonschema:"with job_id: how many pages to return, from 1 to 100; default 10"`
	Next  string `json:"next,omitempty" jsonschema:"with job_id: the next value of the previous answer, to read the pages after it"`
}

// IsPoll reports whether the request reads a job rather than crawling.
func (r *GyreRequest) IsPoll() bool { return r.JobID != "" }

// Poll checks a read of a job: job_id with limit and next only. It fills
// the default limit.
func (r *GyreRequest) Poll() error {
	rest := *r
	rest.GyreAsync = GyreAsync{}
	if !reflect.DeepEqual(rest, GyreRequest{}) || r.Async {
		return model.Errorf(model.CodeBadRequest, "job_id reads a crawl job: send it alone, with limit and next")
	}
	return intField(&r.Limit, "limit", GyreJobDefaultLimit, 1, GyreJobMaxLimit)
}

// CheckCrawl refuses limit and next on a request that crawls.
func (r *GyreRequest) CheckCrawl() error {
	if r.Limit != nil || r.Next != "" {
		return model.Errorf(model.CodeBadRequest, "limit and next page the results of a crawl job: send them with job_id")
	}
	return nil
}

// GyreDone is a page a crawl has taken, as a journal keeps it: the page,
// the keys that identify it (its URL, its final URL, its canonical URL),
// the links it showed that the crawl follows (also when the page was at
// maxDepth: a shorter path to it may turn up), and its depth when it was
// taken (a resumed crawl works out shorter ones from the links).
type GyreDone struct {
	Page  GyrePage `json:"page"`
	Keys  []string `json:"keys"`
	Links []string `json:"links"`
	Depth int      `json:"depth"`
}

// GyreJournal keeps a crawl's pages as they are taken, so that a crawl cut
// short (its worker died) resumes where it was: Done are the pages of
// earlier runs, taken back first (counted, not fetched again, their links
// followed); Save keeps each new page and says whether the crawl may go on
// with it (false: the page is not part of the crawl, which ends: the job
// was cancelled).
type GyreJournal struct {
	Done []GyreDone
	Save func(ctx context.Context, d GyreDone) (bool, error)
}

// GyreJournaled crawls as GyreWith with the Service's crawl options,
// resuming from journal.Done and saving each page through journal.Save.
// Only the pages of this run are reported to progress. A page that Save
// fails on ends the crawl with the error.
func (s *Service) GyreJournaled(ctx context.Context, workspaceID string, req GyreRequest, journal *GyreJournal,
	progress func(done, total int)) (*GyreResult, error) {
	return s.gyreWith(ctx, workspaceID, req, s.Crawl, journal, progress)
}

// resume takes the journal's pages into the crawl before it starts. Their
// saved depths are where each was taken; following their saved links
// relaxes them to the shortest paths among the saved pages, so a page
// saved at maxDepth that another saved page links to from nearer has its
// links followed.
func (g *gyre) resume(ctx context.Context) (startDone bool) {
	jobs := make([]*crawlJob, len(g.journal.Done))
	for i, d := range g.journal.Done {
		j := &crawlJob{url: d.Page.URL, via: d.Page.Via, depth: d.Depth, taken: true, page: d.Page.URL}
		if d.Page.Via == GyreViaStart {
			startDone = true
			j.start, j.depth = true, 0
			if u, err := url.Parse(d.Page.URL); err == nil {
				g.filter.addStart(u)
			}
		}
		if len(d.Keys) > 0 {
			j.key = d.Keys[0]
		} else {
			j.key, _ = NormalizeURL(d.Page.URL)
		}
		for _, k := range d.Keys {
			g.emitted[k] = true
			if g.f.jobs[k] == nil {
				g.f.jobs[k] = j
			}
		}
		jobs[i] = j
		g.f.admitted++
		g.spent += billing.FetchCost(d.Page.Tier)
		g.size += d.Page.contentSize()
		g.res.Pages = append(g.res.Pages, d.Page)
	}
	if *g.req.MaxDepth > 0 {
		for i, d := range g.journal.Done {
			g.f.follow(ctx, jobs[i], g.f.vetLinks(d.Links, candidate.follow))
		}
	}
	if startDone {
		g.startSet = true
		if !g.req.IgnoreSitemap && *g.req.MaxDepth > 0 {
			g.readSitemaps(ctx)
		}
	}
	return startDone
}

// record saves a page through the journal before the crawl takes it; it
// reports whether the crawl takes it.
func (g *gyre) record(ctx context.Context, r crawlReport[gyreOutcome]) bool {
	links := r.out.links
	d := GyreDone{Page: *r.out.page, Keys: r.out.keys, Depth: r.job.depth, Links: make([]string, 0, len(links.known)+len(links.fresh))}
	for _, j := range links.known {
		d.Links = append(d.Links, j.url)
	}
	for _, c := range links.fresh {
		d.Links = append(d.Links, c.raw)
	}
	ok, err := g.journal.Save(ctx, d)
	if err != nil {
		g.halted = true
		g.haltErr = err
		return false
	}
	if !ok {
		g.halted = true
	}
	return ok
}
