package httpapi_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestLogCursorsReachRowsOfOneMillisecond: usage and activity rows written
// in the same millisecond are all reached by paging with next_before, each
// once (a cursor of time alone skipped the rest of a millisecond).
func TestLogCursorsReachRowsOfOneMillisecond(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		at := time.Date(2026, 11, 25, 12, 0, 0, 123_000_000, time.UTC)
		const n = 45
		recs := make([]store.Record, n)
		for i := range recs {
			u := model.Usage{WorkspaceID: e.ws.ID, Endpoint: "/api/v1/same-ms", Tier: model.TierNone, Status: 200,
				RequestID: "r" + strconv.Itoa(i), CreatedAt: at}
			a := model.Activity{WorkspaceID: e.ws.ID, Endpoint: "/api/v1/same-ms", Via: model.ViaHTTP, Method: "GET",
				Status: 200, RequestID: u.RequestID, CreatedAt: at}
			recs[i] = store.Record{Usage: u, Activity: a}
		}
		if err := e.store.WriteRecords(ctx, recs); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"usage", "activity"} {
			seen := map[int64]bool{}
			rows := 0
			pages(t, e, "/api/v1/"+kind+"?endpoint=/api/v1/same-ms&limit=7", func(data json.RawMessage) *string {
				var p struct {
					Usage      []model.Usage    `json:"usage"`
					Activity   []model.Activity `json:"activity"`
					NextBefore *string          `json:"next_before"`
				}
				if err := json.Unmarshal(data, &p); err != nil {
					t.Fatal(err)
				}
				for _, u := range p.Usage {
					seen[u.ID], rows = true, rows+1
				}
				for _, a := range p.Activity {
					seen[a.ID], rows = true, rows+1
				}
				return p.NextBefore
			})
			if rows != n || len(seen) != n {
				t.Errorf("%s: paging reached %d rows (%d distinct), want %d", kind, rows, len(seen), n)
			}
		}
		if a := e.get("/api/v1/usage?before=2026-11-25T12:00:00Z_x"); a.status != 400 {
			t.Errorf("a cursor with a bad id: %d, want 400", a.status)
		}
	})
}
