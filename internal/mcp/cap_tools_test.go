package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"webacq/internal/mcp"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// bigSite serves large pages on 127.0.0.1: /p0 … /p39 (about 40 KB of
// text each, linked in a chain, each with the word zebra), /huge (one page
// of about 600 KB) and /links (6,000 links).
func bigSite(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		switch p := r.URL.Path; {
		case p == "/huge":
			b.WriteString(`<html><head><title>Huge</title></head><body><article><h1>Huge</h1>`)
			for i := range 3000 {
				fmt.Fprintf(&b, "<p>Paragraph %d of the huge page: zebra revenue and guidance were discussed at length, and again at length.</p>\n", i)
			}
		case p == "/links":
			b.WriteString(`<html><head><title>Links</title></head><body><article><h1>Links</h1><ul>`)
			for i := range 6000 {
				fmt.Fprintf(&b, `<li><a href="/archive/2026/section-%d/article-with-a-long-name-%d">Article %d</a></li>`, i%50, i, i)
			}
			b.WriteString(`</ul>`)
		case strings.HasPrefix(p, "/p"):
			var i int
			fmt.Sscanf(p, "/p%d", &i)
			fmt.Fprintf(&b, `<html><head><title>Page %d</title></head><body><article><h1>Topic %d</h1>`, i, i)
			for j := range 200 {
				fmt.Fprintf(&b, "<p>Page %d paragraph %d: zebra revenue and guidance were discussed at length by the board.</p>\n", i, j)
			}
			fmt.Fprintf(&b, `<p><a href="/p%d">next</a></p>`, (i+1)%40)
		default:
			http.NotFound(w, r)
			return
		}
		b.WriteString(`</article></body></html>`)
		fmt.Fprint(w, b.String())
	}))
	t.Cleanup(s.Close)
	return s
}

// cutOf decodes a tool result's text, failing the test when it holds more
// than maxTokens tokens (mcp.Tokens) or is not JSON.
func cutOf(t *testing.T, tool, text string, maxTokens int) map[string]any {
	t.Helper()
	if n := mcp.Tokens(text); n > maxTokens {
		t.Fatalf("%s: result of %d tokens (%d bytes), cap %d", tool, n, len(text), maxTokens)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v in %.200s", tool, err, text)
	}
	cut, _ := v["cut"].(map[string]any)
	return cut
}

