package primitive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/store"
)

// Limits of the search primitive.
const (
	SearchDefaultLimit   = 5
	SearchMaxLimit       = 20
	SearchDefaultTimeout = 60000  // milliseconds
	SearchMaxTimeout     = 300000 // milliseconds
	// SearchMaxQueryBytes is Brave's limit, the strictest of the providers.
	SearchMaxQueryBytes = 400

	// searchFetchWorkers is the number of result pages fetched at once.
	searchFetchWorkers = 4
	// searchMaxBody caps a provider's answer.
	searchMaxBody = 4 << 20
	// searchUserAgent is sent to search providers.
	searchUserAgent = "webacq"
)

// Search providers, as named by WEBACQ_SEARCH_PROVIDER and in results.
const (
	ProviderLocal   = "local"
	ProviderSearXNG = "searxng"
	ProviderBrave   = "brave"
)

// Time filters of a search request.
var searchTbs = map[string]time.Duration{
	"qdr:h": time.Hour,
	"qdr:d": 24 * time.Hour,
	"qdr:w": 7 * 24 * time.Hour,
	"qdr:m": 31 * 24 * time.Hour,
	"qdr:y": 365 * 24 * time.Hour,
}

// SearchRequest is the body of POST /api/v1/search and the arguments of the
// svc_search tool.
type SearchRequest struct {
	Query        string   `json:"query" jsonschema:"what to search for (at most 400 bytes). On the built-in index of pages already acquired: all words must appear; \"quoted words\" form a phrase; -word excludes; or between words accepts either"`
	Limit        *int     `json:"limit,omitempty" jsonschema:"the most results to return, from 1 to 20; default 5"`
	Fetch        bool     `json:"fetch,omitempty" jsonschema:"also fetch every result page and return it as page (1 credit per page on the HTTP tier, 3 on the browser tier, nothing for a page that fails)"`
	FetchFormats []string `json:"fetchFormats,omitempty" jsonschema:"with fetch: what each page holds: markdown (default), html, rawHtml, links, text"`
	Tbs          string   `json:"tbs,omitempty" jsonschema:"time filter: qdr:h (past hour), qdr:d (day), qdr:w (week), qdr:m (month) or qdr:y (year)"`
	Tier         string   `json:"tier,omitempty" jsonschema:"with fetch: auto (default), http or browser, as in fetch"`
	Timeout      *int     `json:"timeout,omitempty" jsonschema:"milliseconds after which search returns the results with the pages fetched so far, from 1 to 300000; default 60000"`
	MaxCredits   *int     `json:"maxCredits,omitempty" jsonschema:"the most credits the search may draw, at least 1; result pages that would exceed it are not fetched"`
}

// Normalize checks r and fills its defaults. browser says whether a
// browser tier exists.
func (r *SearchRequest) Normalize(browser bool) error {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" {
		return model.Errorf(model.CodeBadRequest, "query is required")
	}
	if len(r.Query) > SearchMaxQueryBytes || !utf8.ValidString(r.Query) {
		return model.Errorf(model.CodeBadRequest, "query must be valid UTF-8 of at most %d bytes", SearchMaxQueryBytes)
	}
	if r.Limit == nil {
		v := SearchDefaultLimit
		r.Limit = &v
	} else if *r.Limit < 1 || *r.Limit > SearchMaxLimit {
		return model.Errorf(model.CodeBadRequest, "limit must be between 1 and %d", SearchMaxLimit)
	}
	if _, ok := searchTbs[r.Tbs]; !ok && r.Tbs != "" {
		return model.Errorf(model.CodeBadRequest, "tbs must be qdr:h, qdr:d, qdr:w, qdr:m or qdr:y")
	}
	if r.Timeout == nil {
		v := SearchDefaultTimeout
		r.Timeout = &v
	} else if *r.Timeout < 1 || *r.Timeout > SearchMaxTimeout {
		return model.Errorf(model.CodeBadRequest, "timeout must be between 1 and %d milliseconds", SearchMaxTimeout)
	}
	if r.MaxCredits != nil && *r.MaxCredits < billing.SearchBase {
		return model.Errorf(model.CodeBadRequest, "maxCredits must be at least %d", billing.SearchBase)
	}
	for _, f := range r.FetchFormats {
		if !slices.Contains(allFormats, f) {
			return model.Errorf(model.CodeBadRequest, "unknown fetchFormats value %q: use %s", f, strings.Join(allFormats, ", "))
		}
	}
	switch r.Tier {
	case "":
		r.Tier = TierAuto
	case TierAuto, TierHTTP:
	case TierBrowser:
		if r.Fetch && !browser {
			return model.Errorf(model.CodeUnavailable, "the browser tier is not available on this server (install chromium or set WEBACQ_CHROMIUM)")
		}
	default:
		return model.Errorf(model.CodeBadRequest, "tier must be auto, http or browser")
	}
	return nil
}

