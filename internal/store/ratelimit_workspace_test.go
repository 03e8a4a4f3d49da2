package store_test

import (
	"sync"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
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

// StartCall holds a workspace's running crawls and extracts to its limit
// on both engines, across two handles on one database (two nodes): of
// many racing starts exactly the limit get a slot; EndCall frees one; a
// lease that is not renewed runs out (a node that died).
func TestStartCallLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		at := time.Now().UTC()
		var handles []*store.Store
		for range 2 {
			s, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			s.Now = func() time.Time { return at }
			handles = append(handles, s)
			if dialect == store.SQLite {
				break // one process owns a SQLite file
			}
		}
		const limit = 3
		var wg sync.WaitGroup
		var mu sync.Mutex
		var ids []string
		start := make(chan struct{})
		for i := range 24 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				id, _, ok, err := handles[i%len(handles)].StartCall(ctx, "w1", "/api/v1/gyre", limit, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					ids = append(ids, id)
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(ids) != limit {
			t.Fatalf("24 racing starts at limit %d over %d handles: %d got a slot", limit, len(handles), len(ids))
		}
		s := handles[0]
		if _, running, ok, _ := s.StartCall(ctx, "w2", "/api/v1/extract", limit, time.Minute); !ok || running != 1 {
			t.Fatalf("another workspace: ok %t running %d", ok, running)
		}
		if _, running, ok, _ := s.StartCall(ctx, "w1", "/api/v1/extract", limit, time.Minute); ok || running != limit {
			t.Fatalf("at the limit: ok %t running %d", ok, running)
		}
		if err := s.EndCall(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		id, _, ok, _ := s.StartCall(ctx, "w1", "/api/v1/extract", limit, time.Minute)
		if !ok {
			t.Fatal("a slot freed by EndCall was not taken")
		}
		// Renewed leases outlive the others: past a minute only the renewed
		// one is running.
		at = at.Add(30 * time.Second)
		if err := s.RenewCall(ctx, id, time.Minute); err != nil {
			t.Fatal(err)
		}
		at = at.Add(45 * time.Second)
		if _, running, ok, _ := s.StartCall(ctx, "w1", "/api/v1/gyre", limit, time.Minute); !ok || running != 2 {
			t.Fatalf("after the unrenewed leases ran out: ok %t running %d, want 2 (the renewed one and this)", ok, running)
		}
	})
}

// On SQLite the count lives in the serving process and is written back at
// most once a second; a process that starts reads it back, so a restart
// resumes the minute rather than starting it again.
func TestCountRequestSQLiteResumes(t *testing.T) {
	url := storetest.URL(t, store.SQLite)
	at := time.Date(2026, 11, 26, 10, 0, 5, 0, time.UTC)
	open := func() *store.Store {
		s, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		s.Now = func() time.Time { return at }
		return s
	}
	s := open()
	for want := 1; want <= 2; want++ {
		if n, _, _ := s.CountRequest(ctx, "w1", "primitives"); n != want {
			t.Fatalf("count %d, want %d", n, want)
		}
	}
	at = at.Add(2 * time.Second) // the third is written back
	if n, _, _ := s.CountRequest(ctx, "w1", "primitives"); n != 3 {
		t.Fatalf("third count %d", n)
	}
	s.Close()
	s = open()
	defer s.Close()
	if n, reset, _ := s.CountRequest(ctx, "w1", "primitives"); n != 4 || !reset.Equal(time.Date(2026, 11, 26, 10, 1, 0, 0, time.UTC)) {
		t.Fatalf("after a restart: count %d reset %v, want 4 in the same minute", n, reset)
	}
	at = at.Add(time.Minute)
	if n, _, _ := s.CountRequest(ctx, "w1", "primitives"); n != 1 {
		t.Fatalf("a new minute after a restart: %d", n)
	}
}
