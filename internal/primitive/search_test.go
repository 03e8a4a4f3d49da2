package primitive

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func intp(v int) *int { return &v }

func searchService(pages *store.Store) *Service {
	return &Service{
		HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Pages: pages,
		Log: slog.New(slog.DiscardHandler), UserAgent: "webacq",
	}
}

func TestSearchRequestNormalize(t *testing.T) {
	r := SearchRequest{Query: "  golang  "}
	if err := r.Normalize(false); err != nil {
		t.Fatal(err)
	}
	if r.Query != "golang" || *r.Limit != SearchDefaultLimit || *r.Timeout != SearchDefaultTimeout || r.Tier != TierAuto {
		t.Fatalf("defaults: %+v", r)
	}
	bad := map[string]SearchRequest{
		"empty query":       {Query: "  "},
		"long query":        {Query: strings.Repeat("a", SearchMaxQueryBytes+1)},
		"invalid UTF-8":     {Query: "a\xff"},
		"limit 0":           {Query: "q", Limit: intp(0)},
		"limit 21":          {Query: "q", Limit: intp(21)},
		"tbs":               {Query: "q", Tbs: "qdr:x"},
		"timeout 0":         {Query: "q", Timeout: intp(0)},
		"timeout too long":  {Query: "q", Timeout: intp(SearchMaxTimeout + 1)},
		"maxCredits 0":      {Query: "q", MaxCredits: intp(0)},
		"fetch format":      {Query: "q", Fetch: true, FetchFormats: []string{"pdf"}},
		"tier":              {Query: "q", Tier: "fast"},
		"browser, none":     {Query: "q", Fetch: true, Tier: TierBrowser},
		"negative maxCreds": {Query: "q", MaxCredits: intp(-3)},
	}
	for name, r := range bad {
		err := r.Normalize(false)
		want := model.CodeBadRequest
		if name == "browser, none" {
			want = model.CodeUnavailable
		}
		if model.ErrorCode(err) != want {
			t.Errorf("%s: got %v, want %s", name, err, want)
		}
	}
	for _, tbs := range []string{"", "qdr:h", "qdr:d", "qdr:w", "qdr:m", "qdr:y"} {
		r := SearchRequest{Query: "q", Tbs: tbs}
		if err := r.Normalize(false); err != nil {
			t.Errorf("tbs %q: %v", tbs, err)
		}
	}
}

func TestSearchMaxCostAndCost(t *testing.T) {
	cases := []struct {
		req     SearchRequest
		browser bool
		want    int64
	}{
		{SearchRequest{Query: "q"}, true, 1},
		{SearchRequest{Query: "q", Fetch: true}, false, 1 + 5},
		{SearchRequest{Query: "q", Fetch: true}, true, 1 + 5*3},
		{SearchRequest{Query: "q", Fetch: true, Tier: TierHTTP}, true, 1 + 5},
		{SearchRequest{Query: "q", Fetch: true, Limit: intp(20), Tier: TierBrowser}, true, 1 + 20*3},
		{SearchRequest{Query: "q", Fetch: true, MaxCredits: intp(4)}, true, 4},
		{SearchRequest{Query: "q", Fetch: true, MaxCredits: intp(100)}, false, 6},
	}
	for i, c := range cases {
		if err := c.req.Normalize(c.browser); err != nil {
			t.Fatal(err)
		}
		if got := c.req.MaxCost(c.browser); got != c.want {
			t.Errorf("case %d: MaxCost = %d, want %d", i, got, c.want)
		}
	}
	res := SearchResult{Results: []SearchHit{
		{Page: &FetchResult{Tier: TierHTTP}}, {}, {Page: &FetchResult{Tier: TierBrowser}}, {Page: &FetchResult{Tier: TierHTTP}},
	}}
	if got := res.Cost(); got != 1+1+3+1 {
		t.Errorf("Cost = %d, want 6", got)
	}
	if got := (&SearchResult{}).Cost(); got != 1 {
		t.Errorf("Cost without results = %d, want 1", got)
	}
}