// MaxCost is what a normalised request may cost at most: the base, plus
// each result page at the price its tier may reach, within maxCredits.
func (r *SearchRequest) MaxCost(browser bool) int64 {
	c := int64(billing.SearchBase)
	if r.Fetch {
		limit := SearchDefaultLimit
		if r.Limit != nil {
			limit = *r.Limit
		}
		fr := r.subFetch("")
		if fr.Tier == "" {
			fr.Tier = TierAuto
		}
		c += int64(limit) * fr.MaxCost(browser)
	}
	if r.MaxCredits != nil {
		c = min(c, int64(*r.MaxCredits))
	}
	return c
}

// subFetch is the fetch request of one result page.
func (r *SearchRequest) subFetch(u string) FetchRequest {
	return FetchRequest{URL: u, Formats: slices.Clone(r.FetchFormats), Tier: r.Tier}
}

// since is the oldest time the request's tbs accepts; zero without one.
func (r *SearchRequest) since(now time.Time) time.Time {
	d, ok := searchTbs[r.Tbs]
	if !ok {
		return time.Time{}
	}
	return now.Add(-d)
}

// SearchHit is one result of a search.
type SearchHit struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
	// PublishedAt is the publication time the provider reports, RFC 3339.
	PublishedAt string `json:"publishedAt,omitempty"`
	// Page is the fetched page, with fetch, when its fetch succeeded.
	Page *FetchResult `json:"page,omitempty"`
}

// SearchResult is the data of a search.
type SearchResult struct {
	Query    string      `json:"query"`
	Provider string      `json:"provider"`
	Results  []SearchHit `json:"results"`
	// Hint says why a search found nothing when the provider knows (the
	// built-in index of a workspace that has fetched no page yet) and
	// what to do about it.
	Hint string `json:"hint,omitempty"`
}

// hinter is a provider that can say why a search found nothing.
type hinter interface {
	Hint(ctx context.Context, workspaceID string) string
}

// Cost is the price of the search: the base plus each page fetched at its
// tier's price. Pages that failed were not fetched and cost nothing.
func (r *SearchResult) Cost() int64 {
	c := int64(billing.SearchBase)
	for _, h := range r.Results {
		if h.Page != nil {
			c += billing.FetchCost(h.Page.Tier)
		}
	}
	return c
}

// SearchProvider finds pages for a query. There are three: the built-in
// index of the pages a workspace acquired, SearXNG and Brave Search.
type SearchProvider interface {
	// Name is the provider's name as results report it.
	Name() string
	// Search returns at most limit hits, best first, published (or, for the
	// built-in index, acquired) at or after since when it is not zero.
	// Errors carry a model code.
	Search(ctx context.Context, workspaceID, query string, limit int, since time.Time) ([]SearchHit, error)
}

