package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
)

// monitorsPerPage is how many monitors, runs or deliveries a page lists.
const monitorsPerPage = 50

// monitorsOff says why the monitor pages of a workspace cannot work ("":
// they can).
func (c *Console) monitorsOff(rq *request) string {
	if c.Monitors == nil {
		return "Monitors are not available on this node."
	}
	if !rq.ws.Monitoring {
		return "M" + monitor.NotEntitledMessage[1:] + "."
	}
	return ""
}

// cursorOf reads a list's ?before= cursor, "<time>_<id>" as cursorAt
// writes it (a bad one is the start of the list).
func cursorOf(r *http.Request) store.Cursor {
	at, id, _ := strings.Cut(r.URL.Query().Get("before"), "_")
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return store.Cursor{}
	}
	return store.Cursor{At: t, ID: id}
}

// cursorAt is the cursor of the rows after the one at t with id, for a URL.
func cursorAt(t time.Time, id string) string {
	return url.QueryEscape(t.UTC().Format(time.RFC3339Nano) + "_" + id)
}

// registerForm is the register form as typed.
type registerForm struct {
	URL       string
	Label     string
	Keywords  string
	Interval  string
	Intent    string
	Selectors string
	Channels  []string
	CIK       string
	Ticker    string
	Company   string
}

type monitorsData struct {
	Off      string
	Monitors []*model.Monitor
	Older    string
	Form     registerForm
	Channels []string
}

func (c *Console) monitorsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.renderMonitors(w, r, rq, http.StatusOK, registerForm{Interval: strconv.Itoa(monitor.DefaultIntervalHours),
		Channels: []string{model.ChannelIRPage}}, "")
}

func (c *Console) renderMonitors(w http.ResponseWriter, r *http.Request, rq *request, status int, form registerForm, msg string) {
	d := &monitorsData{Off: c.monitorsOff(rq), Form: form, Channels: model.Channels}
	if d.Off == "" {
		ms, err := c.Store.MonitorsAfter(r.Context(), rq.ws.ID, cursorOf(r), monitorsPerPage)
		if err != nil {
			c.fail(w, r, rq, err)
			return
		}
		d.Monitors = ms
		if len(ms) == monitorsPerPage {
			d.Older = rq.base + "/monitors?before=" + cursorAt(ms[len(ms)-1].CreatedAt, ms[len(ms)-1].ID)
		}
	}
	p := rq.page("monitors", "Monitors", d)
	p.Error = msg
	c.render(w, r, status, "monitors", p)
}

// splitList splits a field typed as a list: by line, or by comma when
// commas is set.
func splitList(s string, commas bool) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		parts := []string{line}
		if commas {
			parts = strings.Split(line, ",")
		}
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (c *Console) registerMonitor(w http.ResponseWriter, r *http.Request, rq *request) {
	f := r.PostForm
	form := registerForm{URL: strings.TrimSpace(f.Get("url")), Label: f.Get("label"), Keywords: f.Get("keywords"),
		Interval: strings.TrimSpace(f.Get("interval")), Intent: f.Get("intent"), Selectors: f.Get("selectors"),
		Channels: f["channels"], CIK: f.Get("cik"), Ticker: f.Get("ticker"), Company: f.Get("company")}
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	req := monitor.RegisterRequest{URL: form.URL, DiscoveryKeywords: splitList(form.Keywords, true),
		AcceptSelectors: splitList(form.Selectors, false), Channels: form.Channels}
	if strings.TrimSpace(form.Label) != "" {
		req.Label = &form.Label
	}
	if strings.TrimSpace(form.Intent) != "" {
		req.ExtractIntent = &form.Intent
	}
	if form.Interval != "" {
		h, err := strconv.Atoi(form.Interval)
		if err != nil {
			c.renderMonitors(w, r, rq, http.StatusBadRequest, form, "The check interval is a whole number of hours.")
			return
		}
		req.CheckIntervalHours = &h
	}
	if co := (model.Company{CIK: form.CIK, Ticker: form.Ticker, Name: form.Company}); co != (model.Company{}) {
		req.Company = &co
	}
	m, err := c.Monitors.Register(r.Context(), rq.p, req)
	target := form.URL
	if m != nil {
		target = m.ID
	}
	c.record(w, rq, "/api/v1/monitor/register", http.MethodPost, target, err)
	if err != nil {
		c.renderMonitors(w, r, rq, model.Status(model.ErrorCode(err)), form, c.userMessage(r, err))
		return
	}
	redirect(w, r, rq.base+"/monitors/"+m.ID, "registered")
}

