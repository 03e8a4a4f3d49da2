package primitive

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"time"

	"webacq/internal/billing"
	"webacq/internal/model"
)

// Limits of the gyre (crawl) primitive.
const (
	GyreDefaultMaxPages = 10
	GyreMaxPages        = 1000
	GyreDefaultMaxDepth = 3
	GyreMaxDepth        = 100
	GyreDefaultTimeout  = 60000  // milliseconds
	GyreMaxTimeout      = 300000 // milliseconds

	gyreMaxPatterns     = 32
	gyreMaxPatternBytes = 500
	// gyreFrontierFactor bounds the URLs a crawl admits to its frontier, as
	// a multiple of maxPages: memory stays flat however many links the
	// pages show, and failed pages cannot keep a crawl busy for ever.
	gyreFrontierFactor = 10
	gyreMinFrontier    = 100
	// GyreMaxResultBytes is the default GyreOptions.MaxResultBytes: the
	// page content (markdown, html, rawHtml, text and links) one crawl
	// returns. 1,000 pages of a site that serves 25 MB each would otherwise
	// hold 25 GB. The crawl stops taking pages once it is reached and says
	// so in errors[].
	GyreMaxResultBytes = 100 << 20
)

// Default GyreOptions.
const (
	DefaultGyreWorkers = 8
	DefaultGyrePerHost = 4
)

// GyreRequest is the body of POST /api/v1/gyre and the arguments of the
// svc_gyre tool.
type GyreRequest struct {
	// URL is required unless JobID reads a crawl job (svc_gyre's input
	// schema says so with anyOf).
	URL             string   `json:"url" jsonschema:"absolute http(s) URL where the crawl starts; its host bounds the crawl. Required, except with job_id"`
	MaxPages        *int     `json:"maxPages,omitempty" jsonschema:"the most pages to return, from 1 to 1000; default 10. Each page costs 1 credit (3 when the browser tier was needed)"`
	MaxDepth        *int     `json:"maxDepth,omitempty" jsonschema:"how many links away from the start page to go, from 0 (the start page only) to 100; default 3. Sitemap URLs count as depth 1"`
	IncludePaths    []string `json:"includePaths,omitempty" jsonschema:"regular expressions (Go RE2 syntax) on the URL path, e.g. ^/blog/; when given, only pages whose path matches one are crawled. The start page is always crawled"`
	ExcludePaths    []string `json:"excludePaths,omitempty" jsonschema:"regular expressions (Go RE2 syntax) on the URL path; pages whose path matches one are neither crawled nor followed"`
	AllowSubdomains bool     `json:"allowSubdomains,omitempty" jsonschema:"also crawl subdomains of the start host (docs.example.com from example.com); default false"`
	AllowExternal   bool     `json:"allowExternal,omitempty" jsonschema:"also follow links to other sites; default false"`
	// CrawlEntireDomain lifts the directory bound (linkFilter.dir).
	CrawlEntireDomain bool     `json:"crawlEntireDomain,omitempty" jsonschema:"also crawl pages of the start host outside the start page's directory; by default a crawl started at /docs/guide/intro.html or /docs/guide/ stays under /docs/guide/ (the directory after redirects)"`
	Formats           []string `json:"formats,omitempty" jsonschema:"what to return for each page: markdown (default), html (cleaned content HTML), rawHtml, links, text"`
	OnlyMainContent   *bool    `json:"onlyMainContent,omitempty" jsonschema:"keep only the main content of each page, without navigation, headers and footers (default true)"`
	Tier              string   `json:"tier,omitempty" jsonschema:"auto (default: HTTP, a real browser for pages that need one), http (1 credit a page) or browser (3 credits a page)"`
	Timeout           *int     `json:"timeout,omitempty" jsonschema:"milliseconds after which the crawl stops and returns the pages gathered so far, from 1 to 300000; default 60000"`
	MaxCredits        *int     `json:"maxCredits,omitempty" jsonschema:"the most credits the crawl may spend; it stops starting pages before it would spend more"`
	IgnoreSitemap     bool     `json:"ignoreSitemap,omitempty" jsonschema:"do not read the site's sitemaps: discover pages through links only"`

	// The asynchronous form (gyre_async.go).
	GyreAsync

	// include and exclude are the compiled path patterns.
	include, exclude []*regexp.Regexp
}

