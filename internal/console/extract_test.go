package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/monitor"
)

// modelAnswering serves an OpenAI-compatible model that answers content to
// every request.
func modelAnswering(t *testing.T, content string) llm.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":`+
			jsonString(content)+`}}]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "local-model"}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestExtractionPreviewRefineApprove registers a monitor with an intent in
// the console, previews, refines and approves its extraction.
func TestExtractionPreviewRefineApprove(t *testing.T) {
	e := newEnv(t)
	e.mon.LLM = modelAnswering(t, `{"found":true,"data":[{"quarter":"Q3","date":"<b>2026-11-20</b>"}]}`)
	ann := e.signedIn("ann@example.com")
	tok := ann.token("/console/w/acme/monitors", "/console/w/acme/monitors")
	res, body := ann.post("/console/w/acme/monitors", url.Values{"csrf": {tok}, "url": {e.site.URL + "/ir"},
		"label": {"Acme IR"}, "keywords": {"results"}, "interval": {"6"}, "channels": {"ir_page"},
		"intent": {"the quarter and the date of the results"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("register: %d\n%s", res.StatusCode, body)
	}
	page := res.Header.Get("Location")
	page = page[:strings.Index(page, "?")]
	id := page[strings.LastIndex(page, "/")+1:]
	if _, body := ann.get(page); !strings.Contains(body, "the quarter and the date of the results") || !strings.Contains(body, "pending") {
		t.Fatal("monitor page shows no pending extraction")
	}
	balance := func() int64 {
		w, err := e.st.Workspace(ctx, e.acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		return w.Credits
	}
	before := balance()

	preview := func(refinement string) string {
		t.Helper()
		tok := ann.token(page, page+"/preview")
		res, body := ann.post(page+"/preview", url.Values{"csrf": {tok}, "refinement": {refinement}})
		if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "?ok=previewed#extraction") {
			t.Fatalf("preview: %d to %q\n%s", res.StatusCode, res.Header.Get("Location"), body)
		}
		_, body = ann.get(page)
		return body
	}
	body = preview("")
	if !strings.Contains(body, "<td>Q3</td>") || !strings.Contains(body, "&lt;b&gt;2026-11-20&lt;/b&gt;") {
		t.Fatal("the preview's data is not on the page, escaped")
	}
	if got := balance(); got != before-1 {
		t.Fatalf("balance after a preview = %d, want %d", got, before-1)
	}
	body = preview("give dates in ISO 8601 form")
	if !strings.Contains(body, "<li>give dates in ISO 8601 form</li>") {
		t.Fatal("the refinement is not listed")
	}

	at := regexp.MustCompile(`name="preview_at" value="([^"]+)"`).FindStringSubmatch(body)
	if at == nil {
		t.Fatal("no approve form")
	}
	tok = ann.token(page, page+"/approve")
	if res, _ := ann.post(page+"/approve", url.Values{"csrf": {tok}, "preview_at": {"2020-01-01T00:00:00Z"},
		"prompt": {"extract the quarter"}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("approving a preview not shown: %d", res.StatusCode)
	}
	res, _ = ann.post(page+"/approve", url.Values{"csrf": {tok}, "preview_at": {at[1]}, "prompt": {"Extract the quarter and the ISO date."}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	m, err := e.mon.Get(ctx, &model.Principal{WorkspaceID: e.acme.ID, Monitoring: true}, id)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Extraction.Approved() || m.Extraction.LockedPrompt != "Extract the quarter and the ISO date." ||
		!strings.Contains(string(m.Extraction.ExtractedSample), "Q3") {
		t.Fatalf("extraction after approval = %+v", m.Extraction)
	}
	if _, body := ann.get(page); !strings.Contains(body, "approved") {
		t.Fatal("the page does not say approved")
	}
	usage, err := e.st.Usage(ctx, e.acme.ID, model.LogFilter{Endpoint: monitor.PreviewEndpoint})
	if err != nil || len(usage) != 2 || usage[0].Credits != 1 {
		t.Fatalf("preview usage rows = %+v, %v", usage, err)
	}
}
