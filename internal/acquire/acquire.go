// Package acquire is the node's one way to get a page: HTTP, then a real
// browser when the site walls the HTTP answer off (Escalate is the policy),
// with the body's size cap and the node's memory budget (Budget) taken
// before a body is read whole and before it is parsed. The fetch and gyre
// primitives, the monitor check and the monitor channels' feed and
// document downloads all go through it, so that the budget bounds every
// large body of the node, not only the primitives' conversions.
package acquire

import (
	"context"
	"net/http"
	"time"

	"webacq/internal/content"
	"webacq/internal/fetch"
	"webacq/internal/metrics"
)

// Tiers a request may ask for.
const (
	TierAuto    = "auto"
	TierHTTP    = fetch.TierHTTP
	TierBrowser = fetch.TierBrowser
)

// Escalate is the escalation policy: whether an answer of the HTTP tier,
// classified as verdict, is tried again in the browser. A bot challenge
// (captcha) or a block is escalated, and so is an empty JavaScript shell
// that is not itself a rate limit or a server error. A plain 429 or 503 (no
// block notice on it: content.Classify says blocked for a 503 that carries
// one) is not: it is the site's answer to load, which a browser gets the
// same, and trying it there only doubles the load on a site that asked for
// less. Network errors never reach here: they fail the same in a browser.
func Escalate(statusCode int, verdict content.Verdict) bool {
	switch verdict {
	case content.VerdictBlocked, content.VerdictCaptcha:
		return true
	case content.VerdictJSRequired:
		return statusCode != http.StatusTooManyRequests && statusCode < 500
	}
	return false
}

// Acquirer gets pages on the node's tiers within its memory budget. Safe
// for concurrent use.
type Acquirer struct {
	HTTP    *fetch.Client
	Browser *fetch.Browser // nil: no browser tier
	Budget  *Budget        // nil: no bound
}

// Request is one page to get.
type Request struct {
	URL string
	// Tier is TierAuto (also ""), TierHTTP or TierBrowser.
	Tier            string
	Headers         map[string]string
	Timeout         time.Duration
	WaitFor         time.Duration // browser tier
	AcceptSelectors []string      // browser tier
	// IfNoneMatch and IfModifiedSince make the HTTP tier conditional.
	IfNoneMatch, IfModifiedSince string
	// MaxBytes, when set, lowers the body cap of the HTTP tier.
	MaxBytes int64
}

// Judge classifies one tier's answer, for Escalate. It may keep what it
// made of the answer (a conversion); an error ends the acquisition with
// that error on that tier.
type Judge func(ctx context.Context, tier string, resp *fetch.Response) (content.Verdict, error)

// Step is one tier tried: its answer or its error, and the verdict Judge
// gave.
type Step struct {
	Tier     string
	Resp     *fetch.Response
	Verdict  content.Verdict
	Err      error
	Duration time.Duration
}

// Get gets req.URL on the tiers req.Tier names (auto: HTTP, then the
// browser when there is one and Escalate says so) and returns each tier
// tried, the last being the one that ended the acquisition. An error on a
// tier ends it: it is not escalated.
func (a *Acquirer) Get(ctx context.Context, req Request, judge Judge) []Step {
	tiers := []string{req.Tier}
	if req.Tier == TierAuto || req.Tier == "" {
		tiers = []string{TierHTTP}
		if a.Browser != nil {
			tiers = append(tiers, TierBrowser)
		}
	}
	var steps []Step
	for _, tier := range tiers {
		t0 := time.Now()
		st := Step{Tier: tier}
		st.Resp, st.Err = a.tier(ctx, tier, req)
		if st.Err == nil && judge != nil {
			st.Verdict, st.Err = judge(ctx, tier, st.Resp)
		}
		st.Duration = time.Since(t0)
		steps = append(steps, st)
		verdict := string(st.Verdict)
		switch {
		case st.Err != nil:
			verdict = "error"
		case st.Resp.NotModified:
			verdict = "not_modified"
		case verdict == "":
			verdict = "none"
		}
		metrics.Fetch(tier, verdict)
		if st.Err != nil || st.Resp.NotModified || !Escalate(st.Resp.StatusCode, st.Verdict) {
			break
		}
	}
	return steps
}

// tier gets the page on one tier. The request's timeout is passed on so
// that it, not the tier's default, bounds the tier: ctx alone could only
// shorten that default, never lengthen it.
func (a *Acquirer) tier(ctx context.Context, tier string, req Request) (*fetch.Response, error) {
	if tier == TierBrowser {
		return a.Browser.Render(ctx, fetch.BrowserRequest{URL: req.URL, WaitFor: req.WaitFor,
			AcceptSelectors: req.AcceptSelectors, Headers: req.Headers, Timeout: req.Timeout})
	}
	return a.Fetch(ctx, fetch.Request{URL: req.URL, Headers: req.Headers, Timeout: req.Timeout,
		IfNoneMatch: req.IfNoneMatch, IfModifiedSince: req.IfModifiedSince, MaxBytes: req.MaxBytes})
}

// Fetch is one GET on the HTTP tier whose body takes the memory budget
// before it is read whole (see Reserve).
func (a *Acquirer) Fetch(ctx context.Context, r fetch.Request) (*fetch.Response, error) {
	if r.Reserve == nil {
		r.Reserve = a.Reserve
	}
	return a.HTTP.Get(ctx, r)
}

// Reserve takes the memory budget for a body of n bytes about to be read
// whole (a declared length, or the cap when none was declared), waiting as
// long as ctx lets for them, without a conversion slot: reading is not
// CPU-bound. It is the fetch.Request.Reserve of every download of the node
// (pages, feeds, documents, EDGAR answers).
func (a *Acquirer) Reserve(ctx context.Context, n int64) (release func(), err error) {
	// A body whose length is unknown reserves by the cap, which may be more
	// than a small budget holds: it then takes the whole budget, and its
	// parse, reserved by its actual size, is refused if it is too large.
	return a.Budget.Hold(ctx, min(ReadCost(n), a.Budget.Capacity()))
}

// ReadCost is what reading a body of n bytes whole may hold at its peak:
// the buffer growing to its size, and a copy when it is decoded to UTF-8.
func ReadCost(n int64) int64 { return 2 * n }

// Parse takes the memory budget for parsing or converting body (see
// EstimateConversion), waiting as long as ctx lets, and returns the func
// that gives it back. allowance, when above zero, is the most the parse may
// take: a larger one is refused at once with upstream_error, as one larger
// than the whole budget is.
func (a *Acquirer) Parse(ctx context.Context, kind fetch.Kind, body []byte, allowance int64) (release func(), err error) {
	cost := EstimateConversion(kind, body)
	if allowance > 0 && cost > allowance {
		return nil, tooLarge(cost, allowance)
	}
	return a.Budget.Acquire(ctx, cost, int64(len(body)), true)
}
