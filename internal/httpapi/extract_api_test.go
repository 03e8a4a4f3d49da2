package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/config"
	"webacq/internal/fetch"
	"webacq/internal/httpapi"
	"webacq/internal/jobs"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/primitive"
	"webacq/internal/store/storetest"
)

// chatModel is a local OpenAI-compatible model server that answers every
// completion with its current answer and keeps the user messages.
type chatModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	answer string
	users  []string
}

func newChatModel(t *testing.T, answer string) *chatModel {
	t.Helper()
	c := &chatModel{answer: answer}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		c.mu.Lock()
		for _, m := range body.Messages {
			if m.Role == "user" {
				c.users = append(c.users, m.Content)
			}
		}
		answer := c.answer
		c.mu.Unlock()
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": answer}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *chatModel) prompts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.users)
}

func (c *chatModel) client(t *testing.T) llm.Client {
	t.Helper()
	lc, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: c.srv.URL + "/v1", Model: "local-model"}, c.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return lc
}

// newExtractEnv is newMonitorEnv with a language model (nil: none) and
// credits as given.
func newExtractEnv(t *testing.T, dialect string, lc llm.Client, credits int64) *env {
	t.Helper()
	s := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate) // with the job queue's tables
	cfg, err := config.Load(func(k string) string {
		if k == "WEBACQ_ACCESS_LOG" {
			return "0"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	b := billing.New(s, log)
	hc := fetch.New(fetch.Config{AllowPrivate: true})
	prims := &primitive.Service{HTTP: hc, Pages: s, Log: log, UserAgent: "webacq", LLM: lc}
	api := httpapi.New(cfg, s, b, billed.New(b, prims), log)
	mon := &monitor.Service{Store: s, HTTP: hc, Log: log, Timeout: 10 * time.Second, LLM: lc,
		Alerts: &alert.Service{Store: s, HTTP: hc, Log: log}}
	w := river.NewWorkers()
	mon.AddWorkers(w)
	mon.Alerts.AddWorkers(w)
	q, err := jobs.New(s, w, jobs.Config{Workers: 4, RescueAfter: time.Minute, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mon.Queue, mon.Alerts.Queue = q, q
	api.SetMonitors(mon)
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	t.Cleanup(func() { srv.Close(); q.Stop(ctx); b.Close() })
	ws, err := s.CreateWorkspace(ctx, "acme", credits, true)
	if err != nil {
		t.Fatal(err)
	}
	key, k, err := s.CreateKey(ctx, ws.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, url: srv.URL, store: s, ws: ws, key: key, prefix: k.Prefix, biller: b, prims: prims, mon: mon}
}

// irSite serves an investor page whose navigation and footer are not
// about results.
func irSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><nav><a href="/">Home</a> <a href="/careers">Careers at Acme</a></nav>
<main><h1>News</h1><ul><li><a href="/a">Acme results for Q1</a> May 1</li><li><a href="/b">Acme results for Q2</a> Aug 1</li></ul></main>
<footer><p>Copyright Acme · Cookie settings</p></footer></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (e *env) register(body string) string {
	e.t.Helper()
	a := e.send("POST", "/api/v1/monitor/register", body)
	if a.status != 200 {
		e.t.Fatalf("register: %d %s %s", a.status, a.Code, a.Error)
	}
	var reg struct {
		MonitorID string `json:"monitor_id"`
	}
	json.Unmarshal(a.Data, &reg)
	return reg.MonitorID
}

// extractionView is the extraction object of GET /api/v1/monitor/:id.
type extractionView struct {
	Status      string   `json:"status"`
	Refinements []string `json:"refinements"`
	Preview     *struct {
		Found           bool             `json:"found"`
		Data            []map[string]any `json:"data"`
		ScopeExcerpt    string           `json:"scope_excerpt"`
		SuggestedPrompt string           `json:"suggested_prompt"`
		Error           string           `json:"error"`
	} `json:"preview"`
	LockedPrompt    string          `json:"locked_prompt"`
	ExtractedSample json.RawMessage `json:"extracted_sample"`
	ApprovedAt      *time.Time      `json:"approved_at"`
}

// extraction waits until the monitor's extraction has status.
func (e *env) extraction(id, status string) extractionView {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		a := e.get("/api/v1/monitor/" + id)
		var m struct {
			Extraction *extractionView `json:"extraction"`
		}
		if err := json.Unmarshal(a.Data, &m); err != nil || a.status != 200 {
			e.t.Fatalf("GET monitor: %d %s (%v)", a.status, a.Error, err)
		}
		if m.Extraction != nil && m.Extraction.Status == status {
			return *m.Extraction
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("extraction after 20 s: %+v, want status %s", m.Extraction, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExtractEndpoints(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		chat := newChatModel(t, `{"found":true,"data":[{"quarter":"Q1"},{"quarter":"Q2"}]}`)
		e := newExtractEnv(t, dialect, chat.client(t), 100)
		site := irSite(t)
		id := e.register(`{"url":"` + site.URL + `/ir","discovery_keywords":["results"],"extract_intent":"the quarters with results"}`)

		x := e.extraction(id, model.ExtractionReady)
		if x.Preview == nil || !x.Preview.Found || len(x.Preview.Data) != 2 || len(x.Refinements) != 0 || x.ApprovedAt != nil ||
			x.Preview.SuggestedPrompt != "Find: the quarters with results" {
			t.Errorf("extraction after registration: %+v", x)
		}

		// Refinements accumulate; the answer is DECISIONS.md's shape.
		waitRuns(t, e, id, 1)
		balance := e.balance()
		var res map[string]json.RawMessage
		for i, ref := range []string{"quarters as Q1 to Q4", "only this year"} {
			a := e.send("POST", "/api/v1/monitor/"+id+"/preview-extract", `{"refinement":"`+ref+`"}`)
			if a.status != 200 {
				t.Fatalf("preview %d: %d %s %s", i, a.status, a.Code, a.Error)
			}
			json.Unmarshal(a.Data, &res)
			var keys []string
			for k := range res {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if want := []string{"intent", "monitor_id", "preview", "refinements", "scope_excerpt", "suggested_prompt"}; !reflect.DeepEqual(keys, want) {
				t.Errorf("preview answer keys %v, want %v", keys, want)
			}
			prompt := chat.prompts()[len(chat.prompts())-1]
			if !strings.Contains(prompt, "the quarters with results") || !strings.Contains(prompt, "- "+ref) ||
				!strings.Contains(prompt, "Acme results for Q2") || strings.Contains(prompt, "Careers") || strings.Contains(prompt, "Cookie") {
				t.Errorf("preview %d: the model read:\n%s", i, prompt)
			}
		}
		var refs []string
		json.Unmarshal(res["refinements"], &refs)
		var suggested string
		json.Unmarshal(res["suggested_prompt"], &suggested)
		if !reflect.DeepEqual(refs, []string{"quarters as Q1 to Q4", "only this year"}) ||
			suggested != llm.Instruction("the quarters with results", "", refs) ||
			string(res["preview"]) != `{"found":true,"data":[{"quarter":"Q1"},{"quarter":"Q2"}]}` || string(res["monitor_id"]) != `"`+id+`"` {
			t.Errorf("second preview: %v", res)
		}
		// No body previews with the refinements so far.
		if a := e.send("POST", "/api/v1/monitor/"+id+"/preview-extract", ""); a.status != 200 {
			t.Fatalf("preview without a body: %d %s", a.status, a.Error)
		}
		if got := e.balance(); got != balance-3 {
			t.Errorf("three previews cost %d, want 3", balance-got)
		}
		var billedPreviews int
		for _, u := range e.usageRows() {
			if u.Endpoint == monitor.PreviewEndpoint && u.KeyPrefix == e.prefix && u.Credits == 1 && u.Status == 200 {
				billedPreviews++
			}
		}
		if billedPreviews != 3 {
			t.Errorf("%d usage rows of billed previews, want 3", billedPreviews)
		}
		if x := e.extraction(id, model.ExtractionReady); len(x.Refinements) != 2 {
			t.Errorf("refinements after a preview without one: %q", x.Refinements)
		}

		// Approve, and approve again: the second template replaces the first.
		for _, prompt := range []string{suggested, suggested + "\nOnly quarters of 2026."} {
			body, _ := json.Marshal(map[string]any{"extracted_sample": json.RawMessage(res["preview"]), "locked_prompt": prompt})
			a := e.send("POST", "/api/v1/monitor/"+id+"/approve-extract", string(body))
			if a.status != 200 || string(a.Data) != `{"approved":true}` {
				t.Fatalf("approve: %d %s %s", a.status, a.Data, a.Error)
			}
			x := e.extraction(id, model.ExtractionApproved)
			if x.LockedPrompt != prompt || x.ApprovedAt == nil || !strings.Contains(string(x.ExtractedSample), `"quarter":"Q2"`) {
				t.Errorf("approved extraction %+v", x)
			}
		}
		if got := e.balance(); got != balance-3 {
			t.Errorf("approvals cost %d credits", balance-3-got)
		}
	})
}

func TestExtractEndpointsRefuse(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		chat := newChatModel(t, `{"found":false,"data":[]}`)
		e := newExtractEnv(t, dialect, chat.client(t), 100)
		site := irSite(t)
		id := e.register(`{"url":"` + site.URL + `/ir","extract_intent":"the quarters"}`)
		e.extraction(id, model.ExtractionReady)
		waitRuns(t, e, id, 1)
		calls, balance := len(chat.prompts()), e.balance()
		preview := "/api/v1/monitor/" + id + "/preview-extract"
		approve := "/api/v1/monitor/" + id + "/approve-extract"
		long := strings.Repeat("x", 501)
		big := `{"found":true,"data":[` + strings.Repeat(`{"quarter":"Q1 of a long list of quarters"},`, 2000) + `{"q":1}]}`
		for _, c := range []struct{ path, body, names string }{
			{preview, `{"refinement":}`, "malformed JSON"},
			{preview, `{"refinement":5}`, "refinement"},
			{preview, `{"refinement":"` + long + `"}`, "refinement"},
			{preview, `{"refinement":"  "}`, "refinement"},
			{preview, `{"refine":"dates"}`, "refine"},
			{preview, `["dates"]`, "request body"},
			{approve, `{"extracted_sample":{"found":true,}}`, "malformed JSON"},
			{approve, `{}`, "extracted_sample"},
			{approve, `{"extracted_sample":{"found":true,"data":[]}}`, "locked_prompt"},
			{approve, `{"extracted_sample":{"found":true,"data":[]},"locked_prompt":"  "}`, "locked_prompt"},
			{approve, `{"extracted_sample":{"found":true,"data":[]},"locked_prompt":7}`, "locked_prompt"},
			{approve, `{"extracted_sample":{"found":true,"data":[]},"locked_prompt":"` + strings.Repeat("p", 10001) + `"}`, "locked_prompt"},
			{approve, `{"extracted_sample":"found","locked_prompt":"x"}`, "extracted_sample"},
			{approve, `{"extracted_sample":{"found":"yes","data":[]},"locked_prompt":"x"}`, "extracted_sample.found"},
			{approve, `{"extracted_sample":{"found":true},"locked_prompt":"x"}`, "extracted_sample.data"},
			{approve, `{"extracted_sample":{"found":true,"data":{"q":1}},"locked_prompt":"x"}`, "extracted_sample.data"},
			{approve, `{"extracted_sample":{"found":true,"data":[1]},"locked_prompt":"x"}`, "extracted_sample.data[0]"},
			{approve, `{"extracted_sample":{"found":true,"data":[{"q":1},null]},"locked_prompt":"x"}`, "extracted_sample.data[1]"},
			{approve, `{"extracted_sample":{"found":true,"data":[],"extra":1},"locked_prompt":"x"}`, "extra"},
			{approve, `{"extracted_sample":{"found":true,"data":[]},"locked_prompt":"x","schema":{}}`, "schema"},
			{approve, `{"extracted_sample":` + big + `,"locked_prompt":"x"}`, "extracted_sample"},
		} {
			a := e.send("POST", c.path, c.body)
			if a.status != 400 || a.Code != model.CodeBadRequest || !strings.Contains(a.Error, c.names) {
				t.Errorf("POST %s %.80s: %d %s %q, want bad_request naming %s", c.path[len(c.path)-15:], c.body, a.status, a.Code, a.Error, c.names)
			}
		}
		if got := e.balance(); got != balance || len(chat.prompts()) != calls {
			t.Errorf("bad requests cost %d credits and %d model calls", balance-got, len(chat.prompts())-calls)
		}
		if x := e.extraction(id, model.ExtractionReady); len(x.Refinements) != 0 || x.LockedPrompt != "" {
			t.Errorf("bad requests changed the extraction: %+v", x)
		}

		// A monitor without an intent has nothing to preview.
		plain := e.register(`{"url":"` + site.URL + `/plain"}`)
		a := e.send("POST", "/api/v1/monitor/"+plain+"/preview-extract", "")
		if a.status != 400 || !strings.Contains(a.Error, "extract_intent") {
			t.Errorf("preview without intent: %d %s", a.status, a.Error)
		}

		// Another workspace's key: not found, for both.
		other, err := e.store.CreateWorkspace(ctx, "other", 100, true)
		if err != nil {
			t.Fatal(err)
		}
		otherKey, _, err := e.store.CreateKey(ctx, other.ID, "other")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ path, body string }{{preview, `{"refinement":"x"}`},
			{approve, `{"extracted_sample":{"found":false,"data":[]},"locked_prompt":"x"}`}} {
			a := e.do("POST", c.path, strings.NewReader(c.body), "Authorization", "Bearer "+otherKey, "Content-Type", "application/json")
			wantError(t, a, 404, model.CodeNotFound)
		}
		if b, _ := e.store.Balance(ctx, other.ID); b != 100 {
			t.Errorf("the other workspace paid %d for a monitor it cannot see", 100-b)
		}
		e.unknownMonitor()
		// A body over the 1 MiB cap.
		wantError(t, e.send("POST", preview, `{"refinement":"`+strings.Repeat("r", 1<<20)+`"}`), 413, model.CodeBadRequest)

		// Without credits: 402, nothing called. The monitors registered
		// above have checks queued that may draw credits between reading
		// the balance and emptying it, so emptying is retried.
		for i := 0; ; i++ {
			_, err := e.store.AddCredits(ctx, e.ws.ID, -e.balance())
			if err == nil {
				break
			}
			if i == 20 {
				t.Fatal(err)
			}
		}
		wantError(t, e.send("POST", preview, `{"refinement":"dates"}`), 402, model.CodeCreditsExhausted)
		if len(chat.prompts()) != calls {
			t.Error("the model was called for a preview nobody could pay")
		}
	})
}

// unknownMonitor: an id that is no monitor is not found.
func (e *env) unknownMonitor() {
	e.t.Helper()
	wantError(e.t, e.send("POST", "/api/v1/monitor/6f1c2d36-0000-4000-8000-000000000000/preview-extract", ""), 404, model.CodeNotFound)
	wantError(e.t, e.send("POST", "/api/v1/monitor/not-a-uuid/approve-extract",
		`{"extracted_sample":{"found":false,"data":[]},"locked_prompt":"x"}`), 404, model.CodeNotFound)
}

func TestExtractEndpointsWithoutModel(t *testing.T) {
	e := newExtractEnv(t, "sqlite", nil, 100)
	site := irSite(t)
	a := e.send("POST", "/api/v1/monitor/register", `{"url":"`+site.URL+`/ir","extract_intent":"the quarters"}`)
	wantError(t, a, 400, model.CodeBadRequest)
	if !strings.Contains(a.Error, "WEBACQ_LLM_PROVIDER") {
		t.Errorf("register with an intent and no model: %q, want the settings named", a.Error)
	}
	// A monitor registered on a node with a model, served by this one.
	lc, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	intent := "the quarters"
	withModel := &monitor.Service{Store: e.store, Queue: e.mon.Queue, HTTP: e.mon.HTTP, LLM: lc}
	m, err := withModel.Register(ctx, &model.Principal{WorkspaceID: e.ws.ID, Monitoring: true},
		monitor.RegisterRequest{URL: site.URL + "/ir", ExtractIntent: &intent})
	if err != nil {
		t.Fatal(err)
	}
	id := m.ID
	x := e.extraction(id, model.ExtractionFailed)
	if x.Preview == nil || !strings.HasPrefix(x.Preview.Error, "unavailable: ") || x.Preview.Data == nil {
		t.Errorf("registration preview without a model: %+v", x.Preview)
	}
	waitRuns(t, e, id, 1)
	balance := e.balance()
	a = e.send("POST", "/api/v1/monitor/"+id+"/preview-extract", `{"refinement":"dates"}`)
	wantError(t, a, 503, model.CodeUnavailable)
	if !strings.Contains(a.Error, "WEBACQ_LLM_PROVIDER") {
		t.Errorf("unavailable without the configure hint: %q", a.Error)
	}
	if got := e.balance(); got != balance {
		t.Errorf("a preview without a model cost %d", balance-got)
	}
	rows := e.usageRows()
	if u := rows[0]; u.Endpoint != monitor.PreviewEndpoint || u.Status != 503 || u.Credits != 0 {
		t.Errorf("usage row %+v, want the preview endpoint, 503, 0 credits", u)
	}
	// A template can still be approved (runs say why they extract nothing).
	a = e.send("POST", "/api/v1/monitor/"+id+"/approve-extract", `{"extracted_sample":{"found":true,"data":[{"quarter":"Q1"}]},"locked_prompt":"List the quarters."}`)
	if a.status != 200 {
		t.Errorf("approve without a model: %d %s", a.status, a.Error)
	}
}
