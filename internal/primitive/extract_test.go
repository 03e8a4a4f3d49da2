package primitive

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"webacq/internal/billing"
	"webacq/internal/fetch"
	"webacq/internal/llm"
	"webacq/internal/model"
)

// chatServer is a local OpenAI-compatible server answering every
// completion with answer and keeping the user messages it received.
type chatServer struct {
	*httptest.Server
	mu    sync.Mutex
	users []string
}

func newChatServer(t *testing.T, status int, answer string) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
			t.Errorf("model server got %s with Authorization %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		var body struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil || body.Model != "local-model" {
			t.Errorf("model server got model %q (%v)", body.Model, err)
		}
		s.mu.Lock()
		for _, m := range body.Messages {
			if m.Role == "user" {
				s.users = append(s.users, m.Content)
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = io.WriteString(w, `{"error":"overloaded"}`)
			return
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}}})
		_, _ = w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.users...)
}

func (s *chatServer) client(t *testing.T) llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{Provider: "openai", BaseURL: s.URL + "/v1", APIKey: "test-key", Model: "local-model"}, s.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const productsPage = `<!doctype html><html><head><title>Products</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us and our navigation menu</a></nav>
<main><h1>Products</h1>
<p>Our catalogue lists every widget we make, with prices in euros, updated weekly.</p>
<table><tr><th>Product</th><th>Price</th></tr>
<tr><td>Widget A</td><td>10 EUR</td></tr><tr><td>Widget B</td><td>12 EUR</td></tr></table>
<p>Prices include VAT. Shipping is free for orders of three widgets or more.</p>
</main><footer>Copyright footer text</footer></body></html>`

func extractRequest(t *testing.T, s *Service, req ExtractRequest) ExtractRequest {
	t.Helper()
	if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
		t.Fatal(err)
	}
	return req
}

