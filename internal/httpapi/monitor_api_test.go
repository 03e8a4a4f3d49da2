package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/primitive"
	"webacq/internal/secretbox"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// newMonitorEnv is an API with monitors and a River queue that works them;
// the workspace is entitled to monitoring and has credits.
// newMonitorEnv serves the API with a monitor service on dialect; opts
// configure the service before its workers start.
func newMonitorEnv(t *testing.T, dialect string, opts ...func(*monitor.Service)) *env {
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
	prims := &primitive.Service{HTTP: hc, Pages: s, Log: log, UserAgent: "webacq"}
	api := httpapi.New(cfg, s, b, billed.New(b, prims), log)
	mon := &monitor.Service{Store: s, HTTP: hc, Log: log, Timeout: 10 * time.Second,
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
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	mon.Alerts.Secrets = box
	for _, o := range opts {
		o(mon)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	go mon.ReconcileLoop(rctx, 200*time.Millisecond)
	srv := httptest.NewServer(api)
	t.Cleanup(func() { stop(); srv.Close(); q.Stop(ctx); b.Close() })
	ws, err := s.CreateWorkspace(ctx, "acme", 100, true)
	if err != nil {
		t.Fatal(err)
	}
	key, k, err := s.CreateKey(ctx, ws.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, url: srv.URL, store: s, ws: ws, key: key, prefix: k.Prefix, biller: b, prims: prims, mon: mon}
}

func (e *env) send(method, path, body string) answer {
	e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	return e.do(method, path, r, "Authorization", "Bearer "+e.key, "Content-Type", "application/json")
}

func TestMonitorEndpoints(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newMonitorEnv(t, dialect)
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<html><body><main><h1>News</h1><ul><li><a href="/a">Acme results for Q1</a></li>
				<li><a href="/b">Acme results for Q2</a></li></ul></main></body></html>`)
		}))
		defer page.Close()

		a := e.send("POST", "/api/v1/monitor/register", `{"url":"`+page.URL+`/ir","label":"Acme","discovery_keywords":["results"]}`)
		if a.status != 200 || !a.OK {
			t.Fatalf("register: %d %s %s", a.status, a.Code, a.Error)
		}
		var reg struct {
			MonitorID string `json:"monitor_id"`
			Status    string `json:"status"`
		}
		json.Unmarshal(a.Data, &reg)
		if reg.Status != "active" || len(reg.MonitorID) != 36 {
			t.Fatalf("register answered %s", a.Data)
		}
		id := reg.MonitorID

		if a := e.send("POST", "/api/v1/monitor/register", `{"url":"`+page.URL+`/ir"}`); a.status != 409 || a.Code != "conflict" {
			t.Errorf("duplicate: %d %s", a.status, a.Code)
		}

		// The first run anchors.
		var st struct {
			MonitorID   string  `json:"monitor_id"`
			URL         string  `json:"url"`
			Status      string  `json:"status"`
			LastChecked *string `json:"last_checked"`
			AnchorSet   bool    `json:"anchor_set"`
			LastOutcome string  `json:"last_outcome"`
			TopScore    float64 `json:"top_score"`
			Label       string  `json:"label"`
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			a := e.get("/api/v1/monitor/" + id)
			if a.status != 200 {
				t.Fatalf("status: %d %s", a.status, a.Error)
			}
			json.Unmarshal(a.Data, &st)
			if st.AnchorSet || time.Now().After(deadline) {
				break
			}
			time.Sleep(30 * time.Millisecond)
		}
		if !st.AnchorSet || st.LastOutcome != "anchored" || st.TopScore != 100 || st.LastChecked == nil || st.Label != "Acme" {
			t.Fatalf("status after the first run: %+v", st)
		}
		for range 2 {
			if a := e.send("POST", "/api/v1/monitor/"+id+"/check", ""); a.status != 200 {
				t.Fatalf("check: %d %s", a.status, a.Error)
			}
			waitRuns(t, e, id, 0)
		}
		waitRuns(t, e, id, 3)

		var runs struct {
			Runs       []model.Run `json:"runs"`
			NextBefore *string     `json:"next_before"`
		}
		a = e.get("/api/v1/monitor/" + id + "/runs?limit=2")
		json.Unmarshal(a.Data, &runs)
		if len(runs.Runs) != 2 || runs.NextBefore == nil {
			t.Fatalf("runs page 1: %s", a.Data)
		}
		a = e.get("/api/v1/monitor/" + id + "/runs?limit=2&before=" + *runs.NextBefore)
		var rest struct {
			Runs       []model.Run `json:"runs"`
			NextBefore *string     `json:"next_before"`
		}
		json.Unmarshal(a.Data, &rest)
		if len(rest.Runs) != 1 || rest.NextBefore != nil || rest.Runs[0].Outcome != "anchored" {
			t.Fatalf("runs page 2: %s", a.Data)
		}
		a = e.get("/api/v1/monitor/" + id + "/runs/" + rest.Runs[0].ID)
		var one struct {
			Snapshot *string `json:"snapshot"`
			Outcome  string  `json:"outcome"`
		}
		json.Unmarshal(a.Data, &one)
		if a.status != 200 || one.Snapshot == nil || !strings.Contains(*one.Snapshot, "results for Q2") {
			t.Errorf("one run: %d %s", a.status, a.Data)
		}

		for _, c := range []struct{ method, path, body, code string }{
			{"GET", "/api/v1/monitor/" + id + "/runs?limit=101", "", "bad_request"},
			{"GET", "/api/v1/monitor/" + id + "/runs?limit=x", "", "bad_request"},
			{"GET", "/api/v1/monitor/" + id + "/runs?before=yesterday", "", "bad_request"},
			{"GET", "/api/v1/monitor/00000000-0000-0000-0000-000000000000", "", "not_found"},
			{"GET", "/api/v1/monitor/not-a-uuid", "", "not_found"},
			{"GET", "/api/v1/monitor/" + id + "/runs/nope", "", "not_found"},
			{"POST", "/api/v1/monitor/register", `{"url":`, "bad_request"},
			{"POST", "/api/v1/monitor/register", `{"url":"` + page.URL + `/x","check_interval_hours":1.5}`, "bad_request"},
			{"POST", "/api/v1/monitor/register", `{"url":"` + page.URL + `/x","check_interval_hours":"24"}`, "bad_request"},
			{"POST", "/api/v1/monitor/register", `{"url":"` + page.URL + `/x","colour":"red"}`, "bad_request"},
			{"POST", "/api/v1/monitor/register", `{"url":"http://169.254.169.254/latest"}`, "forbidden_url"},
			{"PATCH", "/api/v1/monitor/" + id, `{"extract_intent":"prices"}`, "bad_request"},
			{"PATCH", "/api/v1/monitor/" + id, `{"check_interval_hours":0}`, "bad_request"},
			{"PUT", "/api/v1/monitor/" + id, `{}`, "bad_request"},
		} {
			a := e.send(c.method, c.path, c.body)
			if a.OK || a.Code != c.code || a.status != model.Status(c.code) && !(c.method == "PUT" && a.status == 405) {
				t.Errorf("%s %s %s: %d %s (%s), want %s", c.method, c.path, c.body, a.status, a.Code, a.Error, c.code)
			}
		}

		if a := e.send("PATCH", "/api/v1/monitor/"+id, `{"label":"Acme IR","check_interval_hours":12}`); a.status != 200 ||
			!strings.Contains(string(a.Data), `"check_interval_hours":12`) {
			t.Errorf("patch: %d %s", a.status, a.Data)
		}
		if a := e.send("POST", "/api/v1/monitor/"+id+"/pause", ""); !strings.Contains(string(a.Data), `"status":"paused"`) {
			t.Errorf("pause: %s", a.Data)
		}
		if a := e.send("POST", "/api/v1/monitor/"+id+"/resume", ""); !strings.Contains(string(a.Data), `"status":"active"`) {
			t.Errorf("resume: %s", a.Data)
		}
		a = e.get("/api/v1/monitors")
		if !strings.Contains(string(a.Data), id) {
			t.Errorf("list: %s", a.Data)
		}
		if a := e.send("DELETE", "/api/v1/monitor/"+id, ""); a.status != 200 || string(a.Data) != `{"deleted":true}` {
			t.Errorf("delete: %d %s", a.status, a.Data)
		}
		if a := e.get("/api/v1/monitor/" + id); a.code() != "not_found" {
			t.Errorf("after delete: %d %s", a.status, a.Code)
		}

		// A workspace without monitoring is forbidden.
		if err := e.store.SetMonitoring(ctx, e.ws.ID, false); err != nil {
			t.Fatal(err)
		}
		if a := e.send("POST", "/api/v1/monitor/register", `{"url":"`+page.URL+`/y"}`); a.status != 403 || a.Code != "forbidden" {
			t.Errorf("not entitled: %d %s", a.status, a.Code)
		}
	})
}

func (a answer) code() string { return a.Code }

// waitRuns waits until the monitor has at least n runs (n 0: until no check
// is queued now, i.e. the last check-now ran).
func waitRuns(t *testing.T, e *env, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		rs, err := e.store.Runs(ctx, id, time.Time{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.store.MonitorByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 && len(rs) >= n || n == 0 && len(rs) > 0 && m.NextCheckAt.After(time.Now().Add(time.Minute)) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("monitor %s: runs did not arrive", id)
}

func TestWebhookConfig(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newMonitorEnv(t, dialect)
		a := e.get("/api/v1/monitor/webhook")
		if a.status != 200 || string(a.Data) != `{"webhook_url":null,"secret_set":false}` {
			t.Fatalf("empty config: %d %s", a.status, a.Data)
		}
		a = e.send("POST", "/api/v1/monitor/webhook", `{"webhook_url":"http://127.0.0.1:9/hook","webhook_secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}`)
		if a.status != 200 || string(a.Data) != `{"webhook_url":"http://127.0.0.1:9/hook","secret_set":true}` {
			t.Fatalf("set: %d %s %s", a.status, a.Data, a.Error)
		}
		c, err := e.store.Webhook(ctx, e.ws.ID)
		if err != nil || c.SealedSecret == "" || strings.Contains(c.SealedSecret, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") {
			t.Fatalf("stored secret is not sealed: %+v %v", c, err)
		}
		// The secret is never returned.
		if a := e.get("/api/v1/monitor/webhook"); strings.Contains(string(a.Data), "whsec") || !strings.Contains(string(a.Data), `"secret_set":true`) {
			t.Errorf("get: %s", a.Data)
		}
		// Changing the URL alone keeps the secret.
		if a := e.send("POST", "/api/v1/monitor/webhook", `{"webhook_url":"https://hooks.example.com/x"}`); a.status != 200 ||
			!strings.Contains(string(a.Data), `"secret_set":true`) {
			t.Errorf("url only: %d %s %s", a.status, a.Data, a.Error)
		}
		for _, c := range []struct{ body, code string }{
			{`{"webhook_url":"ftp://x/"}`, "bad_request"},
			{`{"webhook_url":42}`, "bad_request"},
			{`{"webhook_url":"http://10.0.0.8/hook"}`, "forbidden_url"},
			{`{"webhook_url":"http://169.254.169.254/latest"}`, "forbidden_url"},
			{`{"webhook_secret":"short"}`, "bad_request"},
			{`{"webhook_secret":["x"]}`, "bad_request"},
			{`{"colour":"red"}`, "bad_request"},
			{`{"webhook_url":`, "bad_request"},
		} {
			if a := e.send("POST", "/api/v1/monitor/webhook", c.body); a.Code != c.code || a.status != model.Status(c.code) {
				t.Errorf("%s: %d %s (%s), want %s", c.body, a.status, a.Code, a.Error, c.code)
			}
		}
		// null clears the whole configuration.
		if a := e.send("POST", "/api/v1/monitor/webhook", `{"webhook_url":null}`); string(a.Data) != `{"webhook_url":null,"secret_set":false}` {
			t.Errorf("clear: %s", a.Data)
		}
		if c, _ := e.store.Webhook(ctx, e.ws.ID); c != (store.WebhookConfig{}) {
			t.Errorf("cleared config still stored: %+v", c)
		}
	})
}
