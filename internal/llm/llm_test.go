package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/porttest"
)

// call is one request a fake provider received.
type call struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// fakeProvider is a local model server: reply scripts its answer to the
// i-th request (from 0) and every request is recorded for checks.
type fakeProvider struct {
	*httptest.Server
	mu    sync.Mutex
	calls []call
	reply func(i int, c call) (status int, body string)
}

func newFakeProvider(t *testing.T, reply func(i int, c call) (int, string)) *fakeProvider {
	t.Helper()
	f := &fakeProvider{reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c := call{Path: r.URL.Path, Header: r.Header.Clone()}
		if err := json.Unmarshal(b, &c.Body); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		f.mu.Lock()
		i := len(f.calls)
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		status, body := f.reply(i, c)
		if status == 0 { // hang until the client gives up
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeProvider) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// chatAnswer is an OpenAI chat completion whose message is content.
func chatAnswer(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
	return string(b)
}

// toolAnswer is an Anthropic message calling the extraction tool with input.
func toolAnswer(input string) string {
	return `{"id":"m1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
		"content":[{"type":"tool_use","id":"tu1","name":"extraction","input":` + input + `}]}`
}

func textAnswer(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "message", "role": "assistant", "stop_reason": "end_turn",
		"content": []any{map[string]any{"type": "text", "text": text}}})
	return string(b)
}

// messages returns the system and last user message of a chat request.
func messages(t *testing.T, c call) (system, user string) {
	t.Helper()
	msgs, _ := c.Body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		switch m["role"] {
		case "system":
			system, _ = m["content"].(string)
		case "user":
			user, _ = m["content"].(string)
		}
	}
	if s, ok := c.Body["system"].(string); ok {
		system = s
	}
	return system, user
}

