package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store/storetest"
)

// TestNotEntitledNamesTheCommand: the 403 of a workspace without
// monitoring names the command that grants it to an existing workspace.
func TestNotEntitledNamesTheCommand(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newMonitorEnv(t, dialect)
		if err := e.store.SetMonitoring(ctx, e.ws.ID, false); err != nil {
			t.Fatal(err)
		}
		a := e.send("POST", "/api/v1/monitor/register", `{"url":"http://127.0.0.1:1/"}`)
		wantError(t, a, 403, model.CodeForbidden)
		if !strings.Contains(a.Error, "webacq workspace update NAME --monitoring") {
			t.Errorf("403 says %q, want the workspace update command", a.Error)
		}
	})
}

// TestCheckNowAnswers: POST …/check answers rate_limited with Retry-After
// within the per-monitor interval, and credits_exhausted (402) to a
// workspace that cannot pay, without a run.
func TestCheckNowAnswers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newMonitorEnv(t, dialect, func(m *monitor.Service) { m.CheckNowInterval = time.Minute })
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<html><body><main><p>Acme results for the quarter</p></main></body></html>`)
		}))
		defer site.Close()
		a := e.send("POST", "/api/v1/monitor/register", `{"url":"`+site.URL+`/ir"}`)
		var reg struct {
			ID string `json:"monitor_id"`
		}
		if err := json.Unmarshal(a.Data, &reg); err != nil || a.status != 200 {
			t.Fatalf("register: %d %s", a.status, a.Error)
		}
		waitRuns(t, e, reg.ID, 1)
		if a := e.send("POST", "/api/v1/monitor/"+reg.ID+"/check", ""); a.status != 200 {
			t.Fatalf("first check-now: %d %s", a.status, a.Error)
		}
		a = e.send("POST", "/api/v1/monitor/"+reg.ID+"/check", "")
		wantError(t, a, 429, model.CodeRateLimited)
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
			t.Errorf("Retry-After %q, want 1–60 seconds", a.header.Get("Retry-After"))
		}

		waitRuns(t, e, reg.ID, 2)
		a = e.send("POST", "/api/v1/monitor/register", `{"url":"`+site.URL+`/other"}`)
		if err := json.Unmarshal(a.Data, &reg); err != nil || a.status != 200 {
			t.Fatalf("register: %d %s", a.status, a.Error)
		}
		waitRuns(t, e, reg.ID, 1)
		if _, err := e.store.SetCredits(ctx, e.ws.ID, 0); err != nil {
			t.Fatal(err)
		}
		wantError(t, e.send("POST", "/api/v1/monitor/"+reg.ID+"/check", ""), 402, model.CodeCreditsExhausted)
		if rs, err := e.store.Runs(ctx, reg.ID, time.Time{}, 10); err != nil || len(rs) != 1 {
			t.Errorf("runs after a refused check-now: %d, %v; want the first only", len(rs), err)
		}
	})
}
