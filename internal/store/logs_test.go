package store_test

import (
	"fmt"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestPruneLogsKeepsTheLedger(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, err := s.CreateWorkspace(ctx, "acme", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		var recs []store.Record
		add := func(name string, credits int64, age time.Duration) {
			r := logRecord(w.ID, name, credits, s)
			r.Usage.CreatedAt, r.Activity.CreatedAt = now.Add(-age), now.Add(-age)
			recs = append(recs, r)
		}
		// More old free rows than one pruning statement deletes.
		store.SmallPruneBatches(t, 50)
		const oldFree = 120
		for i := range oldFree {
			add(fmt.Sprintf("old-free-%d", i), 0, 100*24*time.Hour)
		}
		add("old-charged", 7, 100*24*time.Hour)
		add("old-refund", -2, 100*24*time.Hour)
		add("new-free", 0, time.Hour)
		add("new-charged", 3, time.Hour)
		if err := s.WriteRecords(ctx, recs); err != nil {
			t.Fatal(err)
		}

		usage, activity, err := s.PruneLogs(ctx, now.Add(-90*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if usage != oldFree || activity != oldFree+2 {
			t.Errorf("pruned %d usage and %d activity rows, want %d and %d", usage, activity, oldFree, oldFree+2)
		}
		var gotUsage, gotActivity []string
		var sum int64
		us, err := s.Usage(ctx, w.ID, model.LogFilter{Limit: store.MaxLogLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			gotUsage, sum = append(gotUsage, u.RequestID), sum+u.Credits
		}
		as, err := s.Activity(ctx, w.ID, model.LogFilter{Limit: store.MaxLogLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			gotActivity = append(gotActivity, a.RequestID)
		}
		if want := "[new-charged new-free old-refund old-charged]"; fmt.Sprint(gotUsage) != want {
			t.Errorf("usage kept %v, want %s (every row that moved credits, and the recent ones)", gotUsage, want)
		}
		if sum != 8 {
			t.Errorf("the kept ledger sums to %d credits, want 8", sum)
		}
		if want := "[new-charged new-free]"; fmt.Sprint(gotActivity) != want {
			t.Errorf("activity kept %v, want %s", gotActivity, want)
		}
		// Nothing left to prune: a second pass deletes nothing.
		if u, a, err := s.PruneLogs(ctx, now.Add(-90*24*time.Hour)); err != nil || u != 0 || a != 0 {
			t.Errorf("second prune: %d, %d, %v", u, a, err)
		}
	})
}