func newOpenAI(t *testing.T, f *fakeProvider, mod func(*Config)) Client {
	t.Helper()
	cfg := Config{Provider: "openai", BaseURL: f.URL + "/v1", APIKey: "sk-secret-123", Model: "test-model"}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg, f.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const pricesPage = `# Price list

Widget A costs 10 EUR and ships in 2 days.

Widget B costs 12 EUR and ships in 5 days.`

var widgetSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"price":{"type":"number"}},"required":["name","price"]}`)

const validAnswer = `{"found":true,"data":[{"name":"Widget A","price":10},{"name":"Widget B","price":12}]}`

func TestExtractOpenAIWire(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) { return 200, chatAnswer(validAnswer) })
	c := newOpenAI(t, f, nil)
	x, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, URL: "https://example.com/prices",
		Intent: "widget prices", Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	if !x.Found || len(x.Data) != 2 || x.Data[0]["name"] != "Widget A" || x.Data[1]["price"] != float64(12) {
		t.Fatalf("got %+v, want the two widgets", x)
	}
	calls := f.recorded()
	if len(calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(calls))
	}
	cl := calls[0]
	if cl.Path != "/v1/chat/completions" {
		t.Errorf("path %q, want /v1/chat/completions", cl.Path)
	}
	if got := cl.Header.Get("Authorization"); got != "Bearer sk-secret-123" {
		t.Errorf("Authorization %q", got)
	}
	if cl.Body["model"] != "test-model" {
		t.Errorf("model %v", cl.Body["model"])
	}
	rf, _ := cl.Body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "extraction" {
		t.Fatalf("response_format %v, want json_schema named extraction", rf)
	}
	schema, _ := js["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	data, _ := props["data"].(map[string]any)
	items, _ := data["items"].(map[string]any)
	if _, ok := props["found"]; !ok || items["required"] == nil || items["properties"].(map[string]any)["price"] == nil {
		t.Errorf("schema %v: want {found, data: [item schema]}", schema)
	}
	if js["strict"] != false {
		t.Errorf("strict %v, want false for a schema with optional properties", js["strict"])
	}
	system, user := messages(t, cl)
	if !strings.Contains(user, "Widget B costs 12 EUR") || !strings.Contains(user, "widget prices") ||
		!strings.Contains(user, "https://example.com/prices") {
		t.Errorf("user message lacks the page, the intent or the URL:\n%s", user)
	}
	if !strings.Contains(system, `"price"`) {
		t.Errorf("system message lacks the item schema:\n%s", system)
	}
	if c.Model() != "test-model" {
		t.Errorf("Model() = %q", c.Model())
	}
}

func TestExtractRepairAndRetry(t *testing.T) {
	tests := []struct {
		name     string
		answers  []string
		calls    int
		wantErr  string // code; "" for success
		retryHas string
	}{
		{name: "code fence", answers: []string{"Here is the data:\n```json\n" + validAnswer + "\n```\nHope it helps."}, calls: 1},
		{name: "prose around", answers: []string{"Sure! " + validAnswer + " Done."}, calls: 1},
		{name: "bare array", answers: []string{`[{"name":"Widget A","price":10},{"name":"Widget B","price":12}]`}, calls: 1},
		{name: "truncated then valid", answers: []string{`{"found":true,"data":[{"name":"Widget A","price":10},{"name":"Wid`, validAnswer},
			calls: 2, retryHas: "cut off"},
		{name: "schema-invalid then valid", answers: []string{`{"found":true,"data":[{"name":"Widget A","price":"ten"}]}`, validAnswer},
			calls: 2, retryHas: "does not match the schema"},
		{name: "empty then valid", answers: []string{"", validAnswer}, calls: 2, retryHas: "empty"},
		{name: "invalid twice", answers: []string{`{"found":true,"data":[{"name":1}]}`, `not json at all`},
			calls: 2, wantErr: model.CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, func(i int, c call) (int, string) {
				return 200, chatAnswer(tt.answers[min(i, len(tt.answers)-1)])
			})
			x, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Intent: "widget prices", Schema: widgetSchema})
			calls := f.recorded()
			if len(calls) != tt.calls {
				t.Errorf("got %d calls, want %d", len(calls), tt.calls)
			}
			if tt.wantErr != "" {
				if got := model.ErrorCode(err); got != tt.wantErr {
					t.Fatalf("got error %v, want code %s", err, tt.wantErr)
				}
				if msg := model.ErrorMessage(err); msg != "the model did not return valid JSON for the schema" {
					t.Errorf("message %q", msg)
				}
				if !errors.Is(err, ErrInvalidOutput) {
					t.Errorf("error %v does not wrap ErrInvalidOutput", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !x.Found || len(x.Data) != 2 || x.Data[1]["name"] != "Widget B" {
				t.Fatalf("got %+v", x)
			}
			if tt.retryHas != "" {
				_, first := messages(t, calls[0])
				_, retry := messages(t, calls[1])
				if !strings.HasPrefix(retry, first) || !strings.Contains(retry, tt.retryHas) {
					t.Errorf("retry message does not explain the fault (%q):\n%s", tt.retryHas, retry[len(first):])
				}
			}
		})
	}
}

func TestExtractNothingFound(t *testing.T) {
	// Small models fill placeholders when nothing matches; found:false wins.
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		return 200, chatAnswer(`{"found":false,"data":[{"name":null,"price":null}]}`)
	})
	x, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Intent: "office hours", Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	if x.Found || x.Data == nil || len(x.Data) != 0 {
		t.Fatalf("got %+v, want found false and an empty, non-nil data", x)
	}
	b, _ := json.Marshal(x.Data)
	if string(b) != "[]" {
		t.Errorf("data marshals as %s", b)
	}
}

func TestExtractFreeForm(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		return 200, chatAnswer(`{"found":true,"data":[{"product":"Widget A","cost_eur":10}]}`)
	})
	x, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Prompt: "List the products with their prices."})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Data) != 1 || x.Data[0]["product"] != "Widget A" {
		t.Fatalf("got %+v", x)
	}
	rf := f.recorded()[0].Body["response_format"].(map[string]any)
	items := rf["json_schema"].(map[string]any)["schema"].(map[string]any)["properties"].(map[string]any)["data"].(map[string]any)["items"]
	if b, _ := json.Marshal(items); string(b) != `{"type":"object"}` {
		t.Errorf("free-form items %s, want any object", b)
	}
}