// Normalize checks r and fills its defaults. checkURL applies the SSRF
// policy to the URL (its errors, forbidden_url included, are returned as
// they are); browser says whether a browser tier exists. Other bad input is
// a bad_request. Normalize may be called again on a normalised request.
func (r *GyreRequest) Normalize(checkURL func(string) (*url.URL, error), browser bool) error {
	u, err := checkRequestURL(r.URL, checkURL)
	if err != nil {
		return err
	}
	clean, err := cleanURL(u.String())
	if err != nil {
		return model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	r.URL = clean
	if err := intField(&r.MaxPages, "maxPages", GyreDefaultMaxPages, 1, GyreMaxPages); err != nil {
		return err
	}
	if err := intField(&r.MaxDepth, "maxDepth", GyreDefaultMaxDepth, 0, GyreMaxDepth); err != nil {
		return err
	}
	if err := intField(&r.Timeout, "timeout", GyreDefaultTimeout, 1, GyreMaxTimeout); err != nil {
		return err
	}
	if r.include, err = compilePaths("includePaths", r.IncludePaths); err != nil {
		return err
	}
	if r.exclude, err = compilePaths("excludePaths", r.ExcludePaths); err != nil {
		return err
	}
	page := r.page()
	err = page.normalize(browser)
	r.Formats, r.OnlyMainContent, r.Tier = page.Formats, page.OnlyMainContent, page.Tier
	if err != nil {
		return err
	}
	if r.MaxCredits != nil {
		if per := r.pageCost(browser); int64(*r.MaxCredits) < per {
			return model.Errorf(model.CodeBadRequest, "maxCredits must be at least %d, the most one page of this crawl may cost", per)
		}
	}
	return nil
}

func intField(p **int, name string, def, lo, hi int) error {
	if *p == nil {
		v := def
		*p = &v
		return nil
	}
	if v := **p; v < lo || v > hi {
		return model.Errorf(model.CodeBadRequest, "%s must be between %d and %d", name, lo, hi)
	}
	return nil
}

func compilePaths(name string, pats []string) ([]*regexp.Regexp, error) {
	if len(pats) > gyreMaxPatterns {
		return nil, model.Errorf(model.CodeBadRequest, "%s: at most %d patterns", name, gyreMaxPatterns)
	}
	var out []*regexp.Regexp
	for _, p := range pats {
		if len(p) > gyreMaxPatternBytes {
			return nil, model.Errorf(model.CodeBadRequest, "%s: a pattern is longer than %d bytes", name, gyreMaxPatternBytes)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, model.Errorf(model.CodeBadRequest, "%s: %q is not a valid regular expression: %s", name, p, regexpProblem(err))
		}
		out = append(out, re)
	}
	return out, nil
}

// regexpProblem is the part of a regexp error that names the problem.
func regexpProblem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return se.Code.String()
	}
	return "invalid syntax"
}

// pageCost is the most one page of a normalised request may cost: auto
// reserves the browser price when a browser exists.
func (r *GyreRequest) pageCost(browser bool) int64 { return r.page().maxCost(browser) }

func (r *GyreRequest) page() pageOptions {
	return pageOptions{Formats: r.Formats, OnlyMainContent: r.OnlyMainContent, Tier: r.Tier}
}

// MaxCost is what a normalised request may cost at most: maxPages pages at
// the dearest tier they may need, capped by maxCredits. It is the
// reservation; GyreResult.Cost is what is drawn.
func (r *GyreRequest) MaxCost(browser bool) int64 {
	c := int64(*r.MaxPages) * r.pageCost(browser)
	if r.MaxCredits != nil {
		c = min(c, int64(*r.MaxCredits))
	}
	return max(c, 1)
}

// Values of GyrePage.Via besides a page URL.
const (
	GyreViaStart   = "start"
	GyreViaSitemap = "sitemap"
)