// NewSearchProvider returns the provider WEBACQ_SEARCH_PROVIDER names
// ("" is local), or an error that says which setting is missing. client
// makes the requests of the external providers (nil: http.DefaultClient).
func NewSearchProvider(name string, pages *store.Store, searxngURL, braveKey string, client *http.Client) (SearchProvider, error) {
	switch name {
	case "", ProviderLocal:
		return NewLocalSearch(pages), nil
	case ProviderSearXNG:
		if searxngURL == "" {
			return nil, errors.New("WEBACQ_SEARCH_PROVIDER=searxng needs WEBACQ_SEARXNG_URL")
		}
		if _, err := parseBaseURL(searxngURL); err != nil {
			return nil, fmt.Errorf("WEBACQ_SEARXNG_URL: %w", err)
		}
		return NewSearXNG(searxngURL, client), nil
	case ProviderBrave:
		if braveKey == "" {
			return nil, errors.New("WEBACQ_SEARCH_PROVIDER=brave needs WEBACQ_BRAVE_API_KEY")
		}
		return NewBrave(braveKey, "", client), nil
	}
	return nil, fmt.Errorf("WEBACQ_SEARCH_PROVIDER=%q: want local, searxng or brave", name)
}

// SearchWith runs a search through provider for a workspace (whose pages
// the built-in index searches, and which keeps the pages fetched) and, with
// req.Fetch, fetches every result page, searchFetchWorkers at a time, each as
// fetch would with req.FetchFormats and req.Tier. progress, when not nil, is
// called after each page fetch with the pages done and to do.
//
// The search fails only when the provider does. A page that cannot be
// fetched (refused URL, blocked, timeout) is left without page and costs
// nothing; so is a page the maxCredits budget cannot cover (an auto fetch
// that cannot afford the browser stays on HTTP). At req.Timeout the search
// returns its results with the pages fetched by then.
func (s *Service) SearchWith(ctx context.Context, provider SearchProvider, workspaceID string, req SearchRequest, progress func(done, total int)) (*SearchResult, error) {
	if provider == nil {
		return nil, model.Errorf(model.CodeUnavailable,
			"search is not configured: set WEBACQ_SEARCH_PROVIDER to local, searxng (with WEBACQ_SEARXNG_URL) or brave (with WEBACQ_BRAVE_API_KEY)")
	}
	browser := s.Browser != nil
	if err := req.Normalize(browser); err != nil {
		return nil, err
	}
	if req.Fetch && s.HTTP == nil {
		return nil, model.Errorf(model.CodeUnavailable, "fetching is not configured")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(*req.Timeout)*time.Millisecond)
	defer cancel()

	hits, err := provider.Search(ctx, workspaceID, req.Query, *req.Limit, req.since(time.Now()))
	if err != nil {
		if model.ErrorCode(err) == model.CodeInternal && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, model.Wrap(model.CodeTimeout, err, "the search provider did not answer in time")
		}
		return nil, err
	}
	if len(hits) > *req.Limit {
		hits = hits[:*req.Limit]
	}
	if hits == nil {
		hits = []SearchHit{}
	}
	res := &SearchResult{Query: req.Query, Provider: provider.Name(), Results: hits}
	if h, ok := provider.(hinter); ok && len(hits) == 0 {
		res.Hint = h.Hint(ctx, workspaceID)
	}
	if req.Fetch && len(hits) > 0 {
		s.fetchHits(ctx, workspaceID, &req, res.Results, progress)
	}
	return res, nil
}

