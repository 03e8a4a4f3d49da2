package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/llm"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// smallSite serves n interlinked pages about distinct topics.
func smallSite(t *testing.T, n int) *site {
	routes := map[string]http.HandlerFunc{}
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`<html><head><title>Page %d</title></head><body><article><h1>Topic %d</h1>
<p>This page explains subject number %d in enough words to be real content: revenue, guidance, dividends and the outlook for the coming quarter are discussed at length here.</p>
<p><a href="/p%d">next</a> <a href="/p%d">other</a></p></article></body></html>`, i, i, i, (i+1)%n, (i+2)%n)
		routes[fmt.Sprintf("/p%d", i)] = page(body)
	}
	routes["/"] = page(`<html><head><title>Home</title></head><body><a href="/p0">start</a></body></html>`)
	return newSite(t, routes)
}

func TestGyreBillsPerPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 20)
		s := smallSite(t, 12)
		a := e.post("/api/v1/gyre", `{"url":"`+s.URL+`/p0","maxPages":5,"tier":"http"}`)
		if a.status != 200 {
			t.Fatalf("gyre: %d %s", a.status, a.Error)
		}
		var r primitive.GyreResult
		json.Unmarshal(a.Data, &r)
		if r.TotalPages != 5 || len(r.Pages) != 5 || r.StartURL == "" || r.Pages[0].Via != "start" || !strings.Contains(r.Pages[0].Markdown, "# Topic 0") {
			t.Fatalf("gyre result %s", a.Data)
		}
		// It says why it stopped with pages left (issue 22).
		if len(r.Errors) != 1 || r.Errors[0].Code != primitive.GyreCodeMaxPages || !strings.Contains(r.Errors[0].Error, `"maxPages" 5`) {
			t.Fatalf("a crawl stopped by maxPages: errors %+v", r.Errors)
		}
		// 5 reserved, 5 pages at 1 credit: 15 left.
		if got := e.balance(); got != 15 {
			t.Fatalf("balance %d, want 15", got)
		}
		// maxCredits caps the spend below maxPages.
		a = e.post("/api/v1/gyre", `{"url":"`+s.URL+`/p0","maxPages":10,"maxCredits":3,"tier":"http"}`)
		json.Unmarshal(a.Data, &r)
		if a.status != 200 || r.TotalPages != 3 {
			t.Fatalf("maxCredits 3: %d pages", r.TotalPages)
		}
		if len(r.Errors) != 1 || r.Errors[0].Code != primitive.GyreCodeMaxCredits || !strings.Contains(r.Errors[0].Error, `"maxCredits" 3`) {
			t.Fatalf("a crawl stopped by maxCredits: errors %+v", r.Errors)
		}
		if got := e.balance(); got != 12 {
			t.Fatalf("balance %d, want 12", got)
		}
		// A crawl that cannot start costs nothing.
		wantError(t, e.post("/api/v1/gyre", `{"url":"http://127.0.0.1:1/","tier":"http"}`), 502, "upstream_error")
		wantError(t, e.post("/api/v1/gyre", `{"url":"`+s.URL+`/","maxPages":5000}`), 400, "bad_request")
		wantError(t, e.post("/api/v1/gyre", `{"url":"`+s.URL+`/","includePaths":["("]}`), 400, "bad_request")
		if got := e.balance(); got != 12 {
			t.Fatalf("balance %d after failed crawls, want 12", got)
		}
		// Reservation larger than the balance: the answer says what the hold
		// was and how to hold less (issue 22).
		a = e.post("/api/v1/gyre", `{"url":"`+s.URL+`/p0","maxPages":50,"tier":"http"}`)
		wantError(t, a, 402, "credits_exhausted")
		for _, want := range []string{"needs 50", `"maxPages" 50 × 1`, `set "maxCredits"`} {
			if !strings.Contains(a.Error, want) {
				t.Errorf("402 %q does not say %q", a.Error, want)
			}
		}
		// A crawl that took every page it found says nothing.
		small := smallSite(t, 3)
		r = primitive.GyreResult{}
		if a = e.post("/api/v1/gyre", `{"url":"`+small.URL+`/p0","maxPages":10,"tier":"http"}`); json.Unmarshal(a.Data, &r) != nil || r.TotalPages != 3 || len(r.Errors) != 0 {
			t.Fatalf("a whole crawl: %d pages, errors %+v", r.TotalPages, r.Errors)
		}
	})
}