// GyrePage is one page of a crawl.
type GyrePage struct {
	// URL is the page's address after redirects.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Markdown is empty when the request's formats leave markdown out.
	Markdown   string `json:"markdown"`
	StatusCode int    `json:"statusCode"`
	// Via is the URL of the page the crawl found this one on, or
	// GyreViaStart, or GyreViaSitemap.
	Via string `json:"via"`
	// Tier is the tier that fetched the page; it sets the page's price.
	Tier    string   `json:"tier"`
	HTML    *string  `json:"html,omitempty"`
	RawHTML *string  `json:"rawHtml,omitempty"`
	Text    *string  `json:"text,omitempty"`
	Links   []string `json:"links,omitempty"`
}

// GyreError is a page the crawl could not add. Error is safe to show.
type GyreError struct {
	URL   string `json:"url"`
	Error string `json:"error"`
	// Code is the error code (upstream_error, timeout, …), or "robots" for
	// a page that robots.txt disallows and "http_status" for an HTTP error
	// answer.
	Code string `json:"code"`
}

// Codes of GyreError that are not model codes.
const (
	GyreCodeRobots     = "robots"
	GyreCodeHTTPStatus = "http_status"
	// GyreCodeResultSize marks a crawl cut short at GyreMaxResultBytes;
	// its url is the start URL.
	GyreCodeResultSize = "result_size"
	// GyreCodeMaxPages, GyreCodeMaxCredits and GyreCodeCrawlTimeout mark a
	// crawl that stopped at its maxPages, its maxCredits or its timeout
	// with pages of the site found and not fetched (issue 22: a crawl says
	// why it stopped; a page of its own that timed out is "timeout"); their
	// url is the start URL.
	GyreCodeMaxPages     = "max_pages"
	GyreCodeMaxCredits   = "max_credits"
	GyreCodeCrawlTimeout = "crawl_timeout"
)

// GyreResult is the data of a crawl.
type GyreResult struct {
	StartURL   string      `json:"startUrl"`
	TotalPages int         `json:"totalPages"`
	Pages      []GyrePage  `json:"pages"`
	Errors     []GyreError `json:"errors"`
}

// Cost is what the crawl draws: the price of each page returned on the tier
// that fetched it, at least 1. Pages in Errors cost nothing.
func (r *GyreResult) Cost() int64 {
	var c int64
	for _, p := range r.Pages {
		c += billing.FetchCost(p.Tier)
	}
	return max(c, 1)
}

// GyreOptions tune how hard a crawl presses on the sites it visits. They
// are the operator's, not the caller's: neither the request nor the
// Service carries them. Zero fields take defaults.
type GyreOptions struct {
	// Workers is the number of pages fetched and converted at once, across
	// all hosts (default DefaultGyreWorkers).
	Workers int
	// PerHost is the number of requests in flight to one scheme and host
	// (default DefaultGyrePerHost). A host whose robots.txt sets a
	// Crawl-delay, or any host when Delay is set, gets one at a time.
	PerHost int
	// Delay spaces the requests to one host; a longer robots.txt
	// Crawl-delay wins (capped at 10 s).
	Delay time.Duration
	// MaxResultBytes bounds the page content one crawl returns (default
	// GyreMaxResultBytes).
	MaxResultBytes int64
}

func (o GyreOptions) withDefaults() GyreOptions {
	if o.Workers <= 0 {
		o.Workers = DefaultGyreWorkers
	}
	if o.PerHost <= 0 {
		o.PerHost = DefaultGyrePerHost
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = GyreMaxResultBytes
	}
	return o
}

// Gyre crawls a site with the Service's crawl options; see GyreWith.
func (s *Service) Gyre(ctx context.Context, workspaceID string, req GyreRequest, progress func(done, total int)) (*GyreResult, error) {
	return s.GyreWith(ctx, workspaceID, req, s.Crawl, progress)
}