// fetchHits fills the pages of hits within the request's credit budget.
func (s *Service) fetchHits(ctx context.Context, workspaceID string, req *SearchRequest, hits []SearchHit, progress func(done, total int)) {
	browser := s.Browser != nil
	budget := newCreditBudget(math.MaxInt64)
	if req.MaxCredits != nil {
		budget = newCreditBudget(int64(*req.MaxCredits) - billing.SearchBase)
	}
	var mu sync.Mutex // guards done and progress calls
	done := 0
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(searchFetchWorkers, len(hits)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				hits[i].Page = s.fetchHit(ctx, workspaceID, req, hits[i].URL, browser, budget)
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(hits))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range hits {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// fetchHit fetches one result page; nil when it fails or the budget cannot
// cover it.
func (s *Service) fetchHit(ctx context.Context, workspaceID string, req *SearchRequest, u string, browser bool, budget *creditBudget) *FetchResult {
	if ctx.Err() != nil {
		return nil
	}
	fr := req.subFetch(u)
	if err := fr.Normalize(s.HTTP.CheckURL, browser); err != nil {
		s.debug("search: result not fetchable", "url", u, "err", err)
		return nil
	}
	held := budget.take(fr.MaxCost(browser))
	if held == 0 && fr.Tier == TierAuto {
		fr.Tier = TierHTTP
		held = budget.take(fr.MaxCost(browser))
	}
	if held == 0 {
		return nil
	}
	page, err := s.Fetch(ctx, workspaceID, fr)
	if err != nil {
		budget.settle(held, 0)
		s.debug("search: result fetch failed", "url", u, "err", err)
		return nil
	}
	budget.settle(held, billing.FetchCost(page.Tier))
	return page
}

func (s *Service) debug(msg string, args ...any) {
	if s.Log != nil {
		s.Log.Debug(msg, args...)
	}
}

// creditBudget is what a search may still spend on page fetches. Credits
// held by a fetch in flight come back when it fails or costs less, so a
// fetch the budget cannot cover waits for those before it gives up.
type creditBudget struct {
	mu   sync.Mutex
	cond *sync.Cond
	left int64 // neither held nor spent
	held int64 // by fetches in flight
}

func newCreditBudget(left int64) *creditBudget {
	b := &creditBudget{left: left}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// take holds n credits and returns n, or 0 when they cannot be had.
func (b *creditBudget) take(n int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.left < n && b.held > 0 {
		b.cond.Wait()
	}
	if b.left < n {
		return 0
	}
	b.left -= n
	b.held += n
	return n
}

// settle ends a hold of held credits of which used were spent.
func (b *creditBudget) settle(held, used int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= held
	b.left += held - used
	b.cond.Broadcast()
}

// localSearch is the built-in full-text index over the workspace's pages.
type localSearch struct{ pages *store.Store }

// NewLocalSearch returns the provider that searches the pages each
// workspace acquired, and only those. pages may be nil (no page store):
// every search then answers unavailable.
func NewLocalSearch(pages *store.Store) SearchProvider { return &localSearch{pages: pages} }

func (l *localSearch) Name() string { return ProviderLocal }

func (l *localSearch) Search(ctx context.Context, workspaceID, query string, limit int, since time.Time) ([]SearchHit, error) {
	if l.pages == nil {
		return nil, model.Errorf(model.CodeUnavailable, "the built-in search index needs the page store, which this command does not open")
	}
	found, err := l.pages.SearchPages(ctx, workspaceID, query, limit, since)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, model.Wrap(model.CodeTimeout, err, "the search did not finish in time")
		}
		return nil, err
	}
	hits := make([]SearchHit, 0, len(found))
	for _, p := range found {
		hits = append(hits, SearchHit{URL: p.URL, Title: p.Title, Snippet: p.Snippet})
	}
	return hits, nil
}

// Hint explains an empty answer of the built-in index: it holds only the
// pages the workspace acquired, so a workspace that acquired none finds
// nothing; the web search providers are a setting away.
func (l *localSearch) Hint(ctx context.Context, workspaceID string) string {
	const providers = "set WEBACQ_SEARCH_PROVIDER=searxng (with WEBACQ_SEARXNG_URL) or brave (with WEBACQ_BRAVE_API_KEY) to search the web"
	if l.pages == nil {
		return ""
	}
	if has, err := l.pages.HasPages(ctx, workspaceID); err == nil && !has {
		return "the built-in index searches only the pages this workspace has fetched or crawled, and it has none yet: fetch or crawl pages first, or " + providers
	}
	return "the built-in index searches only the pages this workspace has fetched or crawled; none of them matches. To search the web, " + providers
}

// searxng queries a SearXNG instance's JSON API.
type searxng struct {
	base   string
	client *http.Client
}

// NewSearXNG returns the provider that asks the SearXNG instance at baseURL
// (the address its web interface answers on) through its JSON API, which
// the instance must enable (search.formats in its settings.yml).
func NewSearXNG(baseURL string, client *http.Client) SearchProvider {
	return &searxng{base: baseURL, client: orDefault(client)}
}

func (x *searxng) Name() string { return ProviderSearXNG }

// Search asks for the first page of results. SearXNG filters by day, week,
// month or year; a narrower since (qdr:h) is applied to the results that
// carry a publishedDate, and results without one are kept.
func (x *searxng) Search(ctx context.Context, _, query string, limit int, since time.Time) ([]SearchHit, error) {
	base, err := parseBaseURL(x.base)
	if err != nil {
		return nil, model.Wrap(model.CodeUnavailable, err, "SearXNG is not configured: set WEBACQ_SEARXNG_URL to the instance's address")
	}
	u := base.JoinPath("search")
	q := url.Values{"q": {query}, "format": {"json"}, "pageno": {"1"}}
	if r := timeRange(since); r != "" {
		q.Set("time_range", r)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, model.Wrap(model.CodeUnavailable, err, "WEBACQ_SEARXNG_URL is not a usable address")
	}
	req.Header.Set("Accept", "application/json")
	var body struct {
		Results []struct {
			URL           string  `json:"url"`
			Title         string  `json:"title"`
			Content       string  `json:"content"`
			PublishedDate *string `json:"publishedDate"`
		} `json:"results"`
	}
	if err := getJSON(ctx, x.client, req, "SearXNG", &body); err != nil {
		return nil, err
	}
	var hits []SearchHit
	for _, r := range body.Results {
		published := ""
		if r.PublishedDate != nil {
			published = *r.PublishedDate
		}
		if h, ok := makeHit(r.URL, r.Title, r.Content, published, since); ok {
			hits = append(hits, h)
		}
		if len(hits) == limit {
			break
		}
	}
	return hits, nil
}

// braveDefaultBase is where the Brave Search API answers.
const braveDefaultBase = "https://api.search.brave.com"

// brave queries the Brave Search web search API.
type brave struct {
	key    string
	base   string
	client *http.Client
}

// NewBrave returns the provider that asks the Brave Search API with apiKey;
// baseURL "" is Brave's own address (tests and proxies set another).
func NewBrave(apiKey, baseURL string, client *http.Client) SearchProvider {
	if baseURL == "" {
		baseURL = braveDefaultBase
	}
	return &brave{key: apiKey, base: baseURL, client: orDefault(client)}
}

func (b *brave) Name() string { return ProviderBrave }

// Search asks for limit web results. Brave's narrowest freshness is a day;
// a narrower since (qdr:h) is applied to results that carry page_age.
func (b *brave) Search(ctx context.Context, _, query string, limit int, since time.Time) ([]SearchHit, error) {
	if b.key == "" {
		return nil, model.Errorf(model.CodeUnavailable, "Brave Search is not configured: set WEBACQ_BRAVE_API_KEY")
	}
	base, err := parseBaseURL(b.base)
	if err != nil {
		return nil, model.Wrap(model.CodeUnavailable, err, "the Brave Search address is not usable")
	}
	u := base.JoinPath("res", "v1", "web", "search")
	q := url.Values{"q": {query}, "count": {strconv.Itoa(min(max(limit, 1), 20))}}
	switch timeRange(since) {
	case "day":
		q.Set("freshness", "pd")
	case "week":
		q.Set("freshness", "pw")
	case "month":
		q.Set("freshness", "pm")
	case "year":
		q.Set("freshness", "py")
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, model.Wrap(model.CodeUnavailable, err, "the Brave Search address is not usable")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key)
	var body struct {
		Web struct {
			Results []struct {
				URL         string `json:"url"`
				Title       string `json:"title"`
				Description string `json:"description"`
				PageAge     string `json:"page_age"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := getJSON(ctx, b.client, req, "Brave Search", &body); err != nil {
		return nil, err
	}
	var hits []SearchHit
	for _, r := range body.Web.Results {
		if h, ok := makeHit(r.URL, r.Title, r.Description, r.PageAge, since); ok {
			hits = append(hits, h)
		}
		if len(hits) == limit {
			break
		}
	}
	return hits, nil
}

func orDefault(c *http.Client) *http.Client {
	if c == nil {
		return http.DefaultClient
	}
	return c
}

// parseBaseURL checks the address of a provider.
func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("no address")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("want an absolute http or https URL")
	}
	return u, nil
}

// timeRange is the coarsest of day, week, month and year that covers since
// ("" for zero since: no filter).
func timeRange(since time.Time) string {
	if since.IsZero() {
		return ""
	}
	switch d := time.Since(since); {
	case d <= 25*time.Hour:
		return "day"
	case d <= 8*24*time.Hour:
		return "week"
	case d <= 32*24*time.Hour:
		return "month"
	}
	return "year"
}

// getJSON sends req and decodes its JSON answer into v, turning every
// failure into a coded error that names the provider (never the request's
// credentials or address).
func getJSON(ctx context.Context, client *http.Client, req *http.Request, name string, v any) error {
	// SearXNG's bot detection turns away Go's default User-Agent.
	req.Header.Set("User-Agent", searchUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return providerErr(ctx, name, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		msg := name + " refused the request (HTTP " + strconv.Itoa(resp.StatusCode) + ")"
		switch name {
		case "Brave Search":
			msg += ": check WEBACQ_BRAVE_API_KEY"
		case "SearXNG":
			msg += ": enable the json format in search.formats of the instance's settings.yml"
		}
		return model.Errorf(model.CodeUpstreamError, "%s", msg)
	case resp.StatusCode == http.StatusTooManyRequests:
		e := model.Errorf(model.CodeUpstreamError, "%s is rate limiting this server (HTTP 429); try again later", name)
		e.RetryAfter = siteRetryAfter(resp.StatusCode, resp.Header.Get("Retry-After"), time.Now())
		return e
	case resp.StatusCode != http.StatusOK:
		return model.Errorf(model.CodeUpstreamError, "%s answered HTTP %d", name, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, searchMaxBody+1))
	if err != nil {
		return providerErr(ctx, name, err)
	}
	if len(b) > searchMaxBody {
		return model.Errorf(model.CodeUpstreamError, "%s answered more than %d MB", name, searchMaxBody>>20)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return model.Wrap(model.CodeUpstreamError, err, name+" answered something other than its JSON results")
	}
	return nil
}

// providerErr classifies a transport failure.
func providerErr(ctx context.Context, name string, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return model.Wrap(model.CodeTimeout, err, name+" did not answer in time")
	case errors.Is(err, context.Canceled):
		return model.Wrap(model.CodeUpstreamError, err, "the request to "+name+" was canceled")
	case errors.Is(err, syscall.ECONNREFUSED):
		return model.Wrap(model.CodeUpstreamError, err, name+" refused the connection")
	}
	return model.Wrap(model.CodeUpstreamError, err, name+" could not be reached")
}

// makeHit cleans a provider's result; ok is false for a result without an
// http(s) URL or published before since.
func makeHit(rawURL, title, snippet, published string, since time.Time) (SearchHit, bool) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return SearchHit{}, false
	}
	h := SearchHit{URL: u.String(), Title: plainText(title), Snippet: plainText(snippet)}
	if t, ok := parsePublished(published); ok {
		if !since.IsZero() && t.Before(since) {
			return SearchHit{}, false
		}
		h.PublishedAt = t.UTC().Format(time.RFC3339)
	}
	return h, true
}

// parsePublished reads the dates providers give: RFC 3339, or ISO 8601
// without a zone (taken as UTC), or a bare date.
func parsePublished(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// plainText strips the markup providers put in titles and snippets (Brave
// wraps matched words in <strong>) and puts them on one line.
func plainText(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || i+1 == len(s) {
			b.WriteString(s)
			break
		}
		// Only "<" before a letter, "/" or "!" opens a tag; "a < b" is text.
		c := s[i+1]
		end := strings.IndexByte(s[i:], '>')
		if end < 0 || !(c == '/' || c == '!' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		s = s[i+end+1:]
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}