func TestExtractSplitsLongPage(t *testing.T) {
	const contextTokens, outTokens = 2048, 256
	var page strings.Builder
	for i := range 60 {
		fmt.Fprintf(&page, "Paragraph %d. %s\n\n", i, strings.Repeat("Lorem ipsum dolor sit amet. ", 12))
	}
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		// Every part finds one shared object and one of its own.
		return 200, chatAnswer(fmt.Sprintf(`{"found":true,"data":[{"name":"shared","price":1},{"name":"part %d","price":%d}]}`, i, i))
	})
	c := newOpenAI(t, f, func(cfg *Config) { cfg.ContextTokens, cfg.MaxOutputTokens = contextTokens, outTokens })
	x, err := Extract(context.Background(), c, ExtractInput{Markdown: page.String(), Intent: "prices", Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	if len(calls) < 3 {
		t.Fatalf("got %d calls for a %d-character page in a %d-token context, want several", len(calls), page.Len(), contextTokens)
	}
	if x.Chunks != len(calls) || len(x.Data) != len(calls)+1 || x.Data[0]["name"] != "shared" {
		t.Errorf("got %d chunks and %d objects over %d calls, want the shared object once", x.Chunks, len(x.Data), len(calls))
	}
	var seen strings.Builder
	for i, cl := range calls {
		system, user := messages(t, cl)
		schema, _ := json.Marshal(cl.Body["response_format"])
		// chars/4, the usual estimate of English tokens.
		if tokens := (len(system) + len(user) + len(schema)) / 4; tokens+outTokens > contextTokens {
			t.Errorf("call %d: about %d prompt tokens + %d output exceed the %d context", i, tokens, outTokens, contextTokens)
		}
		if want := fmt.Sprintf("part %d of %d", i+1, len(calls)); !strings.Contains(user, want) {
			t.Errorf("call %d lacks %q", i, want)
		}
		seen.WriteString(user)
	}
	for i := range 60 {
		if p := fmt.Sprintf("Paragraph %d.", i); !strings.Contains(seen.String(), p) {
			t.Errorf("%q was sent in no call", p)
		}
	}
}

func TestExtractMaxChunks(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) { return 200, chatAnswer(`{"found":false,"data":[]}`) })
	c := newOpenAI(t, f, func(cfg *Config) { cfg.ContextTokens, cfg.MaxOutputTokens = 2048, 256 })
	x, err := Extract(context.Background(), c, ExtractInput{Markdown: strings.Repeat("word ", 20000), Intent: "x", MaxChunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.recorded()) != 2 || !x.Truncated || x.Found {
		t.Errorf("got %d calls, truncated %t, found %t; want 2, true, false", len(f.recorded()), x.Truncated, x.Found)
	}
}

func TestExtractJSONSchemaRejected(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		if rf, ok := c.Body["response_format"].(map[string]any); ok && rf["type"] == "json_schema" {
			return 400, `{"error":{"message":"response_format type json_schema is not supported","type":"invalid_request_error"}}`
		}
		return 200, chatAnswer(validAnswer)
	})
	c := newOpenAI(t, f, nil)
	for range 2 {
		if _, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema}); err != nil {
			t.Fatal(err)
		}
	}
	var formats []string
	for _, cl := range f.recorded() {
		rf, _ := cl.Body["response_format"].(map[string]any)
		formats = append(formats, fmt.Sprint(rf["type"]))
	}
	// One rejection, remembered: the second extraction asks for json_object at once.
	if got := strings.Join(formats, ","); got != "json_schema,json_object,json_object" {
		t.Errorf("response formats %s, want json_schema,json_object,json_object", got)
	}
}

func TestExtractPlainPromptFallback(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		if _, ok := c.Body["response_format"]; ok {
			return 400, `{"error":"unknown field response_format"}`
		}
		return 200, chatAnswer("```json\n" + validAnswer + "\n```")
	})
	x, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Data) != 2 || len(f.recorded()) != 3 {
		t.Errorf("got %d objects after %d calls, want 2 after 3", len(x.Data), len(f.recorded()))
	}
}

