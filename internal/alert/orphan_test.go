package alert_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/jobs/jobstest"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// orphan writes a pending webhook delivery of monitor m, created at, whose
// series recorded tries attempts that ended in class (pending: to be
// retried), and whose job a node took for its last attempt and died in:
// River's rescuer then discards it (jobstest.DiscardAsRescued). The
// delivery is left pending without a live job.
func (e *env) orphan(t *testing.T, m *model.Monitor, at time.Time, tries int, class string) *model.Delivery {
	t.Helper()
	ctx := context.Background()
	d := &model.Delivery{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: e.ws.ID, RunID: uuid.NewString(),
		Kind: alert.KindWebhook, Status: model.DeliveryPending, Payload: []byte(`{"orphan":"` + uuid.NewString() + `"}`),
		CreatedAt: at}
	var jobID int64
	err := e.st.InTx(ctx, func(tx store.Tx) error {
		if err := e.st.InsertDelivery(ctx, tx, d); err != nil {
			return err
		}
		// Out of the live workers' reach until the rescue settles it.
		var err error
		jobID, err = e.svc.Queue.InsertTx(ctx, tx, alert.DeliverArgs{DeliveryID: d.ID},
			&river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for range tries {
		a := model.DeliveryAttempt{At: e.st.Now().UTC().Truncate(time.Millisecond), StatusCode: 500, ErrorClass: class}
		if err := e.st.RecordAttempt(ctx, d.ID, model.DeliveryPending, a); err != nil {
			t.Fatal(err)
		}
	}
	jobstest.DiscardAsRescued(t, e.st, jobID)
	return d
}

// eachParallel is storetest.Each with the dialects' subtests in parallel,
// for the tests that spend their time waiting (the delivery job's snoozes).
func eachParallel(t *testing.T, fn func(t *testing.T, dialect string)) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// newMonitor is a monitor of the workspace, not yet run.
func (e *env) newMonitor() *model.Monitor {
	return &model.Monitor{ID: uuid.NewString(), WorkspaceID: e.ws.ID, URL: "http://127.0.0.1:1/ir", Label: "Acme IR"}
}

// TestOrphanedDeliveryHoldsItsMonitorBack: a delivery left pending when
// River discarded its job (its node died during the last attempt) holds
// back every later delivery of its monitor: they wait for it, and nothing
// sends it. The sweep logs the lost attempt as abandoned and queues one
// more; then both go out, in order. Before the sweep existed the second
// waited for ever, silently.
func TestOrphanedDeliveryHoldsItsMonitorBack(t *testing.T) {
	t.Parallel()
	eachParallel(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		h := &hook{}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		m := e.newMonitor()
		d1 := e.orphan(t, m, e.st.Now().UTC().Add(-time.Second).Truncate(time.Millisecond), 3, "http_500")
		e.fireRun(t, m, model.OutcomeChanged)
		// Past one snooze of the second delivery's job (5 s), it still waits.
		time.Sleep(6 * time.Second)
		ds, err := e.st.Deliveries(ctx, m.ID, time.Time{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 2 || ds[0].Status != model.DeliveryPending || ds[1].Status != model.DeliveryPending || h.count() != 0 {
			t.Fatalf("before the sweep: %d deliveries, %d POSTs; want both pending, none sent", len(ds), h.count())
		}
		if e.liveJobs(t) != 1 {
			t.Fatalf("%d live delivery jobs before the sweep, want 1 (the second's)", e.liveJobs(t))
		}
		// Within the grace it is left alone.
		if r, f, err := e.svc.RequeueOrphans(ctx, time.Hour); err != nil || r+f != 0 {
			t.Fatalf("sweep within the grace: %d requeued, %d failed, %v", r, f, err)
		}
		if r, f, err := e.svc.RequeueOrphans(ctx, 0); err != nil || r != 1 || f != 0 {
			t.Fatalf("sweep: %d requeued, %d failed, %v; want 1 requeued", r, f, err)
		}
		if r, f, err := e.svc.RequeueOrphans(ctx, 0); err != nil || r+f != 0 {
			t.Fatalf("second sweep: %d requeued, %d failed, %v; want nothing", r, f, err)
		}
		ds = e.settled(t, m.ID, 2)
		got := ds[1] // oldest last
		if got.ID != d1.ID || got.Status != model.DeliveryDelivered || got.Attempts != 5 || len(got.Log) != 5 ||
			got.Log[3].ErrorClass != alert.ClassAbandoned {
			t.Errorf("orphan after the sweep: %+v; want delivered at attempt 5 after an abandoned 4th", got)
		}
		if ds[0].Status != model.DeliveryDelivered {
			t.Errorf("second delivery %s", ds[0].Status)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.bodies) != 2 || string(h.bodies[0]) != string(d1.Payload) {
			t.Errorf("%d POSTs, first %s; want the orphan first, then the second", len(h.bodies), h.bodies)
		}
	})
}

// TestOrphanGetsOneMoreAttempt: the requeued orphan has one attempt, not a
// new schedule: a 500 then fails it.
func TestOrphanGetsOneMoreAttempt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		h := &hook{answers: []int{500, 500, 500, 500, 500, 500}}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		m := e.newMonitor()
		d := e.orphan(t, m, e.st.Now().UTC().Truncate(time.Millisecond), 3, "http_500")
		if r, _, err := e.svc.RequeueOrphans(ctx, 0); err != nil || r != 1 {
			t.Fatalf("sweep: %d requeued, %v", r, err)
		}
		got := e.settled(t, m.ID, 1)[0]
		if got.ID != d.ID || got.Status != model.DeliveryFailed || got.Attempts != 5 || h.count() != 1 {
			t.Errorf("orphan %+v after %d POSTs; want failed after one more", got, h.count())
		}
	})
}

// TestOrphanAbandonedTwiceFails: an orphan whose last attempt was already
// abandoned (its one more attempt died too) is failed, not sent again, and
// its monitor's later deliveries go out.
func TestOrphanAbandonedTwiceFails(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		h := &hook{}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		m := e.newMonitor()
		d := e.orphan(t, m, e.st.Now().UTC().Add(-time.Second).Truncate(time.Millisecond), 1, alert.ClassAbandoned)
		e.fireRun(t, m, model.OutcomeChanged)
		if r, f, err := e.svc.RequeueOrphans(ctx, 0); err != nil || r != 0 || f != 1 {
			t.Fatalf("sweep: %d requeued, %d failed, %v; want 1 failed", r, f, err)
		}
		ds := e.settled(t, m.ID, 2)
		if ds[1].ID != d.ID || ds[1].Status != model.DeliveryFailed || ds[0].Status != model.DeliveryDelivered || h.count() != 1 {
			t.Errorf("orphan %s, second %s, %d POSTs; want failed, delivered, 1", ds[1].Status, ds[0].Status, h.count())
		}
	})
}

// TestRedeliverOrphan: redeliver of a delivery whose job River discarded
// queues a new series (ResetDelivery takes it as settled), and the
// monitor's later delivery follows it.
func TestRedeliverOrphan(t *testing.T) {
	t.Parallel()
	eachParallel(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		h := &hook{answers: []int{http.StatusServiceUnavailable}}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		m := e.newMonitor()
		d := e.orphan(t, m, e.st.Now().UTC().Add(-time.Second).Truncate(time.Millisecond), 3, "http_500")
		e.fireRun(t, m, model.OutcomeChanged)
		if _, err := e.svc.Redeliver(ctx, e.p, m.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		ds := e.settled(t, m.ID, 2)
		// A whole series: the 503 is retried.
		if ds[1].ID != d.ID || ds[1].Status != model.DeliveryDelivered || ds[1].Attempts != 5 || ds[0].Status != model.DeliveryDelivered {
			t.Errorf("orphan %+v, second %s; want both delivered", ds[1], ds[0].Status)
		}
	})
}
