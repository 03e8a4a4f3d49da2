package jobs

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestPruneEnforcesLogRetention(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		st := storetest.Open(t, dialect)
		w, err := st.CreateWorkspace(ctx, "acme", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		now := st.Now()
		rec := func(id string, credits int64, at time.Time) store.Record {
			return store.Record{
				Usage: model.Usage{WorkspaceID: w.ID, Endpoint: "/api/v1/fetch", Credits: credits, Tier: "http",
					Status: 200, RequestID: id, CreatedAt: at},
				Activity: model.Activity{WorkspaceID: w.ID, Endpoint: "/api/v1/fetch", Via: "http", Method: "POST",
					Status: 200, Credits: credits, RequestID: id, CreatedAt: at},
			}
		}
		old := now.Add(-48 * time.Hour)
		if err := st.WriteRecords(ctx, []store.Record{rec("old-free", 0, old), rec("old-charged", 1, old),
			rec("new-free", 0, now)}); err != nil {
			t.Fatal(err)
		}
		count := func() (usage, activity int) {
			us, err := st.Usage(ctx, w.ID, model.LogFilter{})
			if err != nil {
				t.Fatal(err)
			}
			as, err := st.Activity(ctx, w.ID, model.LogFilter{})
			if err != nil {
				t.Fatal(err)
			}
			return len(us), len(as)
		}
		h := &Housekeeping{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			PageRetention: 720 * time.Hour, SnapshotRetention: 720 * time.Hour}
		if err := h.prune(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if u, a := count(); u != 3 || a != 3 {
			t.Errorf("without a log retention: %d usage and %d activity rows left, want all 3 and 3", u, a)
		}
		h.LogRetention = 24 * time.Hour
		if err := h.prune(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if u, a := count(); u != 2 || a != 1 {
			t.Errorf("with a 24h log retention: %d usage and %d activity rows left, want 2 (the charge, the recent) and 1", u, a)
		}
	})
}