func TestExtractMaxCompletionTokens(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		if _, ok := c.Body["max_tokens"]; ok {
			return 400, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}}`
		}
		return 200, chatAnswer(validAnswer)
	})
	if _, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema}); err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	last := calls[len(calls)-1].Body
	if len(calls) != 2 || last["max_completion_tokens"] == nil || last["response_format"].(map[string]any)["type"] != "json_schema" {
		t.Errorf("got %d calls, last %v; want max_completion_tokens with json_schema kept", len(calls), last)
	}
}

func TestExtractProviderErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		code     string
		msgHas   string
		provider string
	}{
		{name: "500", status: 500, body: `{"error":"boom"}`, code: model.CodeUnavailable, msgHas: "HTTP 500"},
		{name: "503 anthropic", status: 529, body: `{"type":"error","error":{"type":"overloaded_error"}}`, code: model.CodeUnavailable, msgHas: "HTTP 529", provider: "anthropic"},
		{name: "401", status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-secret-123"}}`, code: model.CodeUnavailable, msgHas: "check WEBACQ_LLM_API_KEY"},
		{name: "403 anthropic", status: 403, body: `{"type":"error"}`, code: model.CodeUnavailable, msgHas: "check WEBACQ_LLM_API_KEY", provider: "anthropic"},
		{name: "404", status: 404, body: `{"error":"model not found"}`, code: model.CodeUnavailable, msgHas: "WEBACQ_LLM_MODEL"},
		{name: "429", status: 429, body: `{}`, code: model.CodeUnavailable, msgHas: "rate limited"},
		{name: "context exceeded", status: 400, body: `{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}`,
			code: model.CodeUnavailable, msgHas: "WEBACQ_LLM_CONTEXT_TOKENS"},
		{name: "slow", status: 0, code: model.CodeTimeout, msgHas: "did not answer within"},
		{name: "slow anthropic", status: 0, code: model.CodeTimeout, msgHas: "did not answer within", provider: "anthropic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, func(i int, c call) (int, string) { return tt.status, tt.body })
			// A provider that answers has all the time a loaded machine needs;
			// one that hangs is given up on after 300 ms.
			timeout := 10 * time.Second
			if tt.status == 0 {
				timeout = 300 * time.Millisecond
			}
			cfg := Config{Provider: "openai", BaseURL: f.URL + "/v1", APIKey: "sk-secret-123", Model: "m", Timeout: timeout}
			if tt.provider != "" {
				cfg.Provider, cfg.BaseURL = tt.provider, f.URL
			}
			c, err := New(cfg, f.Client())
			if err != nil {
				t.Fatal(err)
			}
			_, err = Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema})
			if got := model.ErrorCode(err); got != tt.code {
				t.Fatalf("got %v, want code %s", err, tt.code)
			}
			msg := model.ErrorMessage(err)
			if !strings.Contains(msg, tt.msgHas) {
				t.Errorf("message %q lacks %q", msg, tt.msgHas)
			}
			if strings.Contains(msg, "sk-secret") || strings.Contains(msg, "boom") {
				t.Errorf("message %q leaks the key or the provider's text", msg)
			}
			if n := len(f.recorded()); n != 1 {
				t.Errorf("got %d calls, want 1 (a provider failure is not retried)", n)
			}
			if tt.status == 429 {
				var me *model.Error
				if errors.As(err, &me); me.RetryAfter != 7*time.Second {
					t.Errorf("RetryAfter %s, want 7s", me.RetryAfter)
				}
			}
		})
	}
}

