// Package jobstest puts River jobs in the states tests need.
package jobstest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"webacq/internal/store"
)

// DiscardAsRescued makes job id what River leaves of the job of a node
// that died during its last attempt: the job is taken as that node's fetch
// leaves it (running, at its last attempt, two hours ago), then River's
// rescuer discards it as JobRescuer.runOnce does for a stuck job with no
// attempts left: the same driver call (JobRescueMany) with the same
// parameters (the error "Stuck job rescued by JobRescuer", finalized now,
// state discarded). The job must not be running on a live worker.
func DiscardAsRescued(t testing.TB, st *store.Store, id int64) {
	t.Helper()
	ctx := context.Background()
	attempted := time.Now().Add(-2 * time.Hour).UTC()
	var atArg any = attempted
	var exec riverdriver.Executor
	if st.Pool() != nil {
		exec = riverpgxv5.New(st.Pool()).GetExecutor()
	} else {
		// riversqlite's time format (its timeString).
		atArg = attempted.Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
		exec = riversqlite.New(st.DB()).GetExecutor()
	}
	var attempt int
	var scheduled time.Time
	err := st.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = max_attempts, attempted_at = $2
			WHERE id = $1`, id, atArg); err != nil {
			return err
		}
		var sched any
		if err := tx.QueryRow(ctx, `SELECT attempt, scheduled_at FROM river_job WHERE id = $1`, id).Scan(&attempt, &sched); err != nil {
			return err
		}
		switch v := sched.(type) {
		case time.Time:
			scheduled = v
		case string:
			scheduled, _ = time.Parse("2006-01-02 15:04:05.000", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	errData, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: attempt, Error: "Stuck job rescued by JobRescuer"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{ID: []int64{id}, Error: [][]byte{errData},
		FinalizedAt: []*time.Time{&now}, ScheduledAt: []time.Time{scheduled},
		State: []string{string(rivertype.JobStateDiscarded)}, StuckHorizon: now.Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := st.InTx(ctx, func(tx store.Tx) error {
		return tx.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, id).Scan(&state)
	}); err != nil {
		t.Fatal(err)
	}
	if state != string(rivertype.JobStateDiscarded) {
		t.Fatalf("job %d is %s after the rescue, want discarded", id, state)
	}
}
