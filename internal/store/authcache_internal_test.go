package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// After a writer died mid-change (the sidecar left odd), the cache stays off
// only until the next change completes: that change leaves the size even
// however it found it.
func TestCacheResumesAfterADeadWritersChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.CreateWorkspace(ctx, "w", 0, false)
	key, _, _ := s.CreateKey(ctx, w.ID, "k")
	if _, err := s.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if n := s.auth.len(); n != 1 {
		t.Fatalf("cached principals after a lookup: %d, want 1", n)
	}
	f, err := os.OpenFile(sidecarPath(s.path), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{'.'})
	f.Close()
	if _, err := s.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if n := s.auth.len(); n != 0 {
		t.Fatalf("cached principals while a change is under way: %d, want 0", n)
	}
	if err := s.SetMonitoring(ctx, w.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if n := s.auth.len(); n != 1 {
		t.Fatalf("cached principals after the next change completed: %d, want 1", n)
	}
}

// The sidecar starts over past maxSidecar and keeps its meaning: every
// change still moves it and leaves its size even.
func TestSidecarStartsOver(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "x.auth-epoch"), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(maxSidecar + 1); err != nil {
		t.Fatal(err)
	}
	prev := int64(maxSidecar + 1)
	for i := 0; i < 4; i++ {
		odd := i%2 == 0
		if err := bumpSidecar(f, odd); err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		if fi.Size() == prev || (fi.Size()%2 == 1) != odd || fi.Size() >= maxSidecar {
			t.Fatalf("bump %d (odd %v): size %d after %d", i, odd, fi.Size(), prev)
		}
		prev = fi.Size()
	}
}