// GyreWith crawls the site at req.URL and converts every page it reaches,
// keeping them in the workspace's page store (workspaceID empty: not kept).
//
// The crawl starts at req.URL ("via" "start") and, unless
// req.IgnoreSitemap, at the pages that the site's sitemaps list (read as
// Map reads them once the start page is done; "via" "sitemap", depth 1).
// It follows the links of each HTML page up to req.MaxDepth links away.
// A page's depth is the fewest links from the start page to it among the
// links the crawl has seen, whichever fetch answers first: a page found
// again by a shorter path before it is taken gets the shorter depth (and
// the via of that path), and a page taken with its links cut by maxDepth
// has them followed when a shorter path to it turns up later. A page is
// still fetched once.
// Each URL is fetched once: URLs are identified by NormalizeURL, and a page
// whose address after redirects, or whose declared canonical URL, is a page
// already returned is dropped as a duplicate (a canonical URL naming the
// site root from a deeper page is taken for a template mistake and
// ignored).
//
// The scope is a linkFilter, as Map's. Links are followed when they are on
// the start host (with or without "www."), on a subdomain of it with
// req.AllowSubdomains, or on any host with req.AllowExternal; when, on the
// start host and unless req.CrawlEntireDomain, their path is under the
// start page's directory (startDir: /docs/guide/ for /docs/guide/intro.html
// and /docs/guide/); when their path passes req.IncludePaths and
// req.ExcludePaths; and when they do not name an image, style, script,
// font, media file, archive or a document other than a PDF. A start page
// that redirects brings its final host into the scope, and its directory
// becomes the crawl's (/docs redirected to /docs/ crawls /docs/).
// Sitemap entries pass the same filter and must be on the site (the start
// host or, with req.AllowSubdomains, a subdomain). The start page itself is
// always crawled. Pages that robots.txt disallows for s.UserAgent are not
// requested and are listed in Errors. A crawl admits at most
// 10 × maxPages URLs (100 at least) to its frontier.
//
// Pages are fetched as Fetch fetches them (tiers, auto escalation,
// conversion), opt.Workers at a time, with opt.PerHost requests at a time
// per host (a page's requests are over once its answer is read: the host
// takes the next while the page is converted), and converted GOMAXPROCS at
// a time; they are returned in the order they complete. A failed fetch, an
// answer with an HTTP error status and a page that robots.txt refuses go
// to Errors and cost nothing. robots.txt is
// read once per scheme and host before its first page; a Crawl-delay (or
// opt.Delay) makes that host one request at a time, spaced by the delay.
// Sitemaps are read outside the per-host limit, as Map reads them.
//
// Every crawl ends: after req.MaxPages pages, when the frontier is empty,
// when req.Timeout has passed or ctx ends (the pages gathered so far are
// returned, without error), or when starting one more page could take the
// spend over req.MaxCredits. It fails only when it returns no page: with
// the start page's error (forbidden_url, upstream_error, …), upstream_error
// when the start page answered an HTTP error or robots.txt refuses it, or
// timeout.
//
// progress, when not nil, is called from one goroutine as pages are added:
// done is the number of pages so far, total the number the crawl expects at
// this point (pages, plus pages in flight and queued, at most maxPages);
// total may grow or shrink, and the last call has done == total.
func (s *Service) GyreWith(ctx context.Context, workspaceID string, req GyreRequest, opt GyreOptions, progress func(done, total int)) (*GyreResult, error) {
	return s.gyreWith(ctx, workspaceID, req, opt, nil, progress)
}

