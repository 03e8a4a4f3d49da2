package crawljob

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/billing"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/jobs/jobstest"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestStrandedJobFailed: a crawl job whose River job was discarded (a node
// died during its last attempt) stays queued with its credits held until
// the sweep fails it: the hold is refunded and the job says why. Before
// the sweep it stayed so for ever. On both stores.
func TestStrandedJobFailed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		st := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate)
		log := slog.New(slog.NewTextHandler(&strings.Builder{}, nil))
		b := billing.New(st, log)
		t.Cleanup(b.Close)
		prims := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Log: log, UserAgent: "webacq"}
		svc := &Service{Store: st, Biller: b, Prims: prims, Log: log}
		w := river.NewWorkers()
		svc.AddWorkers(w)
		q, err := jobs.New(st, w, jobs.Config{RescueAfter: time.Minute, Log: log}) // insert only: nothing runs the crawl
		if err != nil {
			t.Fatal(err)
		}
		svc.Queue = q
		ws, err := st.CreateWorkspace(ctx, "acme", 100, false)
		if err != nil {
			t.Fatal(err)
		}
		maxPages := 5
		req := primitive.GyreRequest{URL: "http://127.0.0.1:1/", MaxPages: &maxPages, IgnoreSitemap: true, Tier: "http"}
		if err := req.Normalize(prims.HTTP.CheckURL, false); err != nil {
			t.Fatal(err)
		}
		call := &billing.Call{Principal: &model.Principal{WorkspaceID: ws.ID, KeyPrefix: "test"}, Endpoint: Endpoint,
			Via: model.ViaHTTP, Method: "POST", RequestID: "req-1", Started: time.Now()}
		queued, err := svc.Start(ctx, call, req, req.MaxCost(false))
		if err != nil {
			t.Fatal(err)
		}
		j, err := st.GyreJob(ctx, ws.ID, queued.JobID)
		if err != nil {
			t.Fatal(err)
		}
		if bal, _ := st.Balance(ctx, ws.ID); bal >= 100 {
			t.Fatalf("balance %d with the job queued, want its hold drawn", bal)
		}
		jobstest.DiscardAsRescued(t, st, j.RiverJobID)
		if n, err := svc.FailStranded(ctx, time.Hour); err != nil || n != 0 {
			t.Fatalf("sweep within the grace: %d, %v", n, err)
		}
		if n, err := svc.FailStranded(ctx, 0); err != nil || n != 1 {
			t.Fatalf("sweep: %d, %v; want 1", n, err)
		}
		if n, err := svc.FailStranded(ctx, 0); err != nil || n != 0 {
			t.Fatalf("second sweep: %d, %v; want 0", n, err)
		}
		got, err := svc.Read(ctx, ws.ID, queued.JobID, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != store.GyreFailed || len(got.Errors) != 1 || got.Errors[0].Code != model.CodeInternal {
			t.Errorf("job %s, errors %+v; want failed, internal", got.Status, got.Errors)
		}
		if bal, _ := st.Balance(ctx, ws.ID); bal != 100 {
			t.Errorf("balance %d after the sweep, want 100 (the hold refunded, no page saved)", bal)
		}
	})
}
