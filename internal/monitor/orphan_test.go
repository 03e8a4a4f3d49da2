package monitor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"webacq/internal/jobs/jobstest"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestDiscardedCheckJobRescheduled: a monitor whose check job River
// discarded (a node died during its last attempt) is repaired by Reconcile
// once it is overdue (StrandedMonitors counts a discarded job as gone),
// and is checked again. On both stores.
func TestDiscardedCheckJobRescheduled(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1,204"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"}})
		e.runs(t, id, 1)
		m, err := e.st.MonitorByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		old := m.JobID
		// Once the first check's job has been put back to wait (not running
		// on this node), it is made the job of a node that died.
		for deadline := time.Now().Add(10 * time.Second); e.jobState(t, old) != "scheduled"; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("check job %d is %s, want scheduled", old, e.jobState(t, old))
			}
		}
		jobstest.DiscardAsRescued(t, e.st, old)
		// Overdue: its next check was due a minute ago.
		if err := e.st.InTx(ctx, func(tx store.Tx) error {
			_, err := tx.Exec(ctx, `UPDATE monitors SET next_check_at = $2 WHERE id = $1`, id,
				e.st.Now().UTC().Add(-time.Minute))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		e.runs(t, id, 2)
		// Its job is live again (Reconcile wakes the discarded job, River's
		// retry giving it one more attempt, or queues a new one).
		if m, err = e.st.MonitorByID(ctx, id); err != nil || m.JobID == 0 {
			t.Fatalf("monitor job %d, %v", m.JobID, err)
		}
		if state := e.jobState(t, m.JobID); state == "discarded" || state == "completed" || state == "cancelled" {
			t.Errorf("monitor job %d (was %d) is %s; want live", m.JobID, old, state)
		}
	})
}

// TestStrandedPreviewFailed: a registration preview whose job River
// discarded (a node died during its last attempt) left the extraction
// pending for ever; the sweep records it failed, not billed, so that the
// user is told to ask again. A preview job still live is left alone. On
// both stores.
func TestStrandedPreviewFailed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnvWorkers(t, dialect, 0) // insert only: nothing runs the preview
		e.svc.LLM = newModelServer(t).client(t)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1,204"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"},
			ExtractIntent: ptr(releasesIntent)})
		site.set("/ir2", press("Nov 1, 2026", releasesList, "1,204"))
		live := e.register(t, monitor.RegisterRequest{URL: site.url("/ir2"), DiscoveryKeywords: []string{"results"},
			ExtractIntent: ptr(releasesIntent)})
		var job int64
		if err := e.st.InTx(ctx, func(tx store.Tx) error {
			return tx.QueryRow(ctx, `SELECT id FROM river_job WHERE kind = 'monitor_extract_preview' ORDER BY id LIMIT 1`).Scan(&job)
		}); err != nil {
			t.Fatal(err)
		}
		before := e.balance(t, e.ws.ID)
		if n, err := e.svc.FailStrandedPreviews(ctx); err != nil || n != 0 {
			t.Fatalf("sweep with the jobs queued: %d, %v", n, err)
		}
		jobstest.DiscardAsRescued(t, e.st, job)
		if n, err := e.svc.FailStrandedPreviews(ctx); err != nil || n != 1 {
			t.Fatalf("sweep: %d, %v; want 1", n, err)
		}
		if n, err := e.svc.FailStrandedPreviews(ctx); err != nil || n != 0 {
			t.Fatalf("second sweep: %d, %v; want 0", n, err)
		}
		m, err := e.svc.Get(ctx, e.p, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Extraction == nil || m.Extraction.Status != model.ExtractionFailed || !strings.HasPrefix(m.Extraction.Preview.Error, "internal") {
			t.Errorf("extraction %+v; want failed (internal)", m.Extraction)
		}
		if m, err = e.svc.Get(ctx, e.p, live); err != nil || m.Extraction.Status != model.ExtractionPending {
			t.Errorf("the other monitor's extraction %+v, %v; want pending (its job is queued)", m.Extraction, err)
		}
		if after := e.balance(t, e.ws.ID); after != before {
			t.Errorf("balance %d → %d; the failed preview is not billed", before, after)
		}
	})
}

// jobState is the River state of job id.
func (e *env) jobState(t *testing.T, id int64) string {
	t.Helper()
	var state string
	ctx := context.Background()
	if err := e.st.InTx(ctx, func(tx store.Tx) error {
		return tx.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, id).Scan(&state)
	}); err != nil {
		t.Fatal(err)
	}
	return state
}
