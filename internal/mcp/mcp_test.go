package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/config"
	"webacq/internal/fetch"
	"webacq/internal/httpapi"
	"webacq/internal/mcp"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var ctx = context.Background()

type env struct {
	b     *billing.Biller
	t     *testing.T
	url   string
	store *store.Store
	ws    *model.Workspace
	key   string
}

func newEnv(t *testing.T, dialect string) *env {
	t.Helper()
	return newEnvWith(t, dialect, mcp.Options{AllowedOrigins: []string{"https://console.example.com"}})
}

// newEnvWith serves the REST API and the MCP endpoint built with opts, on
// primitives that each of with may change (a search provider, a browser,
// a language model).
func newEnvWith(t *testing.T, dialect string, opts mcp.Options, with ...func(*primitive.Service)) *env {
	t.Helper()
	s := storetest.Open(t, dialect)
	cfg, _ := config.Load(func(k string) string {
		if k == "WEBACQ_ACCESS_LOG" {
			return "0"
		}
		return ""
	})
	cfg.AllowPrivate = true // the test sites listen on 127.0.0.1
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := billing.New(s, log)
	prims := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Pages: s, Log: log}
	for _, f := range with {
		f(prims)
	}
	svc := billed.New(b, prims)
	api := httpapi.New(cfg, s, b, svc, log)
	api.SetMCP(mcp.New(s, b, svc, log, opts))
	srv := httptest.NewServer(api)
	t.Cleanup(func() { srv.Close(); b.Close() })
	e := &env{t: t, url: srv.URL, store: s, b: b}
	e.ws, e.key = e.workspace("acme", 100)
	return e
}

func (e *env) workspace(name string, credits int64) (*model.Workspace, string) {
	e.t.Helper()
	w, err := e.store.CreateWorkspace(ctx, name, credits, false)
	if err != nil {
		e.t.Fatal(err)
	}
	key, _, err := e.store.CreateKey(ctx, w.ID, "mcp")
	if err != nil {
		e.t.Fatal(err)
	}
	return w, key
}

type reply struct {
	status int
	header http.Header
	body   []byte
	rpc    struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
}

// post sends one raw body with the given headers (pairs).
func (e *env) post(body string, header ...string) reply {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/api/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) reply {
	e.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	r := reply{status: res.StatusCode, header: res.Header}
	r.body, _ = io.ReadAll(res.Body)
	data := r.body
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		data = lastEvent(r.body)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		json.Unmarshal(data, &r.rpc)
	}
	return r
}

// lastEvent returns the data of the last server-sent event.
func lastEvent(b []byte) []byte {
	var last []byte
	for _, line := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			last = []byte(d)
		}
	}
	return last
}

func (e *env) rpc(method string, params any, header ...string) reply {
	e.t.Helper()
	p, _ := json.Marshal(params)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p)
	return e.post(body, append([]string{"Authorization", "Bearer " + e.key}, header...)...)
}

func (e *env) callTool(name string, args any, header ...string) (text string, isError bool) {
	e.t.Helper()
	r := e.rpc("tools/call", map[string]any{"name": name, "arguments": args}, header...)
	if r.status != 200 || r.rpc.Error != nil {
		e.t.Fatalf("tools/call %s: %d %s", name, r.status, r.body)
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type, Text string
		} `json:"content"`
	}
	json.Unmarshal(r.rpc.Result, &res)
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		e.t.Fatalf("tools/call %s: content %s", name, r.rpc.Result)
	}
	return res.Content[0].Text, res.IsError
}

func (e *env) usage(id string, f model.LogFilter) ([]model.Usage, error) {
	e.b.Flush(ctx)
	return e.store.Usage(ctx, id, f)
}

func (e *env) activityOf(id string, f model.LogFilter) ([]model.Activity, error) {
	e.b.Flush(ctx)
	return e.store.Activity(ctx, id, f)
}