func TestSearchLocalIndexWithFetch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 30)
		s := smallSite(t, 6)
		// Acquire pages: they are indexed for this workspace.
		if a := e.post("/api/v1/gyre", `{"url":"`+s.URL+`/p0","maxPages":6,"tier":"http"}`); a.status != 200 {
			t.Fatalf("gyre: %s", a.Error)
		}
		before := e.balance()
		a := e.post("/api/v1/search", `{"query":"subject number 3","limit":3}`)
		var r primitive.SearchResult
		json.Unmarshal(a.Data, &r)
		if a.status != 200 || r.Provider != "local" || len(r.Results) == 0 || !strings.HasSuffix(r.Results[0].URL, "/p3") {
			t.Fatalf("search: %d %s", a.status, a.Data)
		}
		if got := e.balance(); got != before-1 {
			t.Fatalf("search cost %d, want 1", before-got)
		}
		before = e.balance()
		a = e.post("/api/v1/search", `{"query":"topic","limit":2,"fetch":true,"tier":"http"}`)
		json.Unmarshal(a.Data, &r)
		if len(r.Results) != 2 || r.Results[0].Page == nil || r.Results[0].Page.Markdown == nil {
			t.Fatalf("search with fetch: %s", a.Data)
		}
		if got := e.balance(); got != before-3 {
			t.Fatalf("search with 2 fetches cost %d, want 3", before-got)
		}
		// Another workspace's index is empty.
		w2, _ := e.store.CreateWorkspace(ctx, "other", 5, false)
		k2, _, _ := e.store.CreateKey(ctx, w2.ID, "k")
		a = e.do("POST", "/api/v1/search", strings.NewReader(`{"query":"subject number 3"}`), "Authorization", "Bearer "+k2)
		json.Unmarshal(a.Data, &r)
		if a.status != 200 || len(r.Results) != 0 {
			t.Fatalf("another workspace saw %d results", len(r.Results))
		}
		wantError(t, e.post("/api/v1/search", `{"query":""}`), 400, "bad_request")
		wantError(t, e.post("/api/v1/search", `{"query":"x","limit":50}`), 400, "bad_request")
		wantError(t, e.post("/api/v1/search", `{"query":"x","tbs":"qdr:z"}`), 400, "bad_request")
	})
}

// openAIServer speaks the chat-completions wire format and answers one
// scripted extraction, counting the calls it gets.
func openAIServer(t *testing.T, answer string, status int) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" || !strings.Contains(string(body), "Revenue rose") {
			t.Errorf("model got %s %s auth=%q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		if status != 200 {
			http.Error(w, `{"error":{"message":"overloaded"}}`, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "model": "test-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}}})
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestExtract(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 20)
	s := newSite(t, map[string]http.HandlerFunc{"/q3": page(`<html><head><title>Q3</title></head><body><article><h1>Results</h1>
<p>Revenue rose to 12.4 million dollars in the third quarter and the board declared a dividend of ten cents per share.</p></article></body></html>`)})
	body := `{"url":"` + s.URL + `/q3","intent":"the dividend per share","schema":{"type":"object","properties":{"dividend":{"type":"string"}},"required":["dividend"]}}`

	// No model configured: unavailable, with how to configure one, nothing drawn.
	a := e.post("/api/v1/extract", body)
	wantError(t, a, 503, "unavailable")
	if !strings.Contains(a.Error, "WEBACQ_LLM_PROVIDER") {
		t.Fatalf("message %q does not say how to configure a model", a.Error)
	}

	model, calls := openAIServer(t, `{"found":true,"data":[{"dividend":"ten cents per share"}]}`, 200)
	lc, err := llm.New(llm.Config{Provider: "openai", BaseURL: model.URL + "/v1", APIKey: "sk-test", Model: "test-model"}, model.Client())
	if err != nil {
		t.Fatal(err)
	}
	e.prims.LLM = lc
	a = e.post("/api/v1/extract", body)
	var r primitive.ExtractResult
	json.Unmarshal(a.Data, &r)
	if a.status != 200 || !r.Found || len(r.Data) != 1 || r.Data[0]["dividend"] != "ten cents per share" || r.Model != "test-model" || calls.Load() != 1 {
		t.Fatalf("extract: %d %s", a.status, a.Data)
	}
	if got := e.balance(); got != 15 {
		t.Fatalf("balance %d, want 15 (extract over HTTP costs 5)", got)
	}
	// A provider failure is unavailable and refunded.
	down, _ := openAIServer(t, "", 500)
	e.prims.LLM, _ = llm.New(llm.Config{Provider: "openai", BaseURL: down.URL + "/v1", APIKey: "sk-test", Model: "m"}, down.Client())
	wantError(t, e.post("/api/v1/extract", body), 503, "unavailable")
	if got := e.balance(); got != 15 {
		t.Fatalf("balance %d after a model failure, want 15", got)
	}
	wantError(t, e.post("/api/v1/extract", `{"url":"`+s.URL+`/q3"}`), 400, "bad_request")
	wantError(t, e.post("/api/v1/extract", `{"url":"`+s.URL+`/q3","intent":"x","schema":{"type":"nonsense"}}`), 400, "bad_request")
}

// A crawl that runs out of time with pages found says so in errors, with
// the timeout code and how to get the rest (issue 22).
func TestGyreSaysItTimedOut(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 100)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		if i > 0 {
			time.Sleep(400 * time.Millisecond)
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Page %d</title></head><body><article><h1>Topic %d</h1><p>Words of the page about revenue, guidance and dividends for the quarter.</p>`, i, i)
		for j := 1; j <= 20; j++ {
			fmt.Fprintf(w, `<a href="/p%d">p%d</a> `, i*20+j, i*20+j)
		}
		fmt.Fprint(w, `</article></body></html>`)
	}))
	defer slow.Close()
	a := e.post("/api/v1/gyre", `{"url":"`+slow.URL+`/p0","maxPages":50,"timeout":1000,"tier":"http"}`)
	var r primitive.GyreResult
	if a.status != 200 || json.Unmarshal(a.Data, &r) != nil || r.TotalPages == 0 || r.TotalPages >= 50 {
		t.Fatalf("a crawl cut by its timeout: %d, %d pages", a.status, r.TotalPages)
	}
	last := r.Errors[len(r.Errors)-1]
	if last.Code != primitive.GyreCodeCrawlTimeout || !strings.Contains(last.Error, "timeout of 1000 ms") || !strings.Contains(last.Error, `"async": true`) {
		t.Fatalf("errors %+v, want the timeout last", r.Errors)
	}
}
