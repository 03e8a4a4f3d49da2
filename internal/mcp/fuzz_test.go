package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"webacq/internal/billing"
	"webacq/internal/mcp"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// stubPrims answers every primitive without the network: a URL or query
// containing "panic" panics, "fail" fails, anything else succeeds.
type stubPrims struct{}

func stubRun[T any](target string, res *T) (*T, error) {
	switch {
	case strings.Contains(target, "panic"):
		panic("stub primitive: " + target)
	case strings.Contains(target, "fail"):
		return nil, model.Errorf(model.CodeUpstreamError, "the site failed")
	}
	return res, nil
}

func (stubPrims) Fetch(_ context.Context, _ *billing.Call, r primitive.FetchRequest) (*primitive.FetchResult, error) {
	return stubRun(r.URL, &primitive.FetchResult{URL: r.URL, Title: "stub"})
}

func (stubPrims) Map(_ context.Context, _ *billing.Call, r primitive.MapRequest) (*primitive.MapResult, error) {
	return stubRun(r.URL, &primitive.MapResult{})
}

func (stubPrims) Gyre(_ context.Context, _ *billing.Call, r primitive.GyreRequest, progress func(done, total int)) (*primitive.GyreResult, error) {
	if progress != nil {
		progress(1, 2)
	}
	return stubRun(r.URL, &primitive.GyreResult{})
}

func (p stubPrims) GyreAny(ctx context.Context, c *billing.Call, r primitive.GyreRequest, progress func(done, total int)) (any, error) {
	return p.Gyre(ctx, c, r, progress)
}

func (stubPrims) Search(_ context.Context, _ *billing.Call, r primitive.SearchRequest, _ func(done, total int)) (*primitive.SearchResult, error) {
	return stubRun(r.Query, &primitive.SearchResult{})
}

func (stubPrims) Extract(_ context.Context, _ *billing.Call, r primitive.ExtractRequest) (*primitive.ExtractResult, error) {
	return stubRun(r.URL, &primitive.ExtractResult{})
}

// stubEndpoint is the MCP handler on stub primitives, and a key for it.
func stubEndpoint(t testing.TB) (http.Handler, string) {
	s := storetest.Open(t, store.SQLite)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := billing.New(s, log)
	t.Cleanup(b.Close)
	w, err := s.CreateWorkspace(context.Background(), "fuzz", 1_000_000, false)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := s.CreateKey(context.Background(), w.ID, "fuzz")
	if err != nil {
		t.Fatal(err)
	}
	return mcp.New(s, b, stubPrims{}, log, mcp.Options{Addr: "127.0.0.1:8080"}), key
}

// A primitive that panics is an internal tool error; the process lives on
// (the SDK runs tools on goroutines the HTTP server does not guard).
func TestToolPanicIsAnError(t *testing.T) {
	t.Parallel()
	h, key := stubEndpoint(t)
	for _, accept := range []string{"application/json", "application/json, text/event-stream"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_gyre","arguments":{"url":"http://panic.example/"}}}`
		rec := postTo(h, key, body, accept)
		if !strings.Contains(rec.Body.String(), `unavailable: internal error`) || !strings.Contains(rec.Body.String(), `"isError":true`) {
			t.Fatalf("Accept %s: %d %s", accept, rec.Code, rec.Body)
		}
	}
}

func postTo(h http.Handler, key, body, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "/api/mcp", strings.NewReader(body))
	req.Host = "localhost:8080"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// FuzzMCPMessage posts arbitrary bodies to the endpoint: it never panics,
// and every answer is 202 with no body or one JSON-RPC response (as JSON
// or as the last event of a stream) whose id, unless null, is the id sent.
func FuzzMCPMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":92233720368547758070,"method":"tools/call","params":{"name":"svc_fetch","arguments":{"url":"http://a.example/"}}}`,
		`{"jsonrpc":"2.0","id":1e30,"method":"tools/call","params":{"name":"svc_gyre","_meta":{"progressToken":"p"},"arguments":{"url":"http://fail.example/","maxPages":null}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"svc_search","arguments":{"query":"panic"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"svc_map","arguments":{"url":5}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"svc_extract","arguments":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":{},"method":7}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":[]}}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"ping"}`,
		`null`, ``, `{`, `"x"`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	h, key := stubEndpoint(f)
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		accept := "application/json"
		if stream {
			accept += ", text/event-stream"
		}
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() { done <- postTo(h, key, string(body), accept) }()
		var rec *httptest.ResponseRecorder
		select {
		case rec = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer within 30 s to %q", body)
		}
		if rec.Code == http.StatusAccepted {
			if rec.Body.Len() != 0 {
				t.Fatalf("202 with a body: %q", rec.Body)
			}
			return
		}
		data := rec.Body.Bytes()
		switch ct := rec.Header().Get("Content-Type"); {
		case strings.HasPrefix(ct, "text/event-stream"):
			data = lastEvent(data)
		case !strings.HasPrefix(ct, "application/json"):
			t.Fatalf("%d with Content-Type %q: %q", rec.Code, ct, data)
		}
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(data, &resp); err != nil {
			t.Fatalf("%d: not a JSON object: %q", rec.Code, data)
		}
		_, hasResult := resp["result"]
		rpcErr, hasError := resp["error"]
		if string(resp["jsonrpc"]) != `"2.0"` || resp["id"] == nil || hasResult == hasError {
			t.Fatalf("%d: not a JSON-RPC response: %s", rec.Code, data)
		}
		if hasError {
			var e struct {
				Code    int
				Message string
			}
			if json.Unmarshal(rpcErr, &e) != nil || e.Code == 0 || e.Message == "" {
				t.Fatalf("error without code or message: %s", data)
			}
		}
		if id := resp["id"]; string(id) != "null" {
			var sent map[string]json.RawMessage
			json.Unmarshal(body, &sent)
			if !sameID(sent["id"], id) {
				t.Fatalf("sent id %s, answered id %s", sent["id"], id)
			}
		}
	})
}

// sameID: numbers exactly as sent, strings equal as strings.
func sameID(sent, got json.RawMessage) bool {
	sent = bytes.TrimSpace(sent)
	if len(sent) > 0 && sent[0] == '"' {
		var a, b string
		return json.Unmarshal(sent, &a) == nil && json.Unmarshal(got, &b) == nil && a == b
	}
	return bytes.Equal(sent, got)
}
