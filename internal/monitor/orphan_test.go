package monitor_test

import (
	"context"
	"testing"
	"time"

	"webacq/internal/jobs/jobstest"
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
		var state string
		if err := e.st.InTx(ctx, func(tx store.Tx) error {
			return tx.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, m.JobID).Scan(&state)
		}); err != nil || state == "discarded" || state == "completed" || state == "cancelled" {
			t.Errorf("monitor job %d (was %d) is %s, %v; want live", m.JobID, old, state, err)
		}
	})
}