type monitorData struct {
	M          *model.Monitor
	Runs       []*model.Run
	OlderRuns  string
	Deliveries []*model.Delivery
	// Preview is the extraction's latest preview; PreviewAt identifies it
	// in the approve form, so that an approval is of what was shown.
	Preview    *model.ExtractPreview
	PreviewAt  string
	Prompt     string
	Refinement string
	// PreviewError is set when a preview or approval just failed.
	PreviewError string
	Columns      []string
}

func (c *Console) monitorPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.renderMonitor(w, r, rq, http.StatusOK, &monitorData{})
}

func (c *Console) renderMonitor(w http.ResponseWriter, r *http.Request, rq *request, status int, d *monitorData) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	m, err := c.Monitors.Get(r.Context(), rq.p, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	d.M = m
	if d.Runs, err = c.Store.RunsAfter(r.Context(), m.ID, cursorOf(r), monitorsPerPage); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if len(d.Runs) == monitorsPerPage {
		last := d.Runs[len(d.Runs)-1]
		d.OlderRuns = rq.base + "/monitors/" + m.ID + "?before=" + cursorAt(last.StartedAt, last.ID)
	}
	ids := make([]string, len(d.Runs))
	for i, run := range d.Runs {
		ids[i] = run.ID
	}
	hooks, err := c.Store.RunWebhooks(r.Context(), ids)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	for _, run := range d.Runs {
		run.Webhook = hooks[run.ID]
	}
	if d.Deliveries, err = c.Store.Deliveries(r.Context(), m.ID, time.Time{}, 20); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if x := m.Extraction; x != nil && x.Preview != nil {
		d.Preview = x.Preview
		d.PreviewAt = x.Preview.CreatedAt.UTC().Format(time.RFC3339Nano)
		d.Columns = columns(x.Preview.Data)
		if d.Prompt == "" {
			d.Prompt = x.Preview.SuggestedPrompt
			if x.Approved() {
				d.Prompt = x.LockedPrompt
			}
		}
	}
	title := m.Label
	if title == "" {
		title = m.URL
	}
	c.render(w, r, status, "monitor", rq.page("monitors", title, d))
}