func (s *Service) gyreWith(ctx context.Context, workspaceID string, req GyreRequest, opt GyreOptions, journal *GyreJournal,
	progress func(done, total int)) (*GyreResult, error) {
	if s.HTTP == nil {
		return nil, model.Errorf(model.CodeUnavailable, "fetching is not configured")
	}
	browser := s.Browser != nil
	if err := req.Normalize(s.HTTP.CheckURL, browser); err != nil {
		return nil, err
	}
	startURL, err := url.Parse(req.URL)
	if err != nil {
		return nil, model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(*req.Timeout)*time.Millisecond)
	defer cancel()

	filter := &linkFilter{
		hosts:    newSiteScope(startURL.Hostname(), req.AllowSubdomains),
		external: req.AllowExternal, include: req.include, exclude: req.exclude,
	}
	if !req.CrawlEntireDomain {
		filter.dir = startDir(startURL.EscapedPath())
	}
	opt = opt.withDefaults()
	g := &gyre{
		s: s, req: req, opt: opt, workspaceID: workspaceID, startURL: startURL,
		progress: progress,
		journal:  journal,
		filter:   filter,
		pageCost: req.pageCost(browser),
		emitted:  make(map[string]bool),
		cpu:      make(chan struct{}, runtime.GOMAXPROCS(0)),
		res:      &GyreResult{StartURL: req.URL, Pages: []GyrePage{}, Errors: []GyreError{}},
	}
	g.formats = slices.Clone(req.Formats)
	if !slices.Contains(g.formats, FormatLinks) {
		g.formats = append(g.formats, FormatLinks)
	}
	if req.MaxCredits != nil {
		g.budget = int64(*req.MaxCredits)
	}
	g.f = &frontier[gyreOutcome]{
		s: s, filter: filter, workers: opt.Workers, perHost: opt.PerHost, delay: opt.Delay,
		capacity: max(gyreFrontierFactor**req.MaxPages, gyreMinFrontier), maxDepth: *req.MaxDepth,
		visit: g.visit, take: g.take, mayStart: g.mayStart, over: g.full,
	}
	if journal != nil {
		g.f.resume = g.resume
	}
	g.f.init()
	g.f.run(ctx, req.URL)
	g.stopReason(ctx)

	if g.progress != nil {
		n := len(g.res.Pages)
		g.progress(n, n)
	}
	g.res.TotalPages = len(g.res.Pages)
	if g.haltErr != nil {
		return nil, g.haltErr
	}
	if g.res.TotalPages == 0 {
		return nil, g.startError()
	}
	return g.res, nil
}

// gyre is the state of one crawl. Its fields are owned by the goroutine
// running the frontier, except those marked otherwise.
type gyre struct {
	// Read-only during the crawl; shared with workers.
	s           *Service
	req         GyreRequest
	opt         GyreOptions
	workspaceID string
	startURL    *url.URL
	filter      *linkFilter   // safe for concurrent use
	pageCost    int64         // the most one page may cost
	formats     []string      // req.Formats and links, which the crawl needs
	cpu         chan struct{} // a slot per page being converted

	progress func(done, total int)
	journal  *GyreJournal // nil: a crawl that saves nothing as it goes
	halted   bool         // the journal refused a page: the crawl ends
	haltErr  error        // the journal failed
	budget   int64        // maxCredits; 0: none
	f        *frontier[gyreOutcome]

	emitted  map[string]bool // keys of pages returned: final URLs and canonicals
	spent    int64
	size     int64 // bytes of page content returned so far
	start    crawlReport[gyreOutcome]
	startSet bool // the start page's report is known
	res      *GyreResult
}

// gyreOutcome is what a worker makes of one page.
type gyreOutcome struct {
	err   error
	page  *GyrePage
	keys  []string // final URL and canonical keys of page
	links pageLinks
}

// mayStart says whether the limits leave room for one more page.
func (g *gyre) mayStart(inflight int) bool {
	return !g.halted && len(g.res.Pages)+inflight < *g.req.MaxPages && g.size < g.opt.MaxResultBytes &&
		(g.budget == 0 || g.spent+int64(inflight+1)*g.pageCost <= g.budget)
}

// full says whether the crawl has all the pages or content it may return.
func (g *gyre) full() bool {
	return g.halted || len(g.res.Pages) >= *g.req.MaxPages || g.size >= g.opt.MaxResultBytes
}

