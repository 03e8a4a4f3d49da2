package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestCursorsReachRowsOfOneMillisecond: monitors registered, and runs
// started, in the same millisecond are all reached by paging with
// next_before, each once.
func TestCursorsReachRowsOfOneMillisecond(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		frozen := time.Date(2026, 11, 25, 12, 0, 0, 123_000_000, time.UTC)
		e := newMonitorEnv(t, dialect, func(m *monitor.Service) { m.Store.Now = func() time.Time { return frozen } })
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<html><body><main><p>Acme results for the quarter</p></main></body></html>`)
		}))
		defer site.Close()
		const n = 60
		for i := range n {
			if a := e.send("POST", "/api/v1/monitor/register", fmt.Sprintf(`{"url":"%s/p%d"}`, site.URL, i)); a.status != 200 {
				t.Fatalf("register %d: %d %s", i, a.status, a.Error)
			}
		}
		var ids []string
		pages(t, e, "/api/v1/monitors?limit=7", func(data json.RawMessage) *string {
			var p struct {
				Monitors []struct {
					ID string `json:"monitor_id"`
				} `json:"monitors"`
				NextBefore *string `json:"next_before"`
			}
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			for _, m := range p.Monitors {
				ids = append(ids, m.ID)
			}
			return p.NextBefore
		})
		if len(ids) != n || len(unique(ids)) != n {
			t.Errorf("paging reached %d monitors (%d distinct), want %d", len(ids), len(unique(ids)), n)
		}

		// Runs of one monitor started in the same millisecond.
		id := ids[0]
		waitRuns(t, e, id, 1)
		err := e.store.InTx(ctx, func(tx store.Tx) error {
			for i := range 41 {
				r := &model.Run{ID: uuid.NewString(), MonitorID: id, WorkspaceID: e.ws.ID, DueAt: frozen.Add(time.Duration(i+1) * time.Hour),
					StartedAt: frozen, FinishedAt: frozen, Outcome: model.OutcomeUnchanged, Channel: model.ChannelIRPage, Tier: model.TierHTTP}
				if err := e.store.InsertRun(ctx, tx, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		pages(t, e, "/api/v1/monitor/"+id+"/runs?limit=5", func(data json.RawMessage) *string {
			var p struct {
				Runs []struct {
					ID string `json:"run_id"`
				} `json:"runs"`
				NextBefore *string `json:"next_before"`
			}
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Runs {
				runs = append(runs, r.ID)
			}
			return p.NextBefore
		})
		if len(runs) != 42 || len(unique(runs)) != 42 {
			t.Errorf("paging reached %d runs (%d distinct), want 42", len(runs), len(unique(runs)))
		}
		// A timestamp alone still works as a cursor (older clients).
		if a := e.get("/api/v1/monitors?before=" + url.QueryEscape(frozen.Add(time.Millisecond).Format(time.RFC3339Nano))); a.status != 200 {
			t.Errorf("timestamp cursor: %d %s", a.status, a.Error)
		}
		if a := e.get("/api/v1/monitors?before=yesterday_x"); a.status != 400 || a.Code != model.CodeBadRequest {
			t.Errorf("bad cursor: %d %s", a.status, a.Code)
		}
	})
}

// pages follows next_before from path until it is null, at most 50 pages.
func pages(t *testing.T, e *env, path string, read func(json.RawMessage) *string) {
	t.Helper()
	next := ""
	for range 50 {
		p := path
		if next != "" {
			p += "&before=" + url.QueryEscape(next)
		}
		a := e.get(p)
		if a.status != 200 {
			t.Fatalf("GET %s: %d %s", p, a.status, a.Error)
		}
		c := read(a.Data)
		if c == nil {
			return
		}
		next = *c
	}
	t.Fatalf("GET %s: more than 50 pages", path)
}

func unique(ids []string) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}