func TestExtractUnreachable(t *testing.T) {
	c, err := New(Config{Provider: "openai", BaseURL: "http://" + porttest.Refusing(t), Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices"})
	if got := model.ErrorCode(err); got != model.CodeUnavailable || !strings.Contains(model.ErrorMessage(err), "could not be reached") {
		t.Fatalf("got %v, want unavailable: could not be reached", err)
	}
}

func TestExtractAnthropicWire(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) { return 200, toolAnswer(validAnswer) })
	c, err := New(Config{Provider: "anthropic", BaseURL: f.URL + "/v1", APIKey: "sk-ant-secret", Model: "claude-test"}, f.Client())
	if err != nil {
		t.Fatal(err)
	}
	if lim := c.Limits(); lim.ContextTokens != DefaultAnthropicContextTokens || lim.MaxOutputTokens != DefaultMaxOutputTokens {
		t.Errorf("limits %+v", lim)
	}
	x, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, URL: "https://example.com/p",
		Intent: "widget prices", Refinements: []string{"prices in EUR only"}, Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	if !x.Found || len(x.Data) != 2 {
		t.Fatalf("got %+v", x)
	}
	cl := f.recorded()[0]
	if cl.Path != "/v1/messages" {
		t.Errorf("path %q, want /v1/messages", cl.Path)
	}
	if cl.Header.Get("x-api-key") != "sk-ant-secret" || cl.Header.Get("anthropic-version") != AnthropicVersion || cl.Header.Get("Authorization") != "" {
		t.Errorf("headers %v", cl.Header)
	}
	if cl.Body["model"] != "claude-test" || cl.Body["max_tokens"] != float64(DefaultMaxOutputTokens) {
		t.Errorf("model %v, max_tokens %v", cl.Body["model"], cl.Body["max_tokens"])
	}
	tools, _ := cl.Body["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools %v", cl.Body["tools"])
	}
	tool := tools[0].(map[string]any)
	is, _ := tool["input_schema"].(map[string]any)
	if tool["name"] != "extraction" || is["type"] != "object" || is["properties"].(map[string]any)["data"] == nil {
		t.Errorf("tool %v", tool)
	}
	tc, _ := cl.Body["tool_choice"].(map[string]any)
	if tc["type"] != "tool" || tc["name"] != "extraction" {
		t.Errorf("tool_choice %v, want the extraction tool forced", tc)
	}
	system, user := messages(t, cl)
	if !strings.Contains(system, "JSON") || !strings.Contains(user, "Widget A costs 10 EUR") || !strings.Contains(user, "prices in EUR only") {
		t.Errorf("prompt lacks the page or the refinement:\nsystem: %s\nuser: %s", system, user)
	}
}

func TestExtractAnthropicTextAnswer(t *testing.T) {
	// A model answering in prose instead of calling the tool is repaired.
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		if i == 0 {
			return 200, textAnswer("I could not call the tool, here you go:\n```json\n{\"found\":true,\"data\":[{\"name\":\"Widget A\"}]}\n```")
		}
		return 200, toolAnswer(validAnswer)
	})
	c, err := New(Config{Provider: "anthropic", BaseURL: f.URL, APIKey: "k", Model: "claude-test"}, f.Client())
	if err != nil {
		t.Fatal(err)
	}
	// The first answer misses the required price: retried with the fault.
	x, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Data) != 2 || len(f.recorded()) != 2 {
		t.Errorf("got %d objects after %d calls", len(x.Data), len(f.recorded()))
	}
}

func TestExtractNotConfigured(t *testing.T) {
	_, err := New(Config{}, nil)
	if model.ErrorCode(err) != model.CodeUnavailable || !errors.Is(err, ErrNotConfigured) ||
		!strings.Contains(model.ErrorMessage(err), "WEBACQ_LLM_PROVIDER") {
		t.Fatalf("got %v, want unavailable naming WEBACQ_LLM_PROVIDER", err)
	}
	if _, err := Extract(context.Background(), nil, ExtractInput{Markdown: "x", Intent: "y"}); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("Extract with no client: %v", err)
	}
	for _, cfg := range []Config{
		{Provider: "openai"},                                 // no model
		{Provider: "gemini", Model: "m"},                     // unknown provider
		{Provider: "openai", Model: "m", BaseURL: "ftp://x"}, // bad base URL
		{Provider: "openai", Model: "m", ContextTokens: 1000, MaxOutputTokens: 800},
	} {
		if _, err := New(cfg, nil); err == nil || errors.Is(err, ErrNotConfigured) || model.ErrorCode(err) != model.CodeUnavailable {
			t.Errorf("New(%+v) = %v, want a configuration error", cfg, err)
		}
	}
}

const recursiveSchema = `{"type":"object","properties":{"name":{"type":"string"},"replies":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}`

