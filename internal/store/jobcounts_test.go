package store_test

import (
	"testing"
	"time"

	"webacq/internal/jobs"
	"webacq/internal/store/storetest"
)

// JobCounts reads the queue's depth on both engines, with the oldest
// available job's wait (the metrics' queue latency).
func TestJobCounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		if err := jobs.Migrate(ctx, s); err != nil {
			t.Fatal(err)
		}
		now := s.Now()
		for i, at := range []time.Time{now.Add(-90 * time.Second), now.Add(-30 * time.Second)} {
			if _, err := s.DB().ExecContext(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state, scheduled_at, priority, created_at)
				VALUES ($1, 'monitor_check', 5, 'monitors', 'available', $2, 1, $2)`, `{"n":`+string(rune('0'+i))+`}`, at); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state, scheduled_at, priority, created_at)
			VALUES ('{}', 'deliver', 5, 'alerts', 'scheduled', $1, 1, $1)`, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, err := s.JobCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, c := range got {
			switch {
			case c.Kind == "monitor_check" && c.Queue == "monitors" && c.State == "available":
				seen++
				if c.Count != 2 || c.OldestWait < 80*time.Second || c.OldestWait > 10*time.Minute {
					t.Errorf("available checks: %+v, want 2 with the oldest ~90 s late", c)
				}
			case c.Kind == "deliver" && c.State == "scheduled":
				seen++
				if c.Count != 1 || c.OldestWait != 0 {
					t.Errorf("scheduled deliveries: %+v", c)
				}
			}
		}
		if seen != 2 {
			t.Fatalf("JobCounts = %+v", got)
		}
	})
}
