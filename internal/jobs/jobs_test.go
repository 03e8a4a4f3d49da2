package jobs_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/jobs"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

type noteArgs struct {
	N int `json:"n"`
}

func (noteArgs) Kind() string { return "note" }

// noteWorker writes a row and completes its job in the same transaction.
type noteWorker struct {
	river.WorkerDefaults[noteArgs]
	st    *store.Store
	calls atomic.Int64
}

func (w *noteWorker) Work(ctx context.Context, job *river.Job[noteArgs]) error {
	w.calls.Add(1)
	return w.st.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE workspaces SET credits = credits + $1 WHERE name = 'jobs'`, job.Args.N); err != nil {
			return err
		}
		return jobs.CompleteTx(ctx, tx, job)
	})
}

func TestJobsCommitWithTheirRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		st := storetest.Open(t, dialect)
		if err := jobs.Migrate(ctx, st); err != nil {
			t.Fatal(err)
		}
		if err := jobs.Migrate(ctx, st); err != nil { // idempotent
			t.Fatal(err)
		}
		if _, err := st.CreateWorkspace(ctx, "jobs", 0, false); err != nil {
			t.Fatal(err)
		}
		w := river.NewWorkers()
		nw := &noteWorker{st: st}
		river.AddWorker(w, nw)
		q, err := jobs.New(st, w, jobs.Config{Workers: 2, RescueAfter: time.Minute, PollInterval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		opts := &river.InsertOpts{Queue: jobs.QueueMonitor}
		// A job whose transaction rolls back was never queued.
		errRollback := errors.New("rollback")
		err = st.InTx(ctx, func(tx store.Tx) error {
			if _, err := q.InsertTx(ctx, tx, noteArgs{N: 1000}, opts); err != nil {
				return err
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			if err := st.InTx(ctx, func(tx store.Tx) error {
				_, err := q.InsertTx(ctx, tx, noteArgs{N: i}, opts)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer q.Stop(ctx)
		deadline := time.Now().Add(15 * time.Second)
		for {
			w, err := st.WorkspaceByName(ctx, "jobs")
			if err != nil {
				t.Fatal(err)
			}
			if w.Credits == 6 {
				break
			}
			if w.Credits > 6 || time.Now().After(deadline) {
				t.Fatalf("credits = %d, want 6 (jobs 1+2+3, the rolled-back one never)", w.Credits)
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		if n := nw.calls.Load(); n != 3 {
			t.Errorf("worker ran %d times, want 3", n)
		}
	})
}
