package store_test

import (
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store/storetest"
)

// CountRequest counts a class's requests per workspace and minute on both
// engines: a new minute starts again at 1, a node whose clock is behind
// counts into the newer minute, and classes and workspaces are apart.
func TestCountRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		at := time.Date(2026, 11, 26, 10, 0, 5, 0, time.UTC)
		s.Now = func() time.Time { return at }
		count := func(ws, class string) (int, time.Time) {
			t.Helper()
			n, reset, err := s.CountRequest(ctx, ws, class)
			if err != nil {
				t.Fatal(err)
			}
			return n, reset
		}
		for want := 1; want <= 3; want++ {
			if n, reset := count("w1", "primitives"); n != want || !reset.Equal(time.Date(2026, 11, 26, 10, 1, 0, 0, time.UTC)) {
				t.Fatalf("request %d: count %d reset %v", want, n, reset)
			}
		}
		if n, _ := count("w1", "monitor"); n != 1 {
			t.Fatalf("another class: %d", n)
		}
		if n, _ := count("w2", "primitives"); n != 1 {
			t.Fatalf("another workspace: %d", n)
		}
		at = at.Add(time.Minute)
		if n, _ := count("w1", "primitives"); n != 1 {
			t.Fatalf("a new minute: %d", n)
		}
		at = at.Add(-time.Minute) // a node whose clock is behind
		if n, reset := count("w1", "primitives"); n != 2 || !reset.Equal(time.Date(2026, 11, 26, 10, 2, 0, 0, time.UTC)) {
			t.Fatalf("a node behind: count %d reset %v, want 2 in the newer minute", n, reset)
		}

		w, err := s.CreateWorkspace(ctx, "acme", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		rpm, conc := 60, 2
		if err := s.SetRateLimits(ctx, w.ID, &rpm, &conc); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Workspace(ctx, w.ID); got.RPM != 60 || got.Concurrent != 2 {
			t.Fatalf("limits = %d, %d", got.RPM, got.Concurrent)
		}
		zero := 0
		if err := s.SetRateLimits(ctx, w.ID, &zero, nil); model.ErrorCode(err) != model.CodeBadRequest {
			t.Fatalf("rpm 0: got %v, want bad_request", err)
		}
	})
}