func (e *env) balance(id string) int64 {
	e.t.Helper()
	w, err := e.store.Workspace(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return w.Credits
}

func site(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Results</title></head><body><article><h1>Third quarter results</h1>
<p>Revenue rose to 12.4 million dollars in the third quarter, the company said, and the board declared a dividend of ten cents per share payable in December.</p></article></body></html>`)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestInitializeAndList(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		r := e.rpc("initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "test", "version": "1"}})
		var init struct {
			ProtocolVersion string
			ServerInfo      struct{ Name string }
		}
		json.Unmarshal(r.rpc.Result, &init)
		if r.status != 200 || init.ProtocolVersion != "2025-03-26" || init.ServerInfo.Name != "webacq" {
			t.Fatalf("initialize: %d %s", r.status, r.body)
		}
		if r.header.Get("Mcp-Session-Id") != "" {
			t.Fatal("a stateless server issued a session id")
		}
		r = e.rpc("initialize", map[string]any{"protocolVersion": "1999-01-01", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "test", "version": "1"}})
		json.Unmarshal(r.rpc.Result, &init)
		if init.ProtocolVersion != mcp.ProtocolVersions[0] {
			t.Fatalf("unknown version answered %q, want the newest %q", init.ProtocolVersion, mcp.ProtocolVersions[0])
		}

		r = e.rpc("tools/list", map[string]any{})
		var list struct {
			Tools []struct {
				Name, Description string
				InputSchema       struct {
					Required   []string                   `json:"required"`
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"inputSchema"`
			}
		}
		json.Unmarshal(r.rpc.Result, &list)
		names := map[string]int{}
		for i, tl := range list.Tools {
			names[tl.Name] = i
			if tl.Description == "" {
				t.Errorf("%s has no description", tl.Name)
			}
		}
		for _, n := range []string{"svc_search", "svc_fetch", "svc_gyre", "svc_extract", "svc_map"} {
			if _, ok := names[n]; !ok {
				t.Fatalf("tools/list lacks %s: %s", n, r.body)
			}
		}
		// The fetch schema is the REST body's: every JSON field of FetchRequest.
		fs := list.Tools[names["svc_fetch"]].InputSchema
		for _, f := range []string{"url", "formats", "onlyMainContent", "tier", "waitFor", "timeout", "headers", "accept_selectors", "maxAge"} {
			if _, ok := fs.Properties[f]; !ok {
				t.Errorf("svc_fetch schema lacks %q", f)
			}
		}
		if len(fs.Required) != 1 || fs.Required[0] != "url" {
			t.Errorf("svc_fetch required = %v, want [url]", fs.Required)
		}
		if got := e.balance(e.ws.ID); got != 100 {
			t.Fatalf("initialize and tools/list drew credits: balance %d", got)
		}
		us, _ := e.usage(e.ws.ID, model.LogFilter{})
		if len(us) != 3 || us[0].Endpoint != "/api/mcp" || us[0].Credits != 0 {
			t.Fatalf("usage %+v", us)
		}
		as, _ := e.activityOf(e.ws.ID, model.LogFilter{})
		if as[0].Via != "mcp" {
			t.Fatalf("activity %+v", as[0])
		}
	})
}