// stopReason adds to the errors why a crawl that ended with pages of the
// site still queued stopped: its time, its maxCredits or its maxPages (the
// result size says so where it stops).
func (g *gyre) stopReason(ctx context.Context) {
	left := g.f.queued
	if left == 0 || g.halted || g.size >= g.opt.MaxResultBytes {
		return
	}
	n := len(g.res.Pages)
	var e GyreError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		e = GyreError{Code: GyreCodeCrawlTimeout,
			Error: fmt.Sprintf("the crawl stopped at its timeout of %d ms with %d pages found and not fetched; raise \"timeout\" (at most %d) or crawl asynchronously (\"async\": true)", *g.req.Timeout, left, GyreMaxTimeout)}
	case n >= *g.req.MaxPages:
		e = GyreError{Code: GyreCodeMaxPages,
			Error: fmt.Sprintf("the crawl stopped at \"maxPages\" %d with %d more pages found and not fetched", *g.req.MaxPages, left)}
	case g.budget != 0 && g.spent+g.pageCost > g.budget:
		e = GyreError{Code: GyreCodeMaxCredits,
			Error: fmt.Sprintf("the crawl stopped at \"maxCredits\" %d (%d spent, a page may cost %d) with %d more pages found and not fetched", g.budget, g.spent, g.pageCost, left)}
	default:
		return
	}
	e.URL = g.req.URL
	g.res.Errors = append(g.res.Errors, e)
}

// startError is the error of a crawl that returns no page.
func (g *gyre) startError() error {
	st := g.start
	switch {
	case !g.startSet:
		return model.Errorf(model.CodeTimeout, "the site did not answer within %d ms", *g.req.Timeout)
	case st.disallowed:
		return model.Errorf(model.CodeUpstreamError, "robots.txt disallows crawling %s and the sitemaps list no page", g.req.URL)
	case st.err != nil:
		return st.err
	case st.out.err != nil:
		return st.out.err
	case st.out.page != nil && st.out.page.StatusCode >= 400:
		return model.Errorf(model.CodeUpstreamError, "the site answered HTTP %d at %s", st.out.page.StatusCode, g.req.URL)
	}
	return model.Errorf(model.CodeUpstreamError, "the crawl found no page at %s", g.req.URL)
}

// visit fetches and converts one page. It runs on a worker's goroutine and
// touches only what is safe to share.
func (g *gyre) visit(ctx context.Context, j *crawlJob) gyreOutcome {
	var o gyreOutcome
	// As Fetch fetches, without the page store and the trace; g.cpu bounds
	// the conversions, and the host may take its next request while this
	// page waits for one and is converted.
	res, _, err := g.s.fetchPage(ctx, FetchRequest{
		URL: j.url, Formats: g.formats, OnlyMainContent: g.req.OnlyMainContent, Tier: g.req.Tier,
	}, &crawlGate{slots: g.cpu, answered: func() { g.f.requestOver(ctx, j) }})
	if err != nil {
		o.err = err
		return o
	}
	// Via is set when the page is taken: its depth may still fall.
	p := &GyrePage{URL: res.FinalURL, Title: res.Title, StatusCode: res.StatusCode, Tier: res.Tier}
	o.page = p
	if res.StatusCode >= 400 {
		return o
	}
	final, err := url.Parse(res.FinalURL)
	if err != nil {
		o.err = model.Wrap(model.CodeUpstreamError, err, "the site redirected to an invalid url")
		return o
	}
	if j.start {
		// A start page that redirects moves the site there. No other page
		// is in flight yet: every link is vetted in the grown scope.
		g.filter.addStart(final)
	}
	o.keys = append(o.keys, j.key)
	if k, err := NormalizeURL(res.FinalURL); err == nil && k != j.key {
		o.keys = append(o.keys, k)
	}
	if c := res.Metadata.Canonical; c != "" {
		if cu, err := url.Parse(c); err == nil && (cu.Path != "/" && cu.Path != "" || final.Path == "/" || final.Path == "") {
			if k, err := NormalizeURL(c); err == nil && !slices.Contains(o.keys, k) {
				o.keys = append(o.keys, k)
			}
		}
	}
	if *g.req.MaxDepth > 0 {
		// Even when the page is at maxDepth: a shorter path to it may turn
		// up later, and its links are then followed (frontier.relax).
		o.links = g.f.vetLinks(res.Links, candidate.follow)
	}
	if res.Markdown != nil {
		p.Markdown = *res.Markdown
	}
	p.HTML, p.RawHTML, p.Text = res.HTML, res.RawHTML, res.Text
	if slices.Contains(g.req.Formats, FormatLinks) {
		p.Links = res.Links
	} else {
		res.Links = nil
	}
	if g.s.Pages != nil && g.workspaceID != "" {
		g.s.keep(ctx, g.workspaceID, FetchRequest{
			URL: j.url, Formats: g.req.Formats, OnlyMainContent: g.req.OnlyMainContent, Tier: g.req.Tier,
		}, res)
	}
	return o
}

