package primitive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"webacq/internal/acquire"
	"webacq/internal/billing"
	"webacq/internal/content"
	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/store"
)

// Fetch formats.
const (
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatRawHTML  = "rawHtml"
	FormatLinks    = "links"
	FormatText     = "text"
)

var allFormats = []string{FormatMarkdown, FormatHTML, FormatRawHTML, FormatLinks, FormatText}

// Tiers a request may ask for.
const (
	TierAuto    = acquire.TierAuto
	TierHTTP    = model.TierHTTP
	TierBrowser = model.TierBrowser
)

// Limits of a fetch request.
const (
	DefaultFetchTimeout = 30 * time.Second
	MaxFetchTimeout     = 120 * time.Second
	MaxWaitFor          = 30 * time.Second
	maxHeaders          = 32
	maxAgeCap           = 100 * 365 * 24 * 3600 // seconds: a hundred years
	maxSelectors        = 16
)

// FetchRequest is the body of POST /api/v1/fetch and the arguments of the
// svc_fetch tool.
type FetchRequest struct {
	URL             string            `json:"url" jsonschema:"absolute http(s) URL of the page or document to fetch"`
	Formats         []string          `json:"formats,omitempty" jsonschema:"what to return: markdown (default), html (cleaned content HTML), rawHtml, links, text"`
	OnlyMainContent *bool             `json:"onlyMainContent,omitempty" jsonschema:"keep only the main content, without navigation, headers and footers (default true)"`
	Tier            string            `json:"tier,omitempty" jsonschema:"auto (default: HTTP, escalating to a real browser on bot walls and JavaScript-only pages), http (1 credit) or browser (3 credits)"`
	WaitFor         int               `json:"waitFor,omitempty" jsonschema:"browser tier: milliseconds to wait after load before capturing"`
	Timeout         int               `json:"timeout,omitempty" jsonschema:"milliseconds before the fetch gives up (default 30000, max 120000)"`
	Headers         map[string]string `json:"headers,omitempty" jsonschema:"extra request headers"`
	AcceptSelectors []string          `json:"accept_selectors,omitempty" jsonschema:"browser tier: CSS selectors clicked before capture (cookie banners, terms modals)"`
	MaxAge          int               `json:"maxAge,omitempty" jsonschema:"seconds: answer from a stored copy of this page if it is at most this old (same credits)"`
}

// TraceStep is one tier tried by a fetch.
type TraceStep struct {
	Tier       string `json:"tier"`
	StatusCode int    `json:"statusCode,omitempty"`
	Verdict    string `json:"verdict,omitempty"`
	Error      string `json:"error,omitempty"`
	Ms         int64  `json:"ms"`
}

// PageMetadata is what is known about a fetched page.
type PageMetadata struct {
	Title         string            `json:"title,omitempty"`
	Description   string            `json:"description,omitempty"`
	Language      string            `json:"language,omitempty"`
	Canonical     string            `json:"canonical,omitempty"`
	SiteName      string            `json:"siteName,omitempty"`
	Author        string            `json:"author,omitempty"`
	PublishedTime string            `json:"publishedTime,omitempty"`
	Image         string            `json:"image,omitempty"`
	OpenGraph     map[string]string `json:"openGraph,omitempty"`
	ETag          string            `json:"etag,omitempty"`
	LastModified  string            `json:"lastModified,omitempty"`
	SizeBytes     int               `json:"sizeBytes"`
}

