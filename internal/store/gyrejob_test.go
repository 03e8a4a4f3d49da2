package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// A crawl job's pages are saved once each, only while it runs and up to
// its maxPages; ending it settles once; pruning drops ended jobs with their
// pages and keeps the others.
func TestGyreJobPagesAndPrune(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		s := storetest.Open(t, dialect)
		ws, err := s.CreateWorkspace(ctx, "acme", 10, false)
		if err != nil {
			t.Fatal(err)
		}
		now := s.Now().UTC()
		insert := func(id string) {
			t.Helper()
			err := s.InTx(ctx, func(tx store.Tx) error {
				return s.InsertGyreJob(ctx, tx, &store.GyreJob{ID: id, WorkspaceID: ws.ID, Status: store.GyreQueued,
					Request: []byte(`{}`), Held: 5, CreatedAt: now})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		save := func(id, key string) bool {
			t.Helper()
			ok, err := s.SaveGyreJobPage(ctx, id, 3, &store.GyreJobPage{URLKey: key, Credits: 1, Page: []byte(`{}`),
				Keys: []byte(`[]`), Links: []byte(`[]`)})
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		insert("a")
		if save("a", "k0") {
			t.Fatal("a queued job saved a page: only a running one may")
		}
		if ok, err := s.StartGyreJob(ctx, "a"); err != nil || !ok {
			t.Fatalf("start: %v %v", ok, err)
		}
		if !save("a", "k0") || save("a", "k0") || !save("a", "k1") || !save("a", "k2") || save("a", "k3") {
			t.Fatal("want k0, k1, k2 saved once each and nothing past maxPages 3")
		}
		pages, err := s.GyreJobPages(ctx, "a", 0, 1)
		if err != nil || len(pages) != 1 || pages[0].URLKey != "k1" {
			t.Fatalf("pages after seq 0: %+v %v", pages, err)
		}
		end := func(id string) *store.GyreJob {
			var j *store.GyreJob
			if err := s.InTx(ctx, func(tx store.Tx) error {
				var err error
				j, err = s.EndGyreJobTx(ctx, tx, id, store.GyreCompleted, nil)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return j
		}
		if j := end("a"); j == nil || j.CreditsUsed != 3 || j.Pages != 3 || j.Held != 5 {
			t.Fatalf("end: %+v", j)
		}
		if j := end("a"); j != nil {
			t.Fatal("a job was ended twice")
		}
		if save("a", "k9") {
			t.Fatal("an ended job saved a page")
		}
		insert("b")
		if n, err := s.PruneGyreJobs(ctx, now.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("prune: %d %v, want the ended job only", n, err)
		}
		if _, err := s.GyreJob(ctx, "", "a"); err == nil {
			t.Fatal("the pruned job is still there")
		}
		if j, err := s.GyreJob(ctx, ws.ID, "b"); err != nil || j.Status != store.GyreQueued {
			t.Fatalf("the queued job: %+v %v", j, err)
		}
		var left int
		if err := s.InTx(ctx, func(tx store.Tx) error {
			return tx.QueryRow(ctx, `SELECT COUNT(*) FROM gyre_job_pages`).Scan(&left)
		}); err != nil || left != 0 {
			t.Fatal(fmt.Sprint("pages left after prune: ", left, err))
		}
	})
}