// take takes a worker's report into the result and the frontier.
func (g *gyre) take(ctx context.Context, r crawlReport[gyreOutcome]) {
	if r.job.start {
		g.start, g.startSet = r, true
		if !g.req.IgnoreSitemap && *g.req.MaxDepth > 0 {
			g.readSitemaps(ctx)
		}
	}
	o := r.out
	err := r.err
	if err == nil {
		err = o.err
	}
	switch {
	case r.disallowed:
		g.res.Errors = append(g.res.Errors, GyreError{URL: r.job.url, Error: "robots.txt disallows this page", Code: GyreCodeRobots})
		return
	case err != nil:
		if ctx.Err() != nil {
			return // cut short by the end of the crawl, not the site's fault
		}
		g.res.Errors = append(g.res.Errors, GyreError{URL: r.job.url, Error: model.ErrorMessage(err), Code: model.ErrorCode(err)})
		return
	case o.page.StatusCode >= 400:
		g.res.Errors = append(g.res.Errors, GyreError{URL: r.job.url,
			Error: fmt.Sprintf("the site answered HTTP %d", o.page.StatusCode), Code: GyreCodeHTTPStatus})
		return
	}
	dup := false
	for _, k := range o.keys {
		dup = dup || g.emitted[k]
		if g.f.jobs[k] == nil {
			g.f.jobs[k] = r.job
		}
	}
	if dup {
		return
	}
	for _, k := range o.keys {
		g.emitted[k] = true
	}
	if g.size >= g.opt.MaxResultBytes {
		return // a page in flight when the crawl filled up
	}
	o.page.Via = r.job.via
	if g.journal != nil && !g.record(ctx, r) {
		return
	}
	g.spent += billing.FetchCost(o.page.Tier)
	g.res.Pages = append(g.res.Pages, *o.page)
	if g.size += o.page.contentSize(); g.size >= g.opt.MaxResultBytes {
		g.res.Errors = append(g.res.Errors, GyreError{URL: g.req.URL, Code: GyreCodeResultSize,
			Error: fmt.Sprintf("the crawl stopped after %d MB of page content; ask for fewer pages or formats", g.opt.MaxResultBytes>>20)})
	}
	r.job.taken, r.job.page = true, o.page.URL
	g.f.follow(ctx, r.job, o.links)
	if g.progress != nil {
		n := len(g.res.Pages)
		g.progress(n, min(*g.req.MaxPages, n+g.f.inflight+g.f.queued))
	}
}

// readSitemaps seeds the frontier with the pages of the site's sitemaps,
// found and read as Map finds and reads them. It starts once the start
// page is done, so that the scope has taken in where the start page
// redirected to.
func (g *gyre) readSitemaps(ctx context.Context) {
	g.f.runAside(ctx, func() func() {
		found := sitemapPages(ctx, g.s, g.startURL, g.filter, g.f.capacity)
		return func() {
			for _, c := range found {
				if c.follow() {
					g.f.admit(ctx, c, GyreViaSitemap, 1)
				}
			}
		}
	})
}

// contentSize is the bytes of content a page carries.
func (p *GyrePage) contentSize() int64 {
	n := len(p.Markdown)
	for _, s := range []*string{p.HTML, p.RawHTML, p.Text} {
		if s != nil {
			n += len(*s)
		}
	}
	for _, l := range p.Links {
		n += len(l)
	}
	return int64(n)
}