func TestLocalSearch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		st := storetest.Open(t, dialect)
		a, err := st.CreateWorkspace(ctx, "a", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.CreateWorkspace(ctx, "b", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		save := func(ws, u, title, md string, at time.Time) {
			t.Helper()
			err := st.SavePage(ctx, &store.Page{WorkspaceID: ws, URL: u, Variant: "v", FinalURL: u, Status: 200,
				Tier: "http", Title: title, ContentHash: "h", Markdown: md, Result: []byte(`{}`), FetchedAt: at})
			if err != nil {
				t.Fatal(err)
			}
		}
		save(a.ID, "https://a.test/new", "Heliotrope report", "Fresh heliotrope findings.", now)
		save(a.ID, "https://a.test/old", "Old notes", "Heliotrope, mentioned long ago.", now.Add(-48*time.Hour))
		save(b.ID, "https://b.test/", "Heliotrope report", "Fresh heliotrope findings.", now)

		svc := searchService(st)
		local := NewLocalSearch(st)
		// An empty index says why it found nothing, and which settings
		// search the web (issue 22).
		empty, err := st.CreateWorkspace(ctx, "empty", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := svc.SearchWith(ctx, local, empty.ID, SearchRequest{Query: "heliotrope"}, nil)
		if err != nil || len(res.Results) != 0 || !strings.Contains(res.Hint, "has none yet") || !strings.Contains(res.Hint, "WEBACQ_SEARCH_PROVIDER") {
			t.Fatalf("search of an empty index: %+v %v", res, err)
		}
		if res, _ := svc.SearchWith(ctx, local, a.ID, SearchRequest{Query: "zzyzx"}, nil); res == nil || !strings.Contains(res.Hint, "none of them matches") {
			t.Fatalf("a search matching nothing: %+v", res)
		}
		res, err = svc.SearchWith(ctx, local, a.ID, SearchRequest{Query: "heliotrope"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Provider != ProviderLocal || res.Query != "heliotrope" || len(res.Results) != 2 || res.Hint != "" {
			t.Fatalf("got %+v", res)
		}
		if h := res.Results[0]; h.URL != "https://a.test/new" || h.Title != "Heliotrope report" ||
			!strings.Contains(strings.ToLower(h.Snippet), "heliotrope") || h.Page != nil {
			t.Errorf("first hit %+v", h)
		}
		for _, h := range res.Results {
			if strings.HasPrefix(h.URL, "https://b.test") {
				t.Fatalf("workspace a sees workspace b's page %s", h.URL)
			}
		}
		res, err = svc.SearchWith(ctx, local, a.ID, SearchRequest{Query: "heliotrope", Tbs: "qdr:d"}, nil)
		if err != nil || len(res.Results) != 1 || res.Results[0].URL != "https://a.test/new" {
			t.Fatalf("qdr:d: got %+v, %v", res, err)
		}
		res, err = svc.SearchWith(ctx, local, a.ID, SearchRequest{Query: "heliotrope", Limit: intp(1)}, nil)
		if err != nil || len(res.Results) != 1 {
			t.Fatalf("limit 1: got %+v, %v", res, err)
		}
		res, err = svc.SearchWith(ctx, local, a.ID, SearchRequest{Query: "nothing-like-this"}, nil)
		if err != nil || res.Results == nil || len(res.Results) != 0 {
			t.Fatalf("no match: got %#v, %v (want an empty, non-nil list)", res, err)
		}

		// Pages acquired through fetch become searchable in their workspace.
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Quokka facts</title></head><body><main><h1>Quokka facts</h1>
				<p>The quokka is a small marsupial found on Rottnest Island, known for its apparent smile.</p>
				<p>Quokkas are herbivores and mostly nocturnal.</p></main></body></html>`)
		}))
		defer site.Close()
		fr := FetchRequest{URL: site.URL + "/quokka"}
		if err := fr.Normalize(svc.HTTP.CheckURL, false); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Fetch(ctx, a.ID, fr); err != nil {
			t.Fatal(err)
		}
		res, err = svc.SearchWith(ctx, local, a.ID, SearchRequest{Query: "quokka marsupial"}, nil)
		if err != nil || len(res.Results) != 1 || res.Results[0].URL != fr.URL {
			t.Fatalf("fetched page: got %+v, %v", res, err)
		}
		if res, err := svc.SearchWith(ctx, local, b.ID, SearchRequest{Query: "quokka"}, nil); err != nil || len(res.Results) != 0 {
			t.Fatalf("other workspace finds the fetched page: %+v, %v", res, err)
		}
	})
}

func TestSearchUnconfigured(t *testing.T) {
	ctx := context.Background()
	svc := searchService(nil)
	req := SearchRequest{Query: "q"}
	for name, p := range map[string]SearchProvider{
		"nil":              nil,
		"local, no store":  NewLocalSearch(nil),
		"searxng, no URL":  NewSearXNG("", nil),
		"searxng, bad URL": NewSearXNG("not a url", nil),
		"brave, no key":    NewBrave("", "", nil),
	} {
		_, err := svc.SearchWith(ctx, p, "ws", req, nil)
		if model.ErrorCode(err) != model.CodeUnavailable {
			t.Errorf("%s: got %v, want unavailable", name, err)
		}
	}
	for _, c := range []struct{ name, searx, key string }{
		{"searxng", "", ""}, {"searxng", "ftp://x", ""}, {"brave", "", ""}, {"bing", "", ""},
	} {
		if _, err := NewSearchProvider(c.name, nil, c.searx, c.key, nil); err == nil {
			t.Errorf("NewSearchProvider(%q, %q, %q): want an error", c.name, c.searx, c.key)
		}
	}
	for _, name := range []string{"", "local", "searxng", "brave"} {
		p, err := NewSearchProvider(name, nil, "http://127.0.0.1:8888", "k", nil)
		if err != nil {
			t.Fatalf("NewSearchProvider(%q): %v", name, err)
		}
		if want := name; want != "" && p.Name() != want {
			t.Errorf("NewSearchProvider(%q).Name() = %q", name, p.Name())
		}
	}
}

// upstream is a stand-in for a search provider's API that records the
// requests it gets.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
	h    http.HandlerFunc
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.reqs = append(u.reqs, r.Clone(context.Background()))
		h := u.h
		u.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) answer(h http.HandlerFunc) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.h = h
}

func (u *upstream) last(t *testing.T) *http.Request {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.reqs) == 0 {
		t.Fatal("the provider got no request")
	}
	return u.reqs[len(u.reqs)-1]
}

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// searxngBody is an answer in SearXNG's JSON format (abridged).
const searxngBody = `{
  "query": "go generics",
  "number_of_results": 0,
  "results": [
    {"url": "https://go.dev/doc/tutorial/generics", "title": "Tutorial: Getting started with generics",
     "content": "This tutorial introduces the basics of generics in Go &amp; more.", "engine": "duckduckgo",
     "parsed_url": ["https", "go.dev", "/doc/tutorial/generics", "", "", ""], "template": "default.html",
     "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general",
     "publishedDate": null},
    {"url": "https://example.org/recent", "title": "Recent post", "content": "Written minutes ago.",
     "engine": "bing", "score": 2.0, "category": "general", "publishedDate": "%s"},
    {"url": "https://example.org/older", "title": "Older post", "content": "Written this morning.",
     "engine": "bing", "score": 1.5, "category": "general", "publishedDate": "%s"},
    {"url": "javascript:alert(1)", "title": "Not a page", "content": "", "engine": "x", "score": 1.0},
    {"url": "https://example.org/4", "title": "Four", "content": "", "engine": "x", "score": 0.5}
  ],
  "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["go generics tutorial"],
  "unresponsive_engines": []
}`

func TestSearXNG(t *testing.T) {
	ctx := context.Background()
	up := newUpstream(t)
	now := time.Now().UTC()
	recent := now.Add(-10 * time.Minute).Format("2006-01-02T15:04:05")
	older := now.Add(-5 * time.Hour).Format("2006-01-02T15:04:05")
	up.answer(jsonAnswer(200, fmt.Sprintf(searxngBody, recent, older)))
	svc := searchService(nil)
	p := NewSearXNG(up.URL+"/searx/", up.Client())

	res, err := svc.SearchWith(ctx, p, "ws", SearchRequest{Query: "go generics", Tbs: "qdr:w", Limit: intp(3)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := up.last(t)
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/searx/search" || q.Get("q") != "go generics" ||
		q.Get("format") != "json" || q.Get("time_range") != "week" || strings.Contains(r.UserAgent(), "Go-http-client") {
		t.Errorf("request %s %s", r.Method, r.URL)
	}
	if res.Provider != ProviderSearXNG || len(res.Results) != 3 {
		t.Fatalf("got %+v, want 3 results", res)
	}
	h := res.Results[0]
	if h.URL != "https://go.dev/doc/tutorial/generics" || h.Title != "Tutorial: Getting started with generics" ||
		h.Snippet != "This tutorial introduces the basics of generics in Go & more." || h.PublishedAt != "" {
		t.Errorf("first result %+v", h)
	}
	if got := res.Results[1].PublishedAt; got != now.Add(-10*time.Minute).Format(time.RFC3339) {
		t.Errorf("publishedAt %q", got)
	}
	if res.Results[2].URL != "https://example.org/older" {
		t.Errorf("third result %s: a javascript: URL must be dropped", res.Results[2].URL)
	}

	// No hour range in SearXNG: ask for a day and drop what is dated older.
	res, err = svc.SearchWith(ctx, p, "ws", SearchRequest{Query: "go generics", Tbs: "qdr:h", Limit: intp(20)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := up.last(t).URL.Query().Get("time_range"); got != "day" {
		t.Errorf("qdr:h: time_range %q, want day", got)
	}
	var got []string
	for _, h := range res.Results {
		got = append(got, h.URL)
	}
	if strings.Join(got, " ") != "https://go.dev/doc/tutorial/generics https://example.org/recent https://example.org/4" {
		t.Errorf("qdr:h results %v: want the undated and the recent ones", got)
	}
	if _, err := svc.SearchWith(ctx, p, "ws", SearchRequest{Query: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if up.last(t).URL.Query().Has("time_range") {
		t.Errorf("no tbs: time_range sent")
	}

	testProviderFailures(t, up, p, "")
}

// braveBody is an answer in Brave Search's web search format (abridged).
const braveBody = `{
  "type": "search",
  "query": {"original": "rust ownership", "more_results_available": true},
  "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}]},
  "web": {
    "type": "search",
    "family_friendly": true,
    "results": [
      {"type": "search_result", "title": "Understanding <strong>Ownership</strong> - The Rust Book",
       "url": "https://doc.rust-lang.org/book/ch04-00-understanding-ownership.html",
       "description": "<strong>Ownership</strong> is Rust&#x27;s most unique feature &amp; it matters.",
       "page_age": "%s", "age": "2 hours ago", "language": "en", "family_friendly": true,
       "profile": {"name": "Rust", "url": "https://doc.rust-lang.org", "long_name": "doc.rust-lang.org"}},
      {"type": "search_result", "title": "Stale", "url": "https://example.com/stale",
       "description": "Old text", "page_age": "%s", "age": "1 day ago"},
      {"type": "search_result", "title": "No age", "url": "https://example.com/no-age", "description": "a < b"}
    ]
  }
}`

func TestBrave(t *testing.T) {
	ctx := context.Background()
	up := newUpstream(t)
	now := time.Now().UTC()
	fresh := now.Add(-20 * time.Minute).Format("2006-01-02T15:04:05")
	stale := now.Add(-3 * time.Hour).Format("2006-01-02T15:04:05")
	up.answer(jsonAnswer(200, fmt.Sprintf(braveBody, fresh, stale)))
	const key = "BSA-secret-key-123"
	svc := searchService(nil)
	p := NewBrave(key, up.URL, up.Client())

	res, err := svc.SearchWith(ctx, p, "ws", SearchRequest{Query: "rust ownership", Limit: intp(7), Tbs: "qdr:m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := up.last(t)
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" || q.Get("q") != "rust ownership" ||
		q.Get("count") != "7" || q.Get("freshness") != "pm" {
		t.Errorf("request %s %s", r.Method, r.URL)
	}
	if r.Header.Get("X-Subscription-Token") != key || r.Header.Get("Accept") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	if strings.Contains(r.URL.String(), key) {
		t.Errorf("the key is in the URL")
	}
	if res.Provider != ProviderBrave || len(res.Results) != 3 {
		t.Fatalf("got %+v", res)
	}
	h := res.Results[0]
	if h.Title != "Understanding Ownership - The Rust Book" ||
		h.Snippet != "Ownership is Rust's most unique feature & it matters." ||
		h.URL != "https://doc.rust-lang.org/book/ch04-00-understanding-ownership.html" ||
		h.PublishedAt != now.Add(-20*time.Minute).Format(time.RFC3339) {
		t.Errorf("first result %+v", h)
	}
	if got := res.Results[2].Snippet; got != "a < b" {
		t.Errorf("snippet %q, want the text kept", got)
	}

	for tbs, want := range map[string]string{"qdr:h": "pd", "qdr:d": "pd", "qdr:w": "pw", "qdr:y": "py", "": ""} {
		res, err := svc.SearchWith(ctx, p, "ws", SearchRequest{Query: "rust", Tbs: tbs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := up.last(t).URL.Query().Get("freshness"); got != want {
			t.Errorf("tbs %q: freshness %q, want %q", tbs, got, want)
		}
		if tbs == "qdr:h" && len(res.Results) != 2 {
			t.Errorf("qdr:h: got %d results, want the stale one dropped", len(res.Results))
		}
	}
	// No web results at all (a query Brave answers with news only).
	up.answer(jsonAnswer(200, `{"type":"search","query":{"original":"x"}}`))
	if res, err := svc.SearchWith(ctx, p, "ws", SearchRequest{Query: "x"}, nil); err != nil || len(res.Results) != 0 {
		t.Errorf("no web section: %+v, %v", res, err)
	}

	testProviderFailures(t, up, p, key)
}

// testProviderFailures checks that failures of the provider behind up turn
// into coded errors that never show secret.
func testProviderFailures(t *testing.T, up *upstream, p SearchProvider, secret string) {
	ctx := context.Background()
	svc := searchService(nil)
	cases := []struct {
		name string
		h    http.HandlerFunc
		req  SearchRequest
		want string
		msg  string
	}{
		{"500", jsonAnswer(500, `{"error":"boom"}`), SearchRequest{}, model.CodeUpstreamError, "HTTP 500"},
		{"502 html", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
		},
			SearchRequest{}, model.CodeUpstreamError, "HTTP 502"},
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
		}, SearchRequest{}, model.CodeUpstreamError, "rate limiting"},
		{"429 huge", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "99999999999999999")
			w.WriteHeader(429)
		}, SearchRequest{}, model.CodeUpstreamError, "rate limiting"},
		{"401", jsonAnswer(401, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":401}}`),
			SearchRequest{}, model.CodeUpstreamError, "refused"},
		{"403", jsonAnswer(403, ``), SearchRequest{}, model.CodeUpstreamError, "refused"},
		{"malformed", jsonAnswer(200, `{"results": [{"url": 3}`), SearchRequest{}, model.CodeUpstreamError, "JSON"},
		// An answer over searchMaxBody is refused, not read whole.
		{"huge", jsonAnswer(200, `{"results": [`+strings.Repeat(`{"url": "https://example.com/"},`, searchMaxBody/30)+`{}]}`),
			SearchRequest{}, model.CodeUpstreamError, "more than 4 MB"},
		{"not json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<!doctype html><p>search page") },
			SearchRequest{}, model.CodeUpstreamError, "JSON"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, SearchRequest{Timeout: intp(200)}, model.CodeTimeout, "in time"},
	}
	for _, c := range cases {
		up.answer(c.h)
		c.req.Query = "q"
		t0 := time.Now()
		_, err := svc.SearchWith(ctx, p, "ws", c.req, nil)
		if model.ErrorCode(err) != c.want || !strings.Contains(model.ErrorMessage(err), c.msg) {
			t.Errorf("%s: got %v, want %s saying %q", c.name, err, c.want, c.msg)
		}
		if c.name == "429" {
			if e, ok := err.(*model.Error); !ok || e.RetryAfter != 7*time.Second {
				t.Errorf("429: RetryAfter not carried: %#v", err)
			}
		}
		if c.name == "429 huge" {
			// A provider's absurd wait is kept within an hour, never overflowed.
			if e, ok := err.(*model.Error); !ok || e.RetryAfter != time.Hour {
				t.Errorf("429 huge: RetryAfter %#v, want 1h", err)
			}
		}
		if c.name == "slow" && time.Since(t0) > 2*time.Second {
			t.Errorf("slow: took %v, want about the 200 ms timeout", time.Since(t0))
		}
		if secret != "" && err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error shows the API key: %v", c.name, err)
		}
	}
	// A provider that cannot be reached at all.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	var p2 SearchProvider
	switch p.Name() {
	case ProviderBrave:
		p2 = NewBrave(secret, dead.URL, nil)
	default:
		p2 = NewSearXNG(dead.URL, nil)
	}
	_, err := svc.SearchWith(ctx, p2, "ws", SearchRequest{Query: "q"}, nil)
	if model.ErrorCode(err) != model.CodeUpstreamError {
		t.Errorf("unreachable: got %v, want upstream_error", err)
	}
	if secret != "" && err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("unreachable: the error shows the API key: %v", err)
	}
}