// No tool result exceeds the default cap, for large crawls, searches,
// fetches and maps of pages on 127.0.0.1; each cut result says what it
// left out, and the REST answer to the same request is whole.
func TestNoToolResultExceedsTheCap(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnvWith(t, dialect, mcp.Options{}, func(p *primitive.Service) { p.Searcher = primitive.NewLocalSearch(p.Pages) })
		e.store.AddCredits(ctx, e.ws.ID, 1000)
		s := bigSite(t)

		text, isErr := e.callTool("svc_gyre", map[string]any{"url": s.URL + "/p0", "maxPages": 20, "maxDepth": 30, "tier": "http"})
		cut := cutOf(t, "svc_gyre", text, mcp.DefaultMaxTokens)
		var crawl primitive.GyreResult
		json.Unmarshal([]byte(text), &crawl)
		if isErr || crawl.TotalPages != 20 || cut == nil || len(crawl.Pages) == 0 ||
			int(cut["leftOut"].(float64))+len(crawl.Pages) != 20 || len(cut["urls"].([]any)) != 20-len(crawl.Pages) {
			t.Fatalf("svc_gyre: %d of %d pages kept, cut %v", len(crawl.Pages), crawl.TotalPages, cut)
		}
		for i, p := range crawl.Pages {
			if p.URL != fmt.Sprintf("%s/p%d", s.URL, i) || strings.Contains(p.Markdown, "[cut: ") || !strings.Contains(p.Markdown, "paragraph 199") {
				t.Fatalf("page %d (%s) is not whole or not in order", i, p.URL)
			}
		}
		if left := cut["urls"].([]any); left[0] != fmt.Sprintf("%s/p%d", s.URL, len(crawl.Pages)) {
			t.Fatalf("first URL left out %v", left[0])
		}

		// A larger maxTokens keeps more pages (the crawl is billed again).
		text, _ = e.callTool("svc_gyre", map[string]any{"url": s.URL + "/p0", "maxPages": 20, "maxDepth": 30, "tier": "http", "maxTokens": 60000})
		cutOf(t, "svc_gyre", text, 60000)
		var more primitive.GyreResult
		json.Unmarshal([]byte(text), &more)
		if len(more.Pages) <= len(crawl.Pages) {
			t.Fatalf("maxTokens 60000 kept %d pages, the default %d", len(more.Pages), len(crawl.Pages))
		}

		// The crawled pages are in the workspace's index: search them.
		text, isErr = e.callTool("svc_search", map[string]any{"query": "zebra revenue", "limit": 15, "fetch": true, "tier": "http"})
		cut = cutOf(t, "svc_search", text, mcp.DefaultMaxTokens)
		var found primitive.SearchResult
		json.Unmarshal([]byte(text), &found)
		if isErr || cut == nil || len(found.Results) == 0 || int(cut["leftOut"].(float64))+len(found.Results) != 15 {
			t.Fatalf("svc_search: %d results kept, cut %v: %.300s", len(found.Results), cut, text)
		}

		text, isErr = e.callTool("svc_fetch", map[string]any{"url": s.URL + "/huge", "tier": "http", "formats": []string{"markdown", "html"}})
		cut = cutOf(t, "svc_fetch", text, mcp.DefaultMaxTokens)
		var page primitive.FetchResult
		json.Unmarshal([]byte(text), &page)
		if isErr || cut == nil || page.Title != "Huge" || page.Markdown == nil || !strings.Contains(*page.Markdown, "Paragraph 0 of") ||
			len(cut["textCut"].([]any)) == 0 {
			t.Fatalf("svc_fetch: cut %v", cut)
		}

		text, isErr = e.callTool("svc_map", map[string]any{"url": s.URL + "/links", "limit": 6000})
		cut = cutOf(t, "svc_map", text, mcp.DefaultMaxTokens)
		var m primitive.MapResult
		json.Unmarshal([]byte(text), &m)
		if isErr || cut == nil || m.Returned != len(m.Links) || !m.Truncated || m.Total < 6000 {
			t.Fatalf("svc_map: returned %d, %d links, total %d, cut %v", m.Returned, len(m.Links), m.Total, cut)
		}

		// REST answers the same crawl whole.
		code, body := restPost(t, e, "gyre", fmt.Sprintf(`{"url":%q,"maxPages":20,"maxDepth":30,"tier":"http"}`, s.URL+"/p0"))
		var whole primitive.GyreResult
		json.Unmarshal(body, &whole)
		if code != 200 || len(whole.Pages) != 20 || strings.Contains(string(body), `"cut"`) {
			t.Fatalf("REST gyre: %d, %d pages", code, len(whole.Pages))
		}
	})
}

func restPost(t *testing.T, e *env, endpoint, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/api/v1/"+endpoint, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	b := new(strings.Builder)
	buf := make([]byte, 1<<16)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if json.Unmarshal([]byte(b.String()), &env) == nil && env.Data != nil {
		return res.StatusCode, env.Data
	}
	return res.StatusCode, []byte(b.String())
}

// maxTokens is refused outside its bounds, in the REST body's words, and
// the refused call costs nothing.
func TestMaxTokensRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	for _, c := range []struct {
		v    any
		want string
	}{
		{999, "bad_request: maxTokens must be between 1000 and 100000"},
		{1.5, `bad_request: field "maxTokens" must be a whole number, not 1.5`},
		{"5000", `bad_request: field "maxTokens" must be a whole number, not a string`},
	} {
		text, isErr := e.callTool("svc_fetch", map[string]any{"url": "http://127.0.0.1:1/", "maxTokens": c.v})
		if !isErr || text != c.want {
			t.Errorf("maxTokens %v: %q, want %q", c.v, text, c.want)
		}
	}
	if b := e.balance(e.ws.ID); b != 100 {
		t.Fatalf("balance %d", b)
	}
}

// Progress notifications strictly increase: a crawl reports its last page
// and then its end with the same count, which is sent once.
func TestProgressStrictlyIncreases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	s := crawlSite(t, 8)
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"svc_gyre","_meta":{"progressToken":"crawl-1"},` +
		`"arguments":{"url":"` + s.URL + `/p0","maxPages":6,"maxDepth":10,"tier":"http"}}}`
	r := e.post(body, "Authorization", "Bearer "+e.key, "Accept", "application/json, text/event-stream")
	var seen []float64
	for _, line := range strings.Split(string(r.body), "\n") {
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok || !strings.Contains(d, "notifications/progress") {
			continue
		}
		var n struct {
			Params struct{ Progress, Total float64 }
		}
		json.Unmarshal([]byte(d), &n)
		seen = append(seen, n.Params.Progress)
	}
	if len(seen) < 2 || seen[len(seen)-1] != 6 {
		t.Fatalf("progress %v, want it to reach 6", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("progress %v does not strictly increase", seen)
		}
	}
}