func TestExtractSchemaShapes(t *testing.T) {
	tests := []struct {
		name, schema, answer string
		ok                   bool
	}{
		{"array of objects", `{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`, `{"found":true,"data":[{"n":1}]}`, true},
		{"array of objects, wrong", `{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`, `{"found":true,"data":[{"n":"x"}]}`, false},
		{"array of strings", `{"type":"array","items":{"type":"string"}}`, `{"found":true,"data":[{"value":"a"},{"value":"b"}]}`, true},
		{"scalar", `{"type":"string"}`, `{"found":true,"data":[{"value":"a"}]}`, true},
		{"defs", `{"$defs":{"p":{"type":"number"}},"type":"object","properties":{"price":{"$ref":"#/$defs/p"}},"required":["price"]}`, `{"found":true,"data":[{"price":"x"}]}`, false},
		{"defs ok", `{"$defs":{"p":{"type":"number"}},"type":"object","properties":{"price":{"$ref":"#/$defs/p"}},"required":["price"]}`, `{"found":true,"data":[{"price":3}]}`, true},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"p":{"type":"number"}},"properties":{"price":{"$ref":"#/definitions/p"}}}`, `{"found":true,"data":[{"price":3}]}`, true},
		{"single object answer", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":4}`, true},
		// "#" and "#/..." are the caller's root, not the envelope's.
		{"recursive root", recursiveSchema, `{"found":true,"data":[{"name":"a","replies":[{"name":"b","replies":[{"name":"c"}]}]}]}`, true},
		{"recursive root, wrong", recursiveSchema, `{"found":true,"data":[{"name":"a","replies":[{"name":"b","replies":[{"name":5}]}]}]}`, false},
		{"pointer into the root", `{"type":"object","properties":{"home":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"work":{"$ref":"#/properties/home"}}}`, `{"found":true,"data":[{"home":{"city":"a"},"work":{"city":"b"}}]}`, true},
		{"pointer into the root, wrong", `{"type":"object","properties":{"home":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"work":{"$ref":"#/properties/home"}}}`, `{"found":true,"data":[{"home":{"city":"a"},"work":{"town":"b"}}]}`, false},
		{"root from a definition", `{"$defs":{"kids":{"type":"array","items":{"$ref":"#"}}},"type":"object","properties":{"default":{"type":"string"},"kids":{"$ref":"#/$defs/kids"}},"required":["default"]}`, `{"found":true,"data":[{"default":"a","kids":[{"default":"b"}]}]}`, true},
		{"root from a definition, wrong", `{"$defs":{"kids":{"type":"array","items":{"$ref":"#"}}},"type":"object","properties":{"default":{"type":"string"},"kids":{"$ref":"#/$defs/kids"}},"required":["default"]}`, `{"found":true,"data":[{"default":"a","kids":[{"x":"b"}]}]}`, false},
		{"pointer into an array root", `{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"},"also":{"$ref":"#/items/properties/n"}}}}`, `{"found":true,"data":[{"n":1,"also":2}]}`, true},
		{"pointer into an array root, wrong", `{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"},"also":{"$ref":"#/items/properties/n"}}}}`, `{"found":true,"data":[{"n":1,"also":"x"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := newEnvelope(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			found, data, err := env.check(tt.answer)
			if (err == nil) != tt.ok {
				t.Fatalf("check: %v, want ok %t", err, tt.ok)
			}
			if tt.ok && (!found || len(data) == 0) {
				t.Errorf("got found %t, data %v", found, data)
			}
		})
	}
}

func TestExtractCompileSchema(t *testing.T) {
	for _, bad := range []string{`[1]`, `"string"`, `{"type":"nonsense"}`, `{"$ref":"https://example.com/remote.json"}`, `{"properties":{"a":{"type":5}}}`} {
		if _, err := CompileSchema(json.RawMessage(bad)); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("CompileSchema(%s) = %v, want bad_request", bad, err)
		}
	}
	if _, err := CompileSchema(widgetSchema); err != nil {
		t.Errorf("CompileSchema(item) = %v", err)
	}
}

func TestExtractParseJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"```json\n{\"a\":\"}\"}\n```", `{"a":"}"}`},
		{"```\n[1,2]\n```", `[1,2]`},
		{`The answer is {"a":{"b":"x\"}"}} as requested. {"c":2}`, `{"a":{"b":"x\"}"}}`},
		{"```json\n{\"a\":1}", `{"a":1}`}, // an unclosed fence
	}
	for _, tt := range tests {
		v, err := parseJSON(tt.in)
		if err != nil {
			t.Errorf("parseJSON(%q): %v", tt.in, err)
			continue
		}
		if b, _ := json.Marshal(v); string(b) != tt.want {
			t.Errorf("parseJSON(%q) = %s, want %s", tt.in, b, tt.want)
		}
	}
	if _, err := parseJSON(`{"a":[1,2`); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v, want ErrTruncated", err)
	}
	if _, err := parseJSON(`no json`); err == nil {
		t.Error("prose parsed")
	}
}