func TestExtractService(t *testing.T) {
	site := newTestSite(t)
	site.handle("/products", "text/html; charset=utf-8", productsPage)
	chat := newChatServer(t, 200, "```json\n"+`{"found":true,"data":[{"name":"Widget A","price":10},{"name":"Widget B","price":12},{"name":"Widget A","price":10}]}`+"\n```")
	s := newMapService(true)

	req := extractRequest(t, s, ExtractRequest{URL: site.base + "/products", Intent: "product prices",
		Schema: map[string]any{"type": "object", "properties": map[string]any{
			"name": map[string]any{"type": "string"}, "price": map[string]any{"type": "number"}}, "required": []any{"name", "price"}}})
	res, err := s.Extract(context.Background(), "", chat.client(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.URL != site.base+"/products" || !res.Found || res.Model != "local-model" || res.Tier != model.TierHTTP {
		t.Errorf("got %+v", res)
	}
	if len(res.Data) != 2 || res.Data[0]["name"] != "Widget A" || res.Data[1]["price"] != float64(12) {
		t.Errorf("data %v, want the two widgets once each", res.Data)
	}
	if got := billing.ExtractCost(res.Tier); got != 5 {
		t.Errorf("ExtractCost(%q) = %d, want 5", res.Tier, got)
	}
	prompts := chat.prompts()
	if len(prompts) != 1 {
		t.Fatalf("%d model calls, want 1", len(prompts))
	}
	if p := prompts[0]; !strings.Contains(p, "Widget B") || !strings.Contains(p, "Prices include VAT") || !strings.Contains(p, "product prices") {
		t.Errorf("prompt lacks the page or the intent:\n%s", p)
	}
	b, _ := json.Marshal(res)
	for _, want := range []string{`"url":`, `"found":true`, `"data":[{`, `"model":"local-model"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}

func TestExtractServiceNothingFound(t *testing.T) {
	site := newTestSite(t)
	site.handle("/products", "text/html; charset=utf-8", productsPage)
	chat := newChatServer(t, 200, `{"found":false,"data":[]}`)
	s := newMapService(true)
	res, err := s.Extract(context.Background(), "", chat.client(t), extractRequest(t, s, ExtractRequest{URL: site.base + "/products", Prompt: "opening hours"}))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), `"found":false,"data":[]`) {
		t.Errorf("got %s, want found false and data []", b)
	}
}

func TestExtractServiceFailures(t *testing.T) {
	site := newTestSite(t)
	site.handle("/products", "text/html; charset=utf-8", productsPage)
	s := newMapService(true)

	t.Run("no model", func(t *testing.T) {
		_, err := s.Extract(context.Background(), "", nil, extractRequest(t, s, ExtractRequest{URL: site.base + "/products", Intent: "prices"}))
		if model.ErrorCode(err) != model.CodeUnavailable || !strings.Contains(model.ErrorMessage(err), "WEBACQ_LLM_PROVIDER") {
			t.Errorf("got %v, want unavailable saying how to configure a model", err)
		}
		if site.hitCount("/products") != 0 {
			t.Error("the page was fetched without a model to read it")
		}
	})
	t.Run("provider down", func(t *testing.T) {
		chat := newChatServer(t, 503, "")
		_, err := s.Extract(context.Background(), "", chat.client(t), extractRequest(t, s, ExtractRequest{URL: site.base + "/products", Intent: "prices"}))
		if model.ErrorCode(err) != model.CodeUnavailable || !strings.Contains(model.ErrorMessage(err), "HTTP 503") {
			t.Errorf("got %v, want unavailable naming HTTP 503", err)
		}
	})
	t.Run("missing page", func(t *testing.T) {
		chat := newChatServer(t, 200, `{"found":false,"data":[]}`)
		_, err := s.Extract(context.Background(), "", chat.client(t), extractRequest(t, s, ExtractRequest{URL: site.base + "/gone", Intent: "prices"}))
		if model.ErrorCode(err) != model.CodeUpstreamError || len(chat.prompts()) != 0 {
			t.Errorf("got %v after %d model calls, want upstream_error and none", err, len(chat.prompts()))
		}
	})
}

func TestExtractRequestNormalize(t *testing.T) {
	check := fetch.New(fetch.Config{}).CheckURL
	tests := []struct {
		name string
		req  ExtractRequest
		code string
	}{
		{"ok", ExtractRequest{URL: "https://example.com/", Intent: "prices"}, ""},
		{"prompt only", ExtractRequest{URL: "https://example.com/", Prompt: "list prices"}, ""},
		{"array schema", ExtractRequest{URL: "https://example.com/", Intent: "x", Schema: map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, ""},
		{"no url", ExtractRequest{Intent: "prices"}, model.CodeBadRequest},
		{"private url", ExtractRequest{URL: "http://127.0.0.1/", Intent: "prices"}, model.CodeForbiddenURL},
		{"no intent", ExtractRequest{URL: "https://example.com/", Intent: "  "}, model.CodeBadRequest},
		{"bad schema type", ExtractRequest{URL: "https://example.com/", Intent: "x", Schema: map[string]any{"type": "str"}}, model.CodeBadRequest},
		{"bad nested schema", ExtractRequest{URL: "https://example.com/", Intent: "x", Schema: map[string]any{"properties": map[string]any{"a": map[string]any{"type": 3}}}}, model.CodeBadRequest},
		{"remote ref", ExtractRequest{URL: "https://example.com/", Intent: "x", Schema: map[string]any{"$ref": "https://example.com/s.json"}}, model.CodeBadRequest},
		{"bad tier", ExtractRequest{URL: "https://example.com/", Intent: "x", Tier: "fast"}, model.CodeBadRequest},
		{"browser missing", ExtractRequest{URL: "https://example.com/", Intent: "x", Tier: "browser"}, model.CodeUnavailable},
		{"timeout", ExtractRequest{URL: "https://example.com/", Intent: "x", Timeout: 700000}, model.CodeBadRequest},
		{"long intent", ExtractRequest{URL: "https://example.com/", Intent: strings.Repeat("x", 2001)}, model.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Normalize(check, false)
			if got := model.ErrorCode(err); (err == nil && tt.code != "") || (err != nil && got != tt.code) {
				t.Fatalf("got %v, want code %q", err, tt.code)
			}
			if err == nil && (tt.req.Tier != TierAuto || tt.req.OnlyMainContent == nil || !*tt.req.OnlyMainContent) {
				t.Errorf("defaults not filled: %+v", tt.req)
			}
		})
	}
}

func TestExtractRequestMaxCost(t *testing.T) {
	for _, tt := range []struct {
		tier    string
		browser bool
		want    int64
	}{{TierAuto, true, 7}, {TierAuto, false, 5}, {TierHTTP, true, 5}, {TierBrowser, true, 7}} {
		r := ExtractRequest{Tier: tt.tier}
		if got := r.MaxCost(tt.browser); got != tt.want {
			t.Errorf("MaxCost(tier %s, browser %t) = %d, want %d", tt.tier, tt.browser, got, tt.want)
		}
	}
}
