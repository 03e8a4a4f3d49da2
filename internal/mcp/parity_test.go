package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"webacq/internal/fetch"
	"webacq/internal/llm"
	"webacq/internal/mcp"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store/storetest"
)

// chatModel is a local OpenAI-compatible model that answers every
// completion with the same extraction.
func chatModel(t *testing.T) llm.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": `{"found":true,"data":[{"revenue":"12.4 million"}]}`}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "local-model"}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bill is what one call left: the credits drawn and its usage and
// activity rows, without what differs by nature (ids, times, key, via).
type bill struct {
	credits  int64
	usage    string
	activity string
}

func (e *env) billedSince(wsID string, before int64, calls int) bill {
	e.t.Helper()
	us, _ := e.usage(wsID, model.LogFilter{Limit: calls})
	as, _ := e.activityOf(wsID, model.LogFilter{Limit: calls})
	var u, a []string
	for _, r := range us {
		u = append(u, fmt.Sprintf("%s %s %d credits, status %d", r.Endpoint, r.Tier, r.Credits, r.Status))
	}
	for _, r := range as {
		a = append(a, fmt.Sprintf("%s %s %s %d %s %d credits", r.Endpoint, r.Method, r.Target, r.Status, r.ErrorCode, r.Credits))
	}
	return bill{credits: before - e.balance(wsID), usage: strings.Join(u, "; "), activity: strings.Join(a, "; ")}
}

// Every tool bills exactly as its REST endpoint, on the HTTP tier and on
// the browser tier (where Chromium is installed), failures included: the
// same credits, the same usage rows (endpoint, tier, credits, status) and
// the same activity rows (endpoint, target, status, error code, credits).
func TestEveryToolBillsLikeREST(t *testing.T) {
	t.Parallel() // its subtests in turn, one Chromium at a time, beside the other tests
	tiers := []string{"http", "browser"}
	chromium := fetch.FindChromium()
	storetest.Each(t, func(t *testing.T, dialect string) {
		for _, tier := range tiers {
			t.Run(tier, func(t *testing.T) {
				if tier == "browser" && chromium == "" {
					t.Skip("no Chromium on PATH: the browser tier is not compared (scripts/setup.sh installs it)")
				}
				lc := chatModel(t)
				e := newEnvWith(t, dialect, mcp.Options{}, func(p *primitive.Service) {
					p.Searcher, p.LLM = primitive.NewLocalSearch(p.Pages), lc
					if tier == "browser" {
						p.Browser = fetch.NewBrowser(fetch.Config{AllowPrivate: true, ChromiumPath: chromium, BrowserTabs: 2})
						t.Cleanup(func() { p.Browser.Close() })
					}
				})
				restWS, restKey := e.workspace("rest", 500)
				mcpWS, mcpKey := e.workspace("mcp", 500)
				page, crawl := site(t), crawlSite(t, 5)
				calls := []struct {
					tool string
					args map[string]any
				}{
					{"fetch", map[string]any{"url": page.URL + "/q3", "tier": tier}},
					{"map", map[string]any{"url": crawl.URL + "/p0"}},
					{"gyre", map[string]any{"url": crawl.URL + "/p0", "maxPages": 3, "maxDepth": 5, "tier": tier}},
					// The local index holds the pages each workspace fetched.
					{"search", map[string]any{"query": "revenue", "limit": 3, "fetch": true, "tier": tier}},
					{"extract", map[string]any{"url": page.URL + "/q3", "intent": "the revenue", "tier": tier}},
					// Failures: nothing drawn, the same error rows.
					{"fetch", map[string]any{"url": "http://127.0.0.1:1/", "tier": tier}},
					{"gyre", map[string]any{"url": crawl.URL + "/p0", "maxPages": 0, "tier": tier}},
					{"extract", map[string]any{"url": page.URL + "/q3", "tier": tier}},
				}
				for _, c := range calls {
					body, _ := json.Marshal(c.args)
					before := e.balance(restWS.ID)
					e.key = restKey
					status, _ := restPost(t, e, c.tool, string(body))
					rest := e.billedSince(restWS.ID, before, 1)

					before = e.balance(mcpWS.ID)
					e.key = mcpKey
					text, isErr := e.callTool("svc_"+c.tool, c.args)
					viaMCP := e.billedSince(mcpWS.ID, before, 1)
					if isErr != (status != 200) {
						t.Errorf("%s %s: REST %d, MCP isError %v %.200s", c.tool, body, status, isErr, text)
					}
					if rest != viaMCP {
						t.Errorf("%s %s:\n REST %+v\n MCP  %+v", c.tool, body, rest, viaMCP)
					}
					if status == 200 && rest.credits == 0 {
						t.Errorf("%s %s drew nothing", c.tool, body)
					}
				}
				if r, m := e.balance(restWS.ID), e.balance(mcpWS.ID); r != m || r == 500 {
					t.Fatalf("balances: REST workspace %d, MCP workspace %d", r, m)
				}
				// No call left a row the other did not.
				rest, viaMCP := e.billedSince(restWS.ID, 0, 1000), e.billedSince(mcpWS.ID, 0, 1000)
				if rest != viaMCP || strings.Count(rest.usage, ";") != len(calls)-1 {
					t.Fatalf("history:\n REST %+v\n MCP  %+v", rest, viaMCP)
				}
				t.Logf("%s tier, each side: %s", tier, rest.usage)
			})
		}
	})
}