// columns are the fields of extracted items, in the order the first item
// names them, then any others sorted.
func columns(items []map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		keys := make([]string, 0, len(it))
		for k := range it {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// monitorAction pauses, resumes or checks a monitor now.
func (c *Console) monitorAction(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	id, action := r.PathValue("id"), path.Base(r.URL.Path)
	var err error
	flash := ""
	switch action {
	case "pause":
		_, err = c.Monitors.Pause(r.Context(), rq.p, id)
		flash = "paused"
	case "resume":
		_, err = c.Monitors.Resume(r.Context(), rq.p, id)
		flash = "resumed"
	case "check":
		_, err = c.Monitors.CheckNow(r.Context(), rq.p, id)
		flash = "checking"
	}
	c.record(w, rq, "/api/v1/monitor/{id}/"+action, http.MethodPost, id, err)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	redirect(w, r, rq.base+"/monitors/"+id, flash)
}

func (c *Console) deleteMonitorPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	m, err := c.Monitors.Get(r.Context(), rq.p, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	c.render(w, r, http.StatusOK, "delete", rq.page("monitors", "Delete monitor", m))
}

func (c *Console) deleteMonitor(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	id := r.PathValue("id")
	err := c.Monitors.Delete(r.Context(), rq.p, id)
	c.record(w, rq, "/api/v1/monitor/{id}", http.MethodDelete, id, err)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	redirect(w, r, rq.base+"/monitors", "deleted")
}

// previewExtract runs a preview now, with the refinement typed, if any
// (billed like the API's: one credit).
func (c *Console) previewExtract(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	id := r.PathValue("id")
	refinement := strings.TrimSpace(r.PostForm.Get("refinement"))
	var req monitor.PreviewRequest
	if refinement != "" {
		req.Refinement = &refinement
	}
	call := c.call(w, rq, monitor.PreviewEndpoint, http.MethodPost, id)
	_, err := c.Monitors.PreviewExtract(r.Context(), c.Biller, call, id, req)
	// A preview refused before billing started has no rows yet.
	status := http.StatusOK
	if err != nil {
		call.ErrorCode = model.ErrorCode(err)
		status = model.Status(call.ErrorCode)
	}
	if ferr := c.Biller.Finish(r.Context(), call, 0, status); ferr != nil {
		c.Log.Error("console: record preview", "workspace_id", rq.ws.ID, "err", ferr)
	}
	if err != nil {
		if model.ErrorCode(err) == model.CodeNotFound {
			c.fail(w, r, rq, err)
			return
		}
		c.renderMonitor(w, r, rq, status, &monitorData{Refinement: refinement, PreviewError: c.userMessage(r, err)})
		return
	}
	redirect(w, r, rq.base+"/monitors/"+id+"#extraction", "previewed")
}

// approveExtract locks the template: the preview shown (its data as the
// sample) and the prompt as edited.
func (c *Console) approveExtract(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	id := r.PathValue("id")
	prompt := r.PostForm.Get("prompt")
	again := func(status int, msg string) {
		c.renderMonitor(w, r, rq, status, &monitorData{Prompt: prompt, PreviewError: msg})
	}
	m, err := c.Monitors.Get(r.Context(), rq.p, id)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	x := m.Extraction
	if x == nil || x.Preview == nil || x.Preview.Error != "" {
		again(http.StatusBadRequest, "There is no successful preview to approve: run a preview first.")
		return
	}
	if r.PostForm.Get("preview_at") != x.Preview.CreatedAt.UTC().Format(time.RFC3339Nano) {
		again(http.StatusConflict, "The preview changed since this page was shown; look at the new one before approving.")
		return
	}
	sample := model.ExtractedFields{Found: x.Preview.Found, Data: x.Preview.Data}
	if sample.Data == nil {
		sample.Data = []map[string]any{}
	}
	sampleJSON, err := json.Marshal(sample)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	promptJSON, err := json.Marshal(prompt)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	err = c.Monitors.ApproveExtract(r.Context(), rq.p, id, monitor.ApproveRequest{ExtractedSample: sampleJSON, LockedPrompt: promptJSON})
	c.record(w, rq, "/api/v1/monitor/{id}/approve-extract", http.MethodPost, id, err)
	if err != nil {
		if code := model.ErrorCode(err); code == model.CodeBadRequest {
			again(http.StatusBadRequest, model.ErrorMessage(err))
			return
		}
		c.fail(w, r, rq, err)
		return
	}
	redirect(w, r, rq.base+"/monitors/"+id+"#extraction", "approved")
}

func (c *Console) redeliver(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	id := r.PathValue("id")
	_, err := c.Monitors.Alerts.Redeliver(r.Context(), rq.p, id, r.PathValue("delivery"))
	c.record(w, rq, "/api/v1/monitor/{id}/deliveries/{delivery_id}/redeliver", http.MethodPost, id, err)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	redirect(w, r, rq.base+"/monitors/"+id+"#deliveries", "redelivering")
}

type runData struct {
	M          *model.Monitor
	Run        *model.Run
	Diff       []diffLine
	Fields     *model.ExtractedFields
	Columns    []string
	Deliveries []*model.Delivery
}

func (c *Console) runPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	m, err := c.Monitors.Get(r.Context(), rq.p, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	run, err := c.Store.Run(r.Context(), m.ID, r.PathValue("run"))
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	d := &runData{M: m, Run: run}
	if run.Diff != nil {
		d.Diff = diffLines(*run.Diff)
	}
	if len(run.ExtractedFields) > 0 {
		var f model.ExtractedFields
		if err := json.Unmarshal(run.ExtractedFields, &f); err == nil {
			d.Fields, d.Columns = &f, columns(f.Data)
		}
	}
	if d.Deliveries, err = c.Store.RunDeliveries(r.Context(), run.ID); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	name := m.Label
	if name == "" {
		name = m.URL
	}
	c.render(w, r, http.StatusOK, "run", rq.page("monitors", fmt.Sprintf("%s · %s run", name, run.Outcome), d))
}

// diffLine is one line of a unified diff, with its kind for the eye.
type diffLine struct {
	Kind string // add, del, hunk, file, same
	Text string
}

func diffLines(diff string) []diffLine {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	out := make([]diffLine, 0, len(lines))
	for _, l := range lines {
		kind := "same"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			kind = "file"
		case strings.HasPrefix(l, "@@"):
			kind = "hunk"
		case strings.HasPrefix(l, "+"):
			kind = "add"
		case strings.HasPrefix(l, "-"):
			kind = "del"
		}
		out = append(out, diffLine{Kind: kind, Text: l})
	}
	return out
}

// cell shows one extracted value: text as it is, anything else as JSON.
func cell(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// channelName is a discovery channel in words.
func channelName(ch string) string {
	switch ch {
	case model.ChannelIRPage:
		return "The page itself"
	case model.ChannelDirectPDF:
		return "A document (PDF) at the URL"
	case model.ChannelEdgar8K:
		return "SEC EDGAR 8-K filings"
	case model.ChannelBusinessWire:
		return "Business Wire releases"
	case model.ChannelGlobeNewswire:
		return "GlobeNewswire releases"
	}
	return ch
}

// checked reports whether v is among the values chosen.
func checked(chosen []string, v string) bool { return slices.Contains(chosen, v) }