func TestExtractSplitMarkdown(t *testing.T) {
	const maxTokens = 300
	long := strings.Repeat("x", 5000)              // one line, no breaks
	cjk := strings.Repeat("日本語のテキスト。", 200)        // a token per character
	lines := strings.Repeat("a short line\n", 400) // one paragraph of lines
	for name, md := range map[string]string{"long line": long, "cjk": cjk, "lines": lines, "mixed": lines + "\n\n" + cjk + "\n\n" + long} {
		chunks := splitMarkdown(md, maxTokens)
		if len(chunks) < 2 {
			t.Errorf("%s: %d chunks", name, len(chunks))
		}
		total := 0
		for _, c := range chunks {
			if n := estimateTokens(c); n > maxTokens {
				t.Errorf("%s: a chunk of %d tokens, max %d", name, n, maxTokens)
			}
			total += len(strings.Join(strings.Fields(c), ""))
		}
		if want := len(strings.Join(strings.Fields(md), "")); total != want {
			t.Errorf("%s: %d non-space bytes in chunks, want %d", name, total, want)
		}
	}
	if got := splitMarkdown("small page", maxTokens); len(got) != 1 || got[0] != "small page" {
		t.Errorf("small page: %q", got)
	}
}

func TestExtractInstruction(t *testing.T) {
	got := Instruction("earnings call dates", "", []string{"only 2025", " ", "include the webcast link"})
	want := "Find: earnings call dates\nRefinements (a later one overrides an earlier one):\n- only 2025\n- include the webcast link"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A locked prompt with an approved example reaches the model as is.
	f := newFakeProvider(t, func(i int, c call) (int, string) { return 200, chatAnswer(validAnswer) })
	_, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Prompt: got,
		Example: json.RawMessage(`{"found":true,"data":[{"date":"2025-01-30","webcast":"https://x"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	system, user := messages(t, f.recorded()[0])
	if !strings.Contains(user, got) || !strings.Contains(system, `"webcast":"https://x"`) {
		t.Errorf("locked prompt or example missing:\nsystem: %s\nuser: %s", system, user)
	}
}

func TestExtractAnthropicCutToolCall(t *testing.T) {
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		if i == 0 {
			return 200, `{"type":"message","stop_reason":"max_tokens","content":[{"type":"tool_use","id":"t","name":"extraction","input":{}}]}`
		}
		return 200, toolAnswer(validAnswer)
	})
	c, err := New(Config{Provider: "anthropic", BaseURL: f.URL, Model: "claude-test"}, f.Client())
	if err != nil {
		t.Fatal(err)
	}
	x, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema})
	if err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	_, retry := messages(t, calls[len(calls)-1])
	if len(x.Data) != 2 || len(calls) != 2 || !strings.Contains(retry, "shorter") {
		t.Errorf("got %d objects after %d calls; retry:\n%s", len(x.Data), len(calls), retry)
	}
}

func TestExtractStrictSchemaRejected(t *testing.T) {
	strict := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","pattern":"^W"}},"required":["name"],"additionalProperties":false}`)
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		rf, _ := c.Body["response_format"].(map[string]any)
		js, _ := rf["json_schema"].(map[string]any)
		if js["strict"] == true {
			return 400, `{"error":{"message":"Invalid schema for response_format 'extraction': 'pattern' is not permitted."}}`
		}
		return 200, chatAnswer(`{"found":true,"data":[{"name":"Widget A"}]}`)
	})
	x, err := Extract(context.Background(), newOpenAI(t, f, nil), ExtractInput{Markdown: pricesPage, Intent: "names", Schema: strict})
	if err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	last, _ := calls[len(calls)-1].Body["response_format"].(map[string]any)
	if len(x.Data) != 1 || len(calls) != 2 || last["type"] != "json_schema" {
		t.Errorf("got %d objects after %d calls, last format %v; want json_schema without strict", len(x.Data), len(calls), last)
	}
}

func TestExtractEmptyObjectAnswer(t *testing.T) {
	env, err := newEnvelope(nil)
	if err != nil {
		t.Fatal(err)
	}
	found, data, err := env.check(`{}`)
	if err != nil || found || len(data) != 0 {
		t.Errorf("check({}) = %t, %v, %v; want nothing found", found, data, err)
	}
}