func TestFetchToolBillsLikeREST(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		s := site(t)
		text, isErr := e.callTool("svc_fetch", map[string]any{"url": s.URL + "/q3", "tier": "http"})
		var res primitive.FetchResult
		if err := json.Unmarshal([]byte(text), &res); err != nil || isErr {
			t.Fatalf("svc_fetch: %v %s", err, text)
		}
		if res.Markdown == nil || !strings.Contains(*res.Markdown, "Revenue rose to 12.4 million") || res.Title != "Results" {
			t.Fatalf("svc_fetch result %s", text)
		}
		if res.PageType == "" || res.Confidence == nil || *res.Confidence < 0 || *res.Confidence > 1 {
			t.Errorf("svc_fetch: page_type %q confidence %v, want both beside verdict", res.PageType, res.Confidence)
		}
		if got := e.balance(e.ws.ID); got != 99 {
			t.Fatalf("balance %d after svc_fetch, want 99", got)
		}
		// The same call over REST costs the same.
		req, _ := http.NewRequest("POST", e.url+"/api/v1/fetch", strings.NewReader(`{"url":"`+s.URL+`/q3","tier":"http"}`))
		req.Header.Set("Authorization", "Bearer "+e.key)
		res2, err := http.DefaultClient.Do(req)
		if err != nil || res2.StatusCode != 200 {
			t.Fatalf("REST fetch: %v %v", res2, err)
		}
		res2.Body.Close()
		if got := e.balance(e.ws.ID); got != 98 {
			t.Fatalf("balance %d after REST fetch, want 98", got)
		}
		us, _ := e.usage(e.ws.ID, model.LogFilter{})
		if len(us) != 2 || us[0].Endpoint != "/api/v1/fetch" || us[1].Endpoint != "/api/v1/fetch" || us[0].Credits != 1 || us[1].Credits != 1 {
			t.Fatalf("usage %+v", us)
		}
		as, _ := e.activityOf(e.ws.ID, model.LogFilter{})
		if as[1].Via != "mcp" || as[0].Via != "http" || as[1].Target != s.URL+"/q3" {
			t.Fatalf("activity %+v", as)
		}
	})
}

func TestToolErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	cases := []struct {
		tool   string
		args   any
		prefix string
	}{
		{"svc_fetch", map[string]any{"url": "ftp://example.com/"}, "bad_request: "},
		{"svc_fetch", map[string]any{"url": "http://127.0.0.1:1/"}, "upstream_error: "},
		{"svc_map", map[string]any{"url": "http://127.0.0.1:1/"}, "upstream_error: "},
		{"svc_gyre", map[string]any{"url": "http://127.0.0.1:1/"}, "upstream_error: "},
		{"svc_extract", map[string]any{"url": "http://127.0.0.1:1/", "intent": "the dividend"}, "unavailable: extraction needs a language model"},
		{"svc_search", map[string]any{"query": ""}, "bad_request: "},
	}
	for _, c := range cases {
		text, isErr := e.callTool(c.tool, c.args)
		if !isErr || !strings.HasPrefix(text, c.prefix) {
			t.Errorf("%s %v: isError=%v %q, want prefix %q", c.tool, c.args, isErr, text, c.prefix)
		}
		if strings.Contains(text, "dial tcp") || strings.Contains(text, "connect:") {
			t.Errorf("internal detail leaked: %q", text)
		}
	}
	if got := e.balance(e.ws.ID); got != 100 {
		t.Fatalf("failed tools drew credits: balance %d", got)
	}
	us, _ := e.usage(e.ws.ID, model.LogFilter{})
	if len(us) != len(cases) {
		t.Fatalf("%d usage rows for %d calls", len(us), len(cases))
	}
	r := e.rpc("tools/call", map[string]any{"name": "svc_nope", "arguments": map[string]any{}})
	if r.rpc.Error == nil || r.rpc.Error.Code != -32602 {
		t.Fatalf("unknown tool: %s", r.body)
	}
	// Arguments of the wrong type never reach the primitive; the row says so.
	r = e.rpc("tools/call", map[string]any{"name": "svc_fetch", "arguments": map[string]any{"url": 5}})
	if !strings.Contains(string(r.body), "url") || (r.rpc.Error == nil && !strings.Contains(string(r.rpc.Result), `"isError":true`)) {
		t.Fatalf("wrong argument type: %s", r.body)
	}
	as, _ := e.activityOf(e.ws.ID, model.LogFilter{Limit: 1})
	if as[0].Endpoint != "/api/v1/fetch" || as[0].ErrorCode != "bad_request" || as[0].Status != 400 || as[0].Credits != 0 {
		t.Fatalf("row of refused arguments: %+v", as[0])
	}
	// Credits exhausted is a tool error, not a transport error.
	w2, k2 := e.workspace("poor", 0)
	r = e.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"svc_map","arguments":{"url":"http://127.0.0.1:1/"}}}`,
		"Authorization", "Bearer "+k2)
	if !strings.Contains(string(r.rpc.Result), `credits_exhausted: `) || e.balance(w2.ID) != 0 {
		t.Fatalf("credits exhausted: %s", r.body)
	}
}

func TestTransportRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	auth := func(status int, header ...string) {
		t.Helper()
		r := e.post(list, header...)
		if r.status != status {
			t.Fatalf("%v: status %d %s, want %d", header, r.status, r.body, status)
		}
		if status == 401 && (r.rpc.Error == nil || r.rpc.Error.Code != -32001 || r.rpc.ID != nil) {
			t.Fatalf("401 body %s", r.body)
		}
	}
	auth(200, "Authorization", "Bearer "+e.key)
	auth(200, "X-API-Key", e.key)
	auth(200, "Authorization", e.key)
	auth(401)
	auth(401, "Authorization", "Bearer nope")
	auth(401, "Authorization", "Basic "+e.key)
	auth(401, "X-API-Key", model.NewKey())
	k2, _, _ := e.store.CreateKey(ctx, e.ws.ID, "gone")
	e.store.RevokeKey(ctx, model.KeyDisplayPrefix(k2))
	auth(401, "X-API-Key", k2)

	for _, m := range []string{"GET", "DELETE"} {
		req, _ := http.NewRequest(m, e.url+"/api/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+e.key)
		r := e.send(req)
		if r.status != 405 || r.header.Get("Allow") != "POST" || r.rpc.Error == nil || r.rpc.Error.Code != -32000 {
			t.Fatalf("%s: %d %v %s", m, r.status, r.header, r.body)
		}
	}
	r := e.post(`[`+list+`]`, "Authorization", "Bearer "+e.key)
	if r.status != 400 || r.rpc.Error == nil || r.rpc.Error.Code != -32600 || r.rpc.ID != nil {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	if as, _ := e.activityOf(e.ws.ID, model.LogFilter{Limit: 1}); as[0].Endpoint != "/api/mcp" || as[0].Status != 400 || as[0].ErrorCode != "bad_request" {
		t.Fatalf("row of the refused batch: %+v", as[0])
	}
	r = e.post(list, "Authorization", "Bearer "+e.key, "MCP-Protocol-Version", "1999-01-01")
	if r.status != 400 {
		t.Fatalf("unsupported protocol version header: %d", r.status)
	}
	if r := e.post(list, "Authorization", "Bearer "+e.key, "MCP-Protocol-Version", "2025-06-18"); r.status != 200 {
		t.Fatalf("supported protocol version header: %d", r.status)
	}
	r = e.post(list, "Authorization", "Bearer "+e.key, "Origin", "https://evil.example")
	if r.status != 403 {
		t.Fatalf("foreign origin: %d", r.status)
	}
	if r := e.post(list, "Authorization", "Bearer "+e.key, "Origin", "https://console.example.com"); r.status != 200 {
		t.Fatalf("allowed origin: %d %s", r.status, r.body)
	}
	r = e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Authorization", "Bearer "+e.key)
	if r.status != 202 || len(r.body) != 0 {
		t.Fatalf("notification: %d %q", r.status, r.body)
	}
	r = e.post(`{"jsonrpc":`, "Authorization", "Bearer "+e.key)
	if r.status != 400 || r.rpc.Error == nil || r.rpc.Error.Code != -32700 {
		t.Fatalf("malformed JSON: %d %s", r.status, r.body)
	}
	r = e.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_fetch","arguments":{"url":"`+strings.Repeat("a", 2<<20)+`"}}}`,
		"Authorization", "Bearer "+e.key)
	if r.status != 413 {
		t.Fatalf("oversized body: %d", r.status)
	}
}

func TestStreamedToolCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	s := site(t)
	r := e.rpc("tools/call", map[string]any{"name": "svc_fetch", "arguments": map[string]any{"url": s.URL + "/", "tier": "http"}},
		"Accept", "application/json, text/event-stream")
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || !strings.Contains(string(r.rpc.Result), "Revenue rose") {
		t.Fatalf("streamed call: %v\n%s", r.header, r.body)
	}
	// Other methods answer JSON even when the client accepts a stream.
	r = e.rpc("tools/list", map[string]any{}, "Accept", "application/json, text/event-stream")
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("tools/list content type %q", r.header.Get("Content-Type"))
	}
}

// 100 concurrent calls with 20 keys of 20 workspaces: each is billed exactly
// its own calls, so no state leaks between requests.
func TestConcurrentKeysShareNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		s := site(t)
		type ws struct {
			w     *model.Workspace
			key   string
			calls int
		}
		var all []*ws
		for i := 0; i < 20; i++ {
			w, k := e.workspace(fmt.Sprintf("w%02d", i), 50)
			all = append(all, &ws{w: w, key: k, calls: 2 + i%9})
		}
		var wg sync.WaitGroup
		for _, x := range all {
			for j := 0; j < x.calls; j++ {
				wg.Add(1)
				go func(x *ws, j int) {
					defer wg.Done()
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"svc_fetch","arguments":{"url":"%s/%s/%d","tier":"http"}}}`,
						j, s.URL, x.w.Name, j)
					r := e.post(body, "X-API-Key", x.key)
					if r.status != 200 || !strings.Contains(string(r.rpc.Result), "Revenue rose") {
						t.Errorf("%s call %d: %d %s", x.w.Name, j, r.status, r.body)
					}
				}(x, j)
			}
		}
		wg.Wait()
		total := 0
		for _, x := range all {
			total += x.calls
			if got := e.balance(x.w.ID); got != 50-int64(x.calls) {
				t.Errorf("%s: balance %d, want %d", x.w.Name, got, 50-x.calls)
			}
			as, _ := e.activityOf(x.w.ID, model.LogFilter{})
			for _, a := range as {
				if !strings.Contains(a.Target, "/"+x.w.Name+"/") {
					t.Errorf("%s was billed for %s", x.w.Name, a.Target)
				}
			}
			if len(as) != x.calls {
				t.Errorf("%s: %d activity rows, want %d", x.w.Name, len(as), x.calls)
			}
		}
		if total < 100 {
			t.Fatalf("only %d calls", total)
		}
	})
}

func crawlSite(t *testing.T, n int) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Page %d</title></head><body><article><h1>Topic %d</h1><p>%s</p>
<p><a href="/p%d">next</a></p></article></body></html>`, i, i, strings.Repeat("Revenue and guidance were discussed at length. ", 40), (i+1)%n)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestGyreToolStreamsProgressAndTruncates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	s := crawlSite(t, 8)
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"svc_gyre","_meta":{"progressToken":"crawl-1"},` +
		`"arguments":{"url":"` + s.URL + `/p0","maxPages":6,"maxDepth":10,"tier":"http"}}}`
	r := e.post(body, "Authorization", "Bearer "+e.key, "Accept", "application/json, text/event-stream")
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("content type %q", r.header.Get("Content-Type"))
	}
	events := strings.Count(string(r.body), `"method":"notifications/progress"`)
	if events < 2 || !strings.Contains(string(r.body), `"progressToken":"crawl-1"`) {
		t.Fatalf("%d progress notifications in:\n%s", events, r.body)
	}
	var res struct {
		Content []struct{ Text string }
	}
	json.Unmarshal(r.rpc.Result, &res)
	var crawl primitive.GyreResult
	if err := json.Unmarshal([]byte(res.Content[0].Text), &crawl); err != nil || crawl.TotalPages != 6 {
		t.Fatalf("gyre result: %v %s", err, r.rpc.Result)
	}
	if got := e.balance(e.ws.ID); got != 94 {
		t.Fatalf("balance %d, want 94 (6 pages)", got)
	}
	us, _ := e.usage(e.ws.ID, model.LogFilter{})
	if us[0].Endpoint != "/api/v1/gyre" || us[0].Credits != 6 {
		t.Fatalf("usage %+v", us[0])
	}
}
