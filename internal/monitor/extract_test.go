package monitor_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/billing"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// modelServer is a local OpenAI-compatible model server: reply decides
// each answer from the request's user message, and every request's system
// and user messages are kept.
type modelServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	reply func(user string) (status int, content string)
	calls []chatCall
}

type chatCall struct{ system, user string }

func newModelServer(t *testing.T) *modelServer {
	t.Helper()
	s := &modelServer{}
	s.answer(http.StatusOK, `{"found":false,"data":[]}`)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("model server got %s", r.URL.Path)
		}
		var body struct {
			Messages []struct{ Role, Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("model request is not JSON: %v", err)
		}
		var c chatCall
		for _, m := range body.Messages {
			switch m.Role {
			case "system":
				c.system = m.Content
			case "user":
				c.user = m.Content
			}
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		reply := s.reply
		s.mu.Unlock()
		status, content := reply(c.user)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			io.WriteString(w, `{"error":{"message":"the model crashed"}}`)
			return
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}}})
		w.Write(out)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// answer makes every later request answer status and content.
func (s *modelServer) answer(status int, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = func(string) (int, string) { return status, content }
}

func (s *modelServer) requests() []chatCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatCall(nil), s.calls...)
}

func (s *modelServer) client(t *testing.T) llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: s.srv.URL + "/v1", Model: "local-model"}, s.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitExtraction waits until the monitor's extraction has status.
func (e *env) waitExtraction(t *testing.T, id, status string) *model.Extraction {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, err := e.svc.Get(context.Background(), e.p, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Extraction != nil && m.Extraction.Status == status {
			return m.Extraction
		}
		if time.Now().After(deadline) {
			t.Fatalf("extraction of %s after 20 s: %+v, want %s", id, m.Extraction, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// previewer makes billed previews the way the API does.
type previewer struct {
	b *billing.Biller
	e *env
}

func newPreviewer(t *testing.T, e *env) *previewer {
	b := billing.New(e.st, slog.New(slog.DiscardHandler))
	t.Cleanup(b.Close)
	return &previewer{b: b, e: e}
}

func (pv *previewer) preview(p *model.Principal, id string, refinement *string) (*monitor.PreviewResult, error) {
	call := &billing.Call{Principal: p, Endpoint: monitor.PreviewEndpoint, Via: model.ViaHTTP, Method: http.MethodPost,
		Target: id, RequestID: "test-" + id, Started: time.Now()}
	res, err := pv.e.svc.PreviewExtract(context.Background(), pv.b, call, id, monitor.PreviewRequest{Refinement: refinement})
	if err != nil {
		// As the API's middleware does for a call that failed before billing.
		call.ErrorCode = model.ErrorCode(err)
		pv.b.Finish(context.Background(), call, 0, model.Status(call.ErrorCode))
	}
	return res, err
}

func (e *env) balance(t *testing.T, workspaceID string) int64 {
	t.Helper()
	n, err := e.st.Balance(context.Background(), workspaceID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// deliveryOf waits for the delivered webhook of a run and returns its payload.
func (e *env) deliveryOf(t *testing.T, monitorID, runID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ds, err := e.st.Deliveries(context.Background(), monitorID, time.Time{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.RunID == runID && d.Status == model.DeliveryDelivered {
				var p map[string]any
				if err := json.Unmarshal(d.Payload, &p); err != nil {
					t.Fatal(err)
				}
				return p
			}
		}
		if time.Now().After(deadline) {
			for _, d := range ds {
				t.Logf("delivery %+v", *d)
			}
			t.Fatalf("no delivered webhook of run %s after 20 s", runID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fieldsOf(t *testing.T, raw json.RawMessage) model.ExtractedFields {
	t.Helper()
	var f model.ExtractedFields
	if err := json.Unmarshal(raw, &f); err != nil || f.Data == nil {
		t.Fatalf("extracted_fields %s: %v, want {found, data:[…]}", raw, err)
	}
	return f
}

const releasesIntent = "the quarter and the date of each results press release"

// addRelease puts a new results release at the top of the watched list.
func addRelease(site *site, path, list, item string) string {
	list = strings.Replace(list, `<ul class="releases">`, `<ul class="releases">`+"\n<li>"+item+"</li>", 1)
	site.set(path, press("Nov 23, 2026", list, "1,377"))
	return list
}

// TestExtractionLoop walks the approval loop of spec 3.3 against a real
// model server: the preview of the registration, two refinements, the
// approval, then changed runs that extract with the locked template, and
// a model that fails without keeping the alert from going out.
func TestExtractionLoop(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		ms := newModelServer(t)
		e.svc.LLM = ms.client(t)
		rcv := &receiver{}
		hook := httptest.NewServer(rcv)
		defer hook.Close()
		withWebhook(t, e, hook.URL+"/in", "extraction-loop-secret-0123456789")
		pv := newPreviewer(t, e)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1,204"))

		first := `{"found":true,"data":[{"quarter":"Q1","date":"May 1, 2026"},{"quarter":"Q2","date":"Aug 1, 2026"}]}`
		ms.answer(http.StatusOK, first)
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"},
			ExtractIntent: ptr(releasesIntent)})

		// The registration's preview: the intent over the scoped list only.
		x := e.waitExtraction(t, id, model.ExtractionReady)
		if !x.Preview.Found || len(x.Preview.Data) != 2 || x.Preview.Data[0]["quarter"] != "Q1" ||
			x.Preview.SuggestedPrompt != llm.Instruction(releasesIntent, "", nil) || x.Preview.Model != "local-model" ||
			!strings.Contains(x.Preview.ScopeExcerpt, "first quarter results") || len(x.Refinements) != 0 {
			t.Errorf("registration preview %+v", x.Preview)
		}
		calls := ms.requests()
		if len(calls) != 1 {
			t.Fatalf("%d model calls after registration, want 1", len(calls))
		}
		scopedOnly(t, calls[0].user, releasesIntent)
		e.runs(t, id, 1) // the anchoring run

		// A refinement: the model reads the intent and the refinement.
		r1 := "give dates in ISO 8601 form"
		ms.answer(http.StatusOK, `{"found":true,"data":[{"quarter":"Q1","date":"2026-05-01"},{"quarter":"Q2","date":"2026-08-01"}]}`)
		res, err := pv.preview(e.p, id, ptr(r1))
		if err != nil {
			t.Fatal(err)
		}
		if res.MonitorID != id || res.Intent != releasesIntent || !reflect.DeepEqual(res.Refinements, []string{r1}) ||
			res.SuggestedPrompt != llm.Instruction(releasesIntent, "", []string{r1}) || !res.Preview.Found ||
			len(res.Preview.Data) != 2 || res.Preview.Data[1]["date"] != "2026-08-01" ||
			!strings.Contains(res.ScopeExcerpt, "second quarter results") || strings.Contains(res.ScopeExcerpt, "Privacy") {
			t.Errorf("preview with a refinement: %+v", res)
		}
		calls = ms.requests()
		scopedOnly(t, calls[len(calls)-1].user, releasesIntent, r1)

		// A model that fails: nothing billed, the refinement not kept.
		ms.answer(http.StatusInternalServerError, "")
		before := e.balance(t, e.ws.ID)
		if _, err := pv.preview(e.p, id, ptr("this one is lost")); model.ErrorCode(err) != model.CodeUnavailable {
			t.Errorf("preview with the model down: %v, want unavailable", err)
		}
		if after := e.balance(t, e.ws.ID); after != before {
			t.Errorf("a failed preview cost %d credits", before-after)
		}

		// A second refinement accumulates.
		r2 := "leave out releases that are not about results"
		ms.answer(http.StatusOK, `{"found":true,"data":[{"quarter":"Q1","date":"2026-05-01"},{"quarter":"Q2","date":"2026-08-01"}]}`)
		res, err = pv.preview(e.p, id, ptr(r2))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Refinements, []string{r1, r2}) || res.SuggestedPrompt != llm.Instruction(releasesIntent, "", []string{r1, r2}) {
			t.Errorf("second refinement: refinements %q, prompt %q", res.Refinements, res.SuggestedPrompt)
		}
		calls = ms.requests()
		scopedOnly(t, calls[len(calls)-1].user, releasesIntent, r1, r2)
		x = e.waitExtraction(t, id, model.ExtractionReady)
		if !reflect.DeepEqual(x.Refinements, []string{r1, r2}) || x.Preview.SuggestedPrompt != res.SuggestedPrompt {
			t.Errorf("stored extraction %+v", x)
		}

		// Approve a prompt of the user's own wording.
		locked := res.SuggestedPrompt + "\nName the quarter as Q1 to Q4."
		sample := json.RawMessage(`{"found":true,"data":[{"quarter":"Q1","date":"2026-05-01"},{"quarter":"Q2","date":"2026-08-01"}]}`)
		lockedJSON, _ := json.Marshal(locked)
		if err := e.svc.ApproveExtract(ctx, e.p, id, monitor.ApproveRequest{ExtractedSample: sample, LockedPrompt: lockedJSON}); err != nil {
			t.Fatal(err)
		}
		x = e.waitExtraction(t, id, model.ExtractionApproved)
		if x.LockedPrompt != locked || x.ApprovedAt == nil || !sameJSON(x.ExtractedSample, sample) {
			t.Errorf("approved extraction %+v", x)
		}

		// A changed run extracts with the locked template.
		answer := `{"found":true,"data":[{"quarter":"Q3","date":"2026-11-20"}]}`
		ms.answer(http.StatusOK, answer)
		nCalls := len(ms.requests())
		list := addRelease(site, "/ir", releasesList, `<a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 20, 2026</span>`)
		r := e.check(t, id)
		if r.Outcome != model.OutcomeChanged {
			t.Fatalf("new release: %s (%s), want changed", r.Outcome, r.Error)
		}
		if f := fieldsOf(t, r.ExtractedFields); !f.Found || f.Error != "" || len(f.Data) != 1 || f.Data[0]["quarter"] != "Q3" ||
			f.Data[0]["date"] != "2026-11-20" {
			t.Errorf("extracted_fields %s, want the model's answer", r.ExtractedFields)
		}
		if r.Credits != billing.FetchHTTP+billing.ExtractHTTP {
			t.Errorf("changed run with a template billed %d, want %d", r.Credits, billing.FetchHTTP+billing.ExtractHTTP)
		}
		calls = ms.requests()
		if len(calls) != nCalls+1 {
			t.Fatalf("%d model calls for the changed run, want 1", len(calls)-nCalls)
		}
		run := calls[len(calls)-1]
		if !strings.Contains(run.user, "Task:\n"+locked+"\n") || !strings.Contains(run.user, "third quarter results") ||
			strings.Contains(run.user, "Privacy") || strings.Contains(run.user, "visitors") {
			t.Errorf("the run's model call lacks the locked prompt or reads beyond the region:\n%s", run.user)
		}
		if !strings.Contains(run.system, "approved example") || !strings.Contains(run.system, `{"date":"2026-05-01","quarter":"Q1"}`) {
			t.Errorf("the run's model call lacks the approved sample's structure:\n%s", run.system)
		}
		p := e.deliveryOf(t, id, r.ID)
		if got, _ := json.Marshal(p["extracted_fields"]); string(got) != `{"data":[{"date":"2026-11-20","quarter":"Q3"}],"found":true}` {
			t.Errorf("webhook extracted_fields %s", got)
		}
		if p["outcome"] != model.OutcomeChanged {
			t.Errorf("webhook outcome %v", p["outcome"])
		}

		// A model that fails (HTTP 500, then an answer that is not JSON):
		// the run alerts with the error and only its fetch is billed.
		for i, c := range []struct {
			status  int
			content string
			item    string
		}{
			{http.StatusInternalServerError, "", `<a href="/pr/q4.html">Acme reports fourth quarter results</a>`},
			{http.StatusOK, "the releases are listed above, I think", `<a href="/pr/y.html">Acme reports full year results</a>`},
		} {
			ms.answer(c.status, c.content)
			list = addRelease(site, "/ir", list, c.item)
			r := e.check(t, id)
			if r.Outcome != model.OutcomeChanged || r.Credits != billing.FetchHTTP {
				t.Fatalf("failure %d: %s credits %d (%s), want changed billed %d", i, r.Outcome, r.Credits, r.Error, billing.FetchHTTP)
			}
			f := fieldsOf(t, r.ExtractedFields)
			if f.Found || len(f.Data) != 0 || !strings.HasPrefix(f.Error, model.CodeUnavailable+": ") {
				t.Errorf("failure %d: extracted_fields %s, want found false, no data, an unavailable error", i, r.ExtractedFields)
			}
			p := e.deliveryOf(t, id, r.ID)
			ef, _ := p["extracted_fields"].(map[string]any)
			if ef == nil || ef["found"] != false || ef["error"] != f.Error {
				t.Errorf("failure %d: webhook extracted_fields %v", i, p["extracted_fields"])
			}
		}

		// The bill: every run's credits and the three previews that worked.
		var spent int64
		for _, r := range e.runs(t, id, 0) {
			spent += r.Credits
		}
		if got, want := e.balance(t, e.ws.ID), 1000-spent-3*billing.Preview; got != want {
			t.Errorf("balance %d, want %d (runs %d, three previews)", got, want, spent)
		}
	})
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// scopedOnly checks that a model prompt holds the intent, the refinements
// and the watched list, and nothing of the navigation or the footer.
func scopedOnly(t *testing.T, user, intent string, refinements ...string) {
	t.Helper()
	if !strings.Contains(user, "Find: "+intent) {
		t.Errorf("the model did not receive the intent:\n%s", user)
	}
	for _, r := range refinements {
		if !strings.Contains(user, "- "+r) {
			t.Errorf("the model did not receive the refinement %q:\n%s", r, user)
		}
	}
	if !strings.Contains(user, "first quarter results") || !strings.Contains(user, "second quarter results") {
		t.Errorf("the model did not receive the watched list:\n%s", user)
	}
	for _, out := range []string{"Privacy", "visitors", "About", "Updated"} {
		if strings.Contains(user, out) {
			t.Errorf("the model received %q from outside the scoped region:\n%s", out, user)
		}
	}
}

// TestExtractionWithoutModelOrCredits: no model makes previews fail
// unbilled, and a locked template's runs alert with the error; a
// workspace without credits gets no model call; other workspaces see
// nothing.
func TestExtractionWithoutModelOrCredits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		pv := newPreviewer(t, e)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
		site.set("/poor", press("Nov 1, 2026", releasesList, "1"))

		// No model configured: registering with an intent is refused, naming
		// the settings.
		req := monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"},
			ExtractIntent: ptr(releasesIntent)}
		if _, err := e.svc.Register(ctx, e.p, req); model.ErrorCode(err) != model.CodeBadRequest ||
			!strings.Contains(model.ErrorMessage(err), "WEBACQ_LLM_PROVIDER") {
			t.Fatalf("register with an intent and no model: %v, want bad_request naming WEBACQ_LLM_PROVIDER", err)
		}
		// A monitor registered on a node with a model, checked on this one.
		withModel := &monitor.Service{Store: e.st, Queue: e.svc.Queue, HTTP: e.svc.HTTP, LLM: newModelServer(t).client(t)}
		m, err := withModel.Register(ctx, e.p, req)
		if err != nil {
			t.Fatal(err)
		}
		id := m.ID
		x := e.waitExtraction(t, id, model.ExtractionFailed)
		if !strings.HasPrefix(x.Preview.Error, model.CodeUnavailable+": ") || !strings.Contains(x.Preview.Error, "WEBACQ_LLM_PROVIDER") {
			t.Errorf("preview without a model: %+v", x.Preview)
		}
		e.runs(t, id, 1)
		before := e.balance(t, e.ws.ID)
		if _, err := pv.preview(e.p, id, nil); model.ErrorCode(err) != model.CodeUnavailable ||
			!strings.Contains(model.ErrorMessage(err), "WEBACQ_LLM_PROVIDER") {
			t.Errorf("preview-extract without a model: %v, want unavailable with the configure hint", err)
		}
		if got := e.balance(t, e.ws.ID); got != before {
			t.Errorf("previews without a model cost %d", before-got)
		}
		// A template approved all the same: changed runs say why they have
		// no fields, and cost their fetch.
		if err := e.svc.ApproveExtract(ctx, e.p, id, monitor.ApproveRequest{
			ExtractedSample: json.RawMessage(`{"found":true,"data":[{"quarter":"Q1"}]}`), LockedPrompt: json.RawMessage(`"List the quarters."`)}); err != nil {
			t.Fatal(err)
		}
		addRelease(site, "/ir", releasesList, `<a href="/pr/q3.html">Acme reports third quarter results</a>`)
		r := e.check(t, id)
		if f := fieldsOf(t, r.ExtractedFields); r.Outcome != model.OutcomeChanged || r.Credits != 1 ||
			!strings.HasPrefix(f.Error, model.CodeUnavailable+": ") {
			t.Errorf("changed run without a model: %s credits %d fields %s", r.Outcome, r.Credits, r.ExtractedFields)
		}

		// A model, and a workspace that can pay the fetch but not the
		// extraction: the run is changed, billed its fetch, and says so.
		ms := newModelServer(t)
		e.svc.LLM = ms.client(t)
		if _, err := e.st.AddCredits(ctx, e.ws.ID, 4-e.balance(t, e.ws.ID)); err != nil {
			t.Fatal(err)
		}
		addRelease(site, "/ir", releasesList, `<a href="/pr/q4.html">Acme reports fourth quarter results</a>`)
		r = e.check(t, id)
		if f := fieldsOf(t, r.ExtractedFields); r.Outcome != model.OutcomeChanged || r.Credits != 1 ||
			!strings.HasPrefix(f.Error, model.CodeCreditsExhausted+": ") || f.Found {
			t.Errorf("run that cannot pay its extraction: %s credits %d fields %s", r.Outcome, r.Credits, r.ExtractedFields)
		}
		if n := len(ms.requests()); n != 0 {
			t.Errorf("%d model calls for an extraction nobody could pay", n)
		}
		if got := e.balance(t, e.ws.ID); got != 3 {
			t.Errorf("balance %d after the run, want 3", got)
		}

		// The balance drops while the model works (another run drew it):
		// the run's transaction cannot draw fetch and extraction, so it
		// keeps the fetch and says the extraction was not paid.
		if _, err := e.st.AddCredits(ctx, e.ws.ID, 100); err != nil {
			t.Fatal(err)
		}
		ms.mu.Lock()
		ms.reply = func(string) (int, string) {
			if _, err := e.st.AddCredits(ctx, e.ws.ID, 4-e.balance(t, e.ws.ID)); err != nil {
				t.Error(err)
			}
			return http.StatusOK, `{"found":true,"data":[{"quarter":"Q1"}]}`
		}
		ms.mu.Unlock()
		addRelease(site, "/ir", releasesList, `<a href="/pr/y.html">Acme reports full year results</a>`)
		r = e.check(t, id)
		if f := fieldsOf(t, r.ExtractedFields); r.Outcome != model.OutcomeChanged || r.Credits != 1 ||
			!strings.HasPrefix(f.Error, model.CodeCreditsExhausted+": ") || f.Found || len(f.Data) != 0 {
			t.Errorf("run whose extraction could no longer be paid: %s credits %d fields %s", r.Outcome, r.Credits, r.ExtractedFields)
		}
		if n := len(ms.requests()); n != 1 {
			t.Errorf("%d model calls, want 1", n)
		}
		if got := e.balance(t, e.ws.ID); got != 3 {
			t.Errorf("balance %d after the run, want 3", got)
		}

		// A workspace without credits: the registration's preview records
		// credits_exhausted without calling the model; so does the endpoint.
		poor, err := e.st.CreateWorkspace(ctx, "poor", 0, true)
		if err != nil {
			t.Fatal(err)
		}
		pp := &model.Principal{WorkspaceID: poor.ID, Monitoring: true}
		m, err = withModel.Register(ctx, pp, monitor.RegisterRequest{URL: site.url("/poor"), ExtractIntent: ptr(releasesIntent)})
		if err != nil {
			t.Fatal(err)
		}
		x = waitExtractionOf(t, e, pp, m.ID, model.ExtractionFailed)
		if !strings.HasPrefix(x.Preview.Error, model.CodeCreditsExhausted+": ") {
			t.Errorf("preview of a workspace without credits: %+v", x.Preview)
		}
		if _, err := pv.preview(pp, m.ID, ptr("dates in ISO form")); model.ErrorCode(err) != model.CodeCreditsExhausted {
			t.Errorf("preview-extract without credits: %v, want credits_exhausted", err)
		}
		if n := len(ms.requests()); n != 1 {
			t.Errorf("%d model calls for previews nobody could pay", n-1)
		}
		if got, _ := e.svc.Get(ctx, pp, m.ID); len(got.Extraction.Refinements) != 0 {
			t.Errorf("an unpaid preview kept its refinement: %q", got.Extraction.Refinements)
		}

		// Another workspace's monitor is not found by either endpoint.
		if _, err := pv.preview(pp, id, nil); model.ErrorCode(err) != model.CodeNotFound {
			t.Errorf("preview of another workspace's monitor: %v, want not_found", err)
		}
		err = e.svc.ApproveExtract(ctx, pp, id, monitor.ApproveRequest{ExtractedSample: json.RawMessage(`{"found":false,"data":[]}`),
			LockedPrompt: json.RawMessage(`"x"`)})
		if model.ErrorCode(err) != model.CodeNotFound {
			t.Errorf("approval of another workspace's monitor: %v, want not_found", err)
		}
		// A monitor without an intent has nothing to preview.
		plain := e.register(t, monitor.RegisterRequest{URL: site.url("/poor")})
		if _, err := pv.preview(e.p, plain, nil); model.ErrorCode(err) != model.CodeBadRequest ||
			!strings.Contains(model.ErrorMessage(err), "extract_intent") {
			t.Errorf("preview of a monitor without intent: %v, want bad_request naming extract_intent", err)
		}
	})
}

func waitExtractionOf(t *testing.T, e *env, p *model.Principal, id, status string) *model.Extraction {
	t.Helper()
	saved := e.p
	e.p = p
	defer func() { e.p = saved }()
	return e.waitExtraction(t, id, status)
}

// TestRegistrationPreviewRetriesOnceBilled: a model that fails for a while
// is retried and the preview billed once; a job run again after the
// preview is recorded does nothing; a model that keeps failing ends in a
// recorded, unbilled failure.
func TestRegistrationPreviewRetriesOnceBilled(t *testing.T) {
	monitor.SetPreviewBackoff(t, []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond})
	ctx := context.Background()
	e := newEnv(t, store.SQLite)
	ms := newModelServer(t)
	e.svc.LLM = ms.client(t)
	site := newSite(t)
	site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
	site.set("/down", press("Nov 1, 2026", releasesList, "1"))
	var mu sync.Mutex
	failures := map[string]int{"flaky": 1, "broken": 100}
	ms.mu.Lock()
	ms.reply = func(user string) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		for k, n := range failures {
			if strings.Contains(user, k) && n > 0 {
				failures[k]--
				return http.StatusInternalServerError, ""
			}
		}
		return http.StatusOK, `{"found":true,"data":[{"quarter":"Q1"}]}`
	}
	ms.mu.Unlock()

	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), ExtractIntent: ptr("flaky: the quarters")})
	x := e.waitExtraction(t, id, model.ExtractionReady)
	if len(x.Preview.Data) != 1 || len(ms.requests()) != 2 {
		t.Fatalf("preview %+v after %d model calls, want one retry", x.Preview, len(ms.requests()))
	}
	// The job once more, as after a crash between its commit and River's
	// completion: nothing is called or billed again.
	if err := e.svc.Queue.Insert(ctx, monitor.PreviewArgs{MonitorID: id}, nil); err != nil {
		t.Fatal(err)
	}
	waitJobs(t, e.st, "monitor_extract_preview", 2)
	if n := len(ms.requests()); n != 2 {
		t.Errorf("%d model calls after the job ran again, want 2", n)
	}
	if got := previewCredits(t, e.st, e.ws.ID); got != 1 {
		t.Errorf("previews billed %d credits, want 1", got)
	}

	down := e.register(t, monitor.RegisterRequest{URL: site.url("/down"), ExtractIntent: ptr("broken: the quarters")})
	x = e.waitExtraction(t, down, model.ExtractionFailed)
	if !strings.HasPrefix(x.Preview.Error, model.CodeUnavailable+": ") || !strings.Contains(x.Preview.Error, "HTTP 500") {
		t.Errorf("preview with a broken model: %+v", x.Preview)
	}
	if n := len(ms.requests()); n != 2+4 {
		t.Errorf("%d model calls for the broken preview, want 4 attempts", n-2)
	}
	if got := previewCredits(t, e.st, e.ws.ID); got != 1 {
		t.Errorf("previews billed %d credits after a failed one, want 1", got)
	}
}

// waitJobs waits until n jobs of kind are completed.
func waitJobs(t *testing.T, st *store.Store, kind string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got int
		err := st.InTx(context.Background(), func(tx store.Tx) error {
			return tx.QueryRow(context.Background(), `SELECT COUNT(*) FROM river_job WHERE kind = $1 AND state = 'completed'`,
				kind).Scan(&got)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %s jobs completed after 20 s, want %d", got, kind, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// previewCredits sums the usage rows of previews.
func previewCredits(t *testing.T, st *store.Store, workspaceID string) int64 {
	t.Helper()
	var n int64
	err := st.InTx(context.Background(), func(tx store.Tx) error {
		return tx.QueryRow(context.Background(), `SELECT COALESCE(SUM(credits), 0) FROM usage_log WHERE workspace_id = $1
			AND endpoint = $2`, workspaceID, monitor.PreviewEndpoint).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