// stubProvider answers every search with its hits.
type stubProvider []SearchHit

func (stubProvider) Name() string { return "stub" }

func (p stubProvider) Search(_ context.Context, _, _ string, limit int, _ time.Time) ([]SearchHit, error) {
	return p[:min(limit, len(p))], nil
}

func TestSearchFetchesResults(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		st := storetest.Open(t, dialect)
		ws, err := st.CreateWorkspace(ctx, "w", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/fail":
				http.Error(w, "down", http.StatusInternalServerError)
				return
			case "/slow":
				select {
				case <-r.Context().Done():
					return
				case <-time.After(5 * time.Second):
				}
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><title>Page %[1]s</title></head><body><main><h1>Page %[1]s</h1>
				<p>This is the page at %[1]s, with enough words about capybaras to be a real page of content.</p>
				<p>Capybaras are the largest living rodents and are native to South America.</p></main></body></html>`, r.URL.Path)
		}))
		defer site.Close()
		hits := stubProvider{
			{URL: site.URL + "/one", Title: "One"},
			{URL: site.URL + "/fail", Title: "Fail"},
			{URL: site.URL + "/two", Title: "Two"},
			{URL: "http://[::1]:0/unreachable", Title: "Unreachable"},
			{URL: site.URL + "/three", Title: "Three"},
		}
		svc := searchService(st)

		var mu sync.Mutex
		var calls [][2]int
		progress := func(done, total int) {
			mu.Lock()
			calls = append(calls, [2]int{done, total})
			mu.Unlock()
		}
		req := SearchRequest{Query: "capybara", Fetch: true, FetchFormats: []string{FormatMarkdown, FormatLinks}}
		res, err := svc.SearchWith(ctx, hits, ws.ID, req, progress)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 5 {
			t.Fatalf("got %d results, want 5", len(res.Results))
		}
		for i, h := range res.Results {
			ok := !strings.HasSuffix(h.URL, "/fail") && !strings.HasSuffix(h.URL, "/unreachable")
			if ok != (h.Page != nil) {
				t.Errorf("result %d %s: page %v", i, h.URL, h.Page != nil)
				continue
			}
			if ok && (h.Page.Tier != TierHTTP || h.Page.Markdown == nil || !strings.Contains(*h.Page.Markdown, "capybaras") ||
				h.Page.URL != h.URL) {
				t.Errorf("result %d page %+v", i, h.Page)
			}
		}
		if got := res.Cost(); got != 1+3 {
			t.Errorf("Cost = %d, want 4 (base and three pages)", got)
		}
		if len(calls) != 5 || calls[len(calls)-1] != [2]int{5, 5} {
			t.Errorf("progress calls %v, want five ending at 5/5", calls)
		}
		// The pages fetched are kept for the workspace's own search.
		local, err := svc.SearchWith(ctx, NewLocalSearch(st), ws.ID, SearchRequest{Query: "capybaras rodents"}, nil)
		if err != nil || len(local.Results) != 3 {
			t.Errorf("local search after fetch: %+v, %v", local, err)
		}

		// maxCredits 3 leaves 2 credits for pages: two pages at most.
		req.MaxCredits = intp(3)
		res, err = svc.SearchWith(ctx, hits, ws.ID, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Cost(); got != 3 {
			t.Errorf("maxCredits 3: Cost = %d, want 3 (failed fetches give their credits back)", got)
		}
		if got, max := res.Cost(), req.MaxCost(false); got > max {
			t.Errorf("Cost %d above MaxCost %d", got, max)
		}
		// maxCredits 1: the search alone.
		req.MaxCredits = intp(1)
		res, err = svc.SearchWith(ctx, hits, ws.ID, req, nil)
		if err != nil || res.Cost() != 1 {
			t.Errorf("maxCredits 1: %+v, %v", res, err)
		}

		// The timeout ends the search with the pages fetched by then.
		slow := stubProvider{{URL: site.URL + "/slow"}, {URL: site.URL + "/quick"}}
		t0 := time.Now()
		res, err = svc.SearchWith(ctx, slow, ws.ID, SearchRequest{Query: "q", Fetch: true, Timeout: intp(700)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(t0) > 3*time.Second {
			t.Errorf("timeout 700 ms: took %v", time.Since(t0))
		}
		if res.Results[0].Page != nil || res.Results[1].Page == nil || res.Cost() != 2 {
			t.Errorf("timeout: slow page %v, quick page %v, cost %d", res.Results[0].Page != nil, res.Results[1].Page != nil, res.Cost())
		}
	})
}

func TestPlainTextAndDates(t *testing.T) {
	for in, want := range map[string]string{
		"<strong>Go</strong> &amp; <b>Rust</b>": "Go & Rust",
		"a < b and c > d":                       "a < b and c > d",
		"line\n\tbreaks  and   spaces":          "line breaks and spaces",
		"unclosed <tag":                         "unclosed <tag",
		"x<br/>y":                               "xy",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"2024-03-01T10:20:30":       "2024-03-01T10:20:30Z",
		"2024-03-01T10:20:30.5":     "2024-03-01T10:20:30Z",
		"2024-03-01T10:20:30+02:00": "2024-03-01T08:20:30Z",
		"2024-03-01 10:20:30":       "2024-03-01T10:20:30Z",
		"2024-03-01":                "2024-03-01T00:00:00Z",
		"3 days ago":                "",
		"":                          "",
	} {
		h, ok := makeHit("https://x.test/", "", "", in, time.Time{})
		if !ok || h.PublishedAt != want {
			t.Errorf("published %q: got %q, want %q", in, h.PublishedAt, want)
		}
	}
	for _, raw := range []string{"", "ftp://x.test/", "/relative", "javascript:alert(1)", "https://"} {
		if _, ok := makeHit(raw, "t", "s", "", time.Time{}); ok {
			t.Errorf("makeHit(%q): want it dropped", raw)
		}
	}
}