// FetchResult is the data of a fetch.
type FetchResult struct {
	URL         string       `json:"url"`
	FinalURL    string       `json:"finalUrl"`
	StatusCode  int          `json:"statusCode"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Language    string       `json:"language"`
	Markdown    *string      `json:"markdown,omitempty"`
	HTML        *string      `json:"html,omitempty"`
	RawHTML     *string      `json:"rawHtml,omitempty"`
	Text        *string      `json:"text,omitempty"`
	Links       []string     `json:"links,omitempty"`
	Metadata    PageMetadata `json:"metadata"`
	Tier        string       `json:"tier"`
	ContentType string       `json:"contentType"`
	FetchedAt   time.Time    `json:"fetchedAt"`
	Verdict     string       `json:"verdict"`
	// PageType is the kind of page (article, documentation, forum,
	// product, collection, listing, service); HTML, PDF and plain text
	// only.
	PageType string `json:"page_type,omitempty"`
	// Confidence is the extractor's estimate (0–1) of how well it found
	// the main content; absent when the whole body was asked for
	// (onlyMainContent false) or the body is JSON or XML.
	Confidence *float64    `json:"confidence,omitempty"`
	Trace      []TraceStep `json:"trace"`
	// Cached is true when the answer came from the workspace's page store
	// (maxAge); it costs the same.
	Cached bool `json:"cached,omitempty"`

	// hashed is the markdown whose hash (contentHash) identifies the
	// content for the page store, hashed only when a page is kept: most
	// pages of a crawl without a workspace never are.
	hashed string
	// retryAfter is the wait the site asked for with a 429 (Retry-After).
	retryAfter time.Duration
}

// Normalize checks r and fills its defaults. checkURL applies the SSRF
// policy to the URL; browser says whether a browser tier exists.
func (r *FetchRequest) Normalize(checkURL func(string) (*url.URL, error), browser bool) error {
	u, err := checkRequestURL(r.URL, checkURL)
	if err != nil {
		return err
	}
	r.URL = u.String()
	page := r.page()
	err = page.normalize(browser)
	r.Formats, r.OnlyMainContent, r.Tier = page.Formats, page.OnlyMainContent, page.Tier
	if err != nil {
		return err
	}
	// Ranges are checked on the integers: converted first, a huge value
	// overflows time.Duration and passes as a negative or tiny one.
	if r.Timeout < 0 || int64(r.Timeout) > MaxFetchTimeout.Milliseconds() {
		return model.Errorf(model.CodeBadRequest, "timeout must be between 0 and %d ms", MaxFetchTimeout.Milliseconds())
	}
	if r.WaitFor < 0 || int64(r.WaitFor) > MaxWaitFor.Milliseconds() {
		return model.Errorf(model.CodeBadRequest, "waitFor must be between 0 and %d ms", MaxWaitFor.Milliseconds())
	}
	if r.MaxAge < 0 {
		return model.Errorf(model.CodeBadRequest, "maxAge must not be negative")
	}
	if len(r.Headers) > maxHeaders {
		return model.Errorf(model.CodeBadRequest, "at most %d headers", maxHeaders)
	}
	for k, v := range r.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") || strings.ContainsAny(v, "\r\n") {
			return model.Errorf(model.CodeBadRequest, "invalid header %q", k)
		}
		switch strings.ToLower(k) {
		case "host", "content-length", "transfer-encoding", "connection":
			return model.Errorf(model.CodeBadRequest, "header %q cannot be set", k)
		}
	}
	if len(r.AcceptSelectors) > maxSelectors {
		return model.Errorf(model.CodeBadRequest, "at most %d accept_selectors", maxSelectors)
	}
	return nil
}

// MaxCost is what a normalised request may cost at most: auto reserves the
// browser price when a browser exists and refunds the difference when HTTP
// was enough.
func (r *FetchRequest) MaxCost(browser bool) int64 { return r.page().maxCost(browser) }

func (r *FetchRequest) page() pageOptions {
	return pageOptions{Formats: r.Formats, OnlyMainContent: r.OnlyMainContent, Tier: r.Tier}
}

// checkRequestURL checks the url field of a request: present, at most 8192
// characters, and let through by checkURL, the SSRF policy, whose errors
// are returned as they are.
func checkRequestURL(raw string, checkURL func(string) (*url.URL, error)) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, model.Errorf(model.CodeBadRequest, "url is required")
	}
	if len(raw) > 8192 {
		return nil, model.Errorf(model.CodeBadRequest, "url is longer than 8192 characters")
	}
	return checkURL(raw)
}

// pageOptions are the options of a request that say how each page is
// fetched and converted. FetchRequest and GyreRequest carry them as JSON
// fields of their own and check them with normalize.
type pageOptions struct {
	Formats         []string
	OnlyMainContent *bool
	Tier            string
}

// normalize checks o and fills its defaults: markdown, the main content
// only, the auto tier. browser says whether a browser tier exists.
func (o *pageOptions) normalize(browser bool) error {
	if len(o.Formats) == 0 {
		o.Formats = []string{FormatMarkdown}
	}
	for _, f := range o.Formats {
		if !slices.Contains(allFormats, f) {
			return model.Errorf(model.CodeBadRequest, "unknown format %q: use %s", f, strings.Join(allFormats, ", "))
		}
	}
	if o.OnlyMainContent == nil {
		t := true
		o.OnlyMainContent = &t
	}
	switch o.Tier {
	case "":
		o.Tier = TierAuto
	case TierAuto, TierHTTP:
	case TierBrowser:
		if !browser {
			return model.Errorf(model.CodeUnavailable, "the browser tier is not available on this server (install chromium or set WEBACQ_CHROMIUM)")
		}
	default:
		return model.Errorf(model.CodeBadRequest, "tier must be auto, http or browser")
	}
	return nil
}

// maxCost is the most one page may cost once o is normalised: auto
// reserves the browser price when a browser exists.
func (o pageOptions) maxCost(browser bool) int64 {
	if o.Tier == TierBrowser || (o.Tier == TierAuto && browser) {
		return billing.FetchBrowser
	}
	return billing.FetchHTTP
}

func (r *FetchRequest) timeout() time.Duration {
	if r.Timeout == 0 {
		return DefaultFetchTimeout
	}
	return time.Duration(r.Timeout) * time.Millisecond
}

// variant names the options a stored copy depends on.
func (r *FetchRequest) variant() string {
	f := slices.Clone(r.Formats)
	sort.Strings(f)
	return fmt.Sprintf("main=%t;formats=%s", *r.OnlyMainContent, strings.Join(f, ","))
}

func (r *FetchRequest) wants(format string) bool { return slices.Contains(r.Formats, format) }

// Fetch acquires one page for a workspace (empty: not kept) and converts
// it. The request must have been normalised.
func (s *Service) Fetch(ctx context.Context, workspaceID string, req FetchRequest) (*FetchResult, error) {
	if req.MaxAge > 0 && s.Pages != nil && workspaceID != "" {
		// maxAgeCap keeps the conversion to a Duration from overflowing;
		// a copy older than it is long gone from the page store anyway.
		since := time.Now().Add(-time.Duration(min(req.MaxAge, maxAgeCap)) * time.Second)
		if p, err := s.Pages.FreshPage(ctx, workspaceID, req.URL, req.variant(), since); err != nil {
			s.Log.Warn("page store lookup", "err", err, "workspace_id", workspaceID)
		} else if p != nil {
			var res FetchResult
			if err := json.Unmarshal(p.Result, &res); err == nil {
				res.Cached = true
				return &res, nil
			}
		}
	}
	// The page's budget is held until it is kept, not only while it is
	// converted: the result and its stored copy weigh as much again.
	// A caller that made its own hold (WithBudgetHold) keeps it until it has
	// sent the result.
	if holdOf(ctx) == nil {
		var done func()
		ctx, done = WithBudgetHold(ctx)
		defer done()
	}
	res, trace, err := s.fetchPage(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	res.Trace = trace
	if s.Pages != nil && workspaceID != "" {
		s.keep(ctx, workspaceID, req, res)
	}
	return res, nil
}

// fetchPage is Fetch without the page store: it acquires req.URL within
// req's timeout through the node's one acquisition path (acquire: the
// tiers req.Tier names, auto escalating by acquire.Escalate; the body
// within the memory budget), converts it and turns a page blocked on every
// tier into upstream_error, an HTTP 429 into rate_limited and an HTTP 5xx
// into upstream_error. It returns the result and, apart, the trace of the
// tiers tried.
//
// gate, when not nil, is a crawl's (see crawlGate); Fetch passes none.
func (s *Service) fetchPage(ctx context.Context, req FetchRequest, gate *crawlGate) (*FetchResult, []TraceStep, error) {
	ctx, cancel := context.WithTimeout(ctx, req.timeout())
	defer cancel()

	var res *FetchResult
	judge := func(ctx context.Context, tier string, resp *fetch.Response) (content.Verdict, error) {
		if gate != nil && gate.answered != nil && (tier != TierHTTP || s.Browser == nil || req.Tier == TierHTTP) {
			// No tier follows this one (acquire.Acquirer.Get escalates
			// only from HTTP to a browser, and only under auto): the
			// page's requests are over.
			gate.answered()
		}
		var err error
		res, err = s.convertTier(ctx, tier, resp, req, gate)
		if err != nil {
			return "", err
		}
		return content.Verdict(res.Verdict), nil
	}
	steps := s.acquirer().Get(ctx, acquire.Request{URL: req.URL, Tier: req.Tier, Headers: req.Headers,
		Timeout: req.timeout(), WaitFor: time.Duration(req.WaitFor) * time.Millisecond,
		AcceptSelectors: req.AcceptSelectors}, judge)
	trace := make([]TraceStep, len(steps))
	for i, st := range steps {
		trace[i] = TraceStep{Tier: st.Tier, Verdict: string(st.Verdict), Ms: st.Duration.Milliseconds()}
		if st.Resp != nil {
			trace[i].StatusCode = st.Resp.StatusCode
		}
		if st.Err != nil {
			trace[i] = TraceStep{Tier: st.Tier, Error: model.ErrorCode(st.Err), Ms: st.Duration.Milliseconds()}
		}
	}
	if last := steps[len(steps)-1]; last.Err != nil {
		// An error is never escalated: a failed name lookup, a refused or
		// reset connection, a TLS failure, a refused address or an
		// oversized body fails the same way in a browser, and the error's
		// own words say what happened.
		return nil, trace, documentTooLarge(last.Err)
	}
	switch content.Verdict(res.Verdict) {
	case content.VerdictBlocked, content.VerdictCaptcha:
		return nil, trace, &model.Error{Code: model.CodeUpstreamError,
			Message: fmt.Sprintf("the site blocked the fetch (%s, HTTP %d) on every tier tried", res.Verdict, res.StatusCode)}
	}
	if res.StatusCode == http.StatusTooManyRequests {
		return nil, trace, &model.Error{Code: model.CodeRateLimited, RetryAfter: res.retryAfter,
			Message: "the site is rate limiting requests (HTTP 429); try again later"}
	}
	if res.StatusCode >= 500 {
		return nil, trace, model.Errorf(model.CodeUpstreamError, "the site answered HTTP %d", res.StatusCode)
	}
	return res, trace, nil
}

// acquirer is the node's acquisition path over the service's tiers and
// memory budget.
func (s *Service) acquirer() *acquire.Acquirer {
	return &acquire.Acquirer{HTTP: s.HTTP, Browser: s.Browser, Budget: s.Convert}
}

// crawlGate is what a crawl gives fetchPage for each page.
type crawlGate struct {
	// slots bound the conversions of HTTP-tier pages: each takes a slot,
	// waiting for one, and holds it while it converts (the browser renders
	// a few tabs at a time already), so that parses, which are CPU-bound,
	// stay few while many requests wait on the network.
	slots chan struct{}
	// answered, when not nil, is called once the page's last request is
	// over (its answer read, no tier left to try), before the page waits
	// for a slot and is converted: the crawl's per-host limit counts
	// requests, and the host may take the next one meanwhile. It is not
	// called when the fetch fails.
	answered func()
}

// convertTier converts one tier's answer; gate is fetchPage's.
func (s *Service) convertTier(ctx context.Context, tier string, resp *fetch.Response, req FetchRequest, gate *crawlGate) (*FetchResult, error) {
	if gate != nil && tier != TierBrowser {
		select {
		case gate.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, model.Wrap(model.CodeTimeout, ctx.Err(), "the crawl ran out of time")
		}
		defer func() { <-gate.slots }()
	}
	// The node's conversion budget: a crawl's pages wait their turn (the
	// crawl bounds how many), a caller's own page is refused when the queue
	// is full.
	hold := holdOf(ctx)
	hold.done() // an earlier tier's page is garbage now
	release, err := s.Convert.Acquire(ctx, EstimateConversion(resp.Kind, resp.Body), int64(len(resp.Body)), gate != nil)
	if err != nil {
		return nil, err
	}
	// The HTML pipeline does not watch ctx; a conversion that outlives the
	// request is left to finish on its own, keeping its budget until then,
	// and the caller gets its timeout now.
	type converted struct {
		res *FetchResult
		err error
	}
	done := make(chan converted, 1)
	go func() {
		_ = growStack()
		res, err := convert(ctx, resp, req)
		done <- converted{res, err}
	}()
	finish := func(c converted) (*FetchResult, error) {
		if hold != nil {
			hold.set(release)
		} else {
			release()
		}
		return c.res, c.err
	}
	select {
	case c := <-done:
		return finish(c)
	case <-ctx.Done():
	}
	// A reader that watches ctx (PDFs) stops at once and says why itself.
	grace := time.NewTimer(convertGrace)
	defer grace.Stop()
	select {
	case c := <-done:
		return finish(c)
	case <-grace.C:
		go func() { <-done; release() }()
		return nil, model.Wrap(model.CodeTimeout, ctx.Err(), "the page took longer to convert than the request's timeout")
	}
}

// convertGrace is how long a conversion whose request ended may take to
// stop on its own before it is left to finish in the background.
const convertGrace = 250 * time.Millisecond

// documentTooLarge words an error for a body over the size cap as Fetch
// reports it; other errors are returned as they are.
func documentTooLarge(err error) error {
	var tl *fetch.TooLargeError
	if errors.As(err, &tl) {
		return model.Wrap(model.CodeUpstreamError, err, fmt.Sprintf("the document is larger than the %d MB limit", tl.Limit>>20))
	}
	return err
}

// convert turns a fetched body into the result, parsing it once; ctx
// bounds the reading of a PDF.
func convert(ctx context.Context, resp *fetch.Response, req FetchRequest) (*FetchResult, error) {
	var doc *content.Document
	var err error
	switch resp.Kind {
	case fetch.KindHTML:
		doc, err = content.HTML(resp.Body, resp.FinalURL, content.Options{
			OnlyMainContent: *req.OnlyMainContent, IncludeHTML: req.wants(FormatHTML), IncludeLinks: req.wants(FormatLinks),
		})
		if errors.Is(err, content.ErrEmpty) && resp.StatusCode >= 400 {
			// A bare 429 or 503 says what happened through its status.
			doc, err = content.PlainText(nil), nil
		}
	case fetch.KindPDF:
		pctx, cancel := pdfContext(ctx)
		doc, err = content.PDF(pctx, resp.Body)
		cancel()
		if err != nil {
			return nil, pdfError(err)
		}
	case fetch.KindText:
		doc = content.PlainText(resp.Body)
	case fetch.KindJSON:
		doc = content.JSON(resp.Body)
	case fetch.KindXML:
		doc = content.XML(resp.Body)
	default:
		if resp.StatusCode >= 400 {
			doc = content.PlainText(nil)
			break
		}
		return nil, model.Errorf(model.CodeUpstreamError, "content type %q is not supported", resp.MediaType)
	}
	if err != nil {
		return nil, model.Wrap(model.CodeUpstreamError, err, "the page could not be parsed")
	}
	m := doc.Metadata
	res := &FetchResult{
		URL: req.URL, FinalURL: resp.FinalURL, StatusCode: resp.StatusCode,
		Title: m.Title, Description: m.Description, Language: m.Language,
		Metadata: PageMetadata{
			Title: m.Title, Description: m.Description, Language: m.Language, Canonical: m.Canonical,
			SiteName: m.SiteName, Author: m.Author, PublishedTime: m.PublishedTime, Image: m.Image,
			OpenGraph: m.OpenGraph, ETag: resp.ETag, LastModified: resp.LastModified, SizeBytes: len(resp.Body),
		},
		Tier: resp.Tier, ContentType: resp.MediaType, FetchedAt: resp.FetchedAt.UTC(),
		Verdict:    string(content.Classify(resp.StatusCode, resp.Body, doc)),
		PageType:   string(doc.PageType),
		hashed:     doc.Markdown,
		retryAfter: siteRetryAfter(resp.StatusCode, resp.Header.Get("Retry-After"), time.Now()),
	}
	if doc.Confidence >= 0 {
		c := doc.Confidence
		res.Confidence = &c
	}
	if req.wants(FormatMarkdown) {
		res.Markdown = &doc.Markdown
	}
	if req.wants(FormatText) {
		res.Text = &doc.Text
	}
	if req.wants(FormatHTML) {
		res.HTML = &doc.HTML
	}
	if req.wants(FormatRawHTML) && resp.Kind != fetch.KindPDF {
		raw := string(resp.Body)
		res.RawHTML = &raw
	}
	if req.wants(FormatLinks) {
		res.Links = make([]string, 0, len(doc.Links))
		for _, l := range doc.Links {
			res.Links = append(res.Links, l.URL)
		}
	}
	return res, nil
}

// contentHash identifies the page's content for the page store.
func (r *FetchResult) contentHash() string {
	h := sha256.New()
	io.WriteString(h, r.hashed)
	return hex.EncodeToString(h.Sum(nil))
}

// keep stores the page for maxAge answers and search; a failure to keep
// it does not fail the fetch.
func (s *Service) keep(ctx context.Context, workspaceID string, req FetchRequest, res *FetchResult) {
	b, err := json.Marshal(res)
	if err != nil {
		return
	}
	md := ""
	if res.Markdown != nil {
		md = *res.Markdown
	}
	err = s.Pages.SavePage(context.WithoutCancel(ctx), &store.Page{
		WorkspaceID: workspaceID, URL: req.URL, Variant: req.variant(), FinalURL: res.FinalURL,
		Status: res.StatusCode, Tier: res.Tier, Title: res.Title, ContentHash: res.contentHash(),
		Markdown: md, Result: b, FetchedAt: res.FetchedAt, Quality: pageQuality(res), Key: pageKey(res.FinalURL),
	})
	if err != nil {
		s.Log.Warn("keep page", "err", err, "workspace_id", workspaceID)
	}
}

// pageQuality ranks a fetched page for the page store, which never lets a
// worse copy of a URL (in the same formats) replace a better one: an error
// status (4xx) ranks lowest, then a page without its content (js_required,
// soft_404), a thin page, and a usable (ok) page; within each, a browser
// rendering ranks above an HTTP fetch, as it ran the page's scripts. A
// site that breaks for a while thus leaves its last good copy to maxAge
// answers and search until retention removes it.
func pageQuality(res *FetchResult) int {
	var q int
	switch {
	case res.StatusCode >= 400:
		q = 1
	case content.Verdict(res.Verdict) == content.VerdictOK:
		q = 4
	case content.Verdict(res.Verdict) == content.VerdictThin:
		q = 3
	default:
		q = 2
	}
	q *= 2
	if res.Tier == TierBrowser {
		q++
	}
	return q
}

// pageKey is a page's identity in the search index: the canonical form of
// its final URL (NormalizeURL), so that a redirect and its target are one
// page, with the loopback names localhost, 127.0.0.1 and [::1] taken for
// one host. It is empty when the URL does not normalise, and the store then
// keys the page by its final URL as it is.
func pageKey(finalURL string) string {
	k, err := NormalizeURL(finalURL)
	if err != nil {
		return ""
	}
	u, err := url.Parse(k)
	if err != nil {
		return k
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		host := "localhost"
		if p := u.Port(); p != "" {
			host += ":" + p
		}
		u.Host = host
		return u.String()
	}
	return k
}
