package store_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"webacq/internal/model"
	"webacq/internal/store"
)

// spellings are pairs of paths naming one SQLite database, built in dir.
func spellings(t *testing.T, dir string) map[string][2]string {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][2]string{}

	// A symbolic link to the database file.
	must(os.MkdirAll(filepath.Join(dir, "file"), 0o700))
	real := filepath.Join(dir, "file", "real.db")
	must(os.Symlink(real, filepath.Join(dir, "file", "link.db")))
	out["link to the file"] = [2]string{real, filepath.Join(dir, "file", "link.db")}

	// A symbolic link to the database's folder.
	must(os.MkdirAll(filepath.Join(dir, "folder", "data"), 0o700))
	must(os.Symlink(filepath.Join(dir, "folder", "data"), filepath.Join(dir, "folder", "alias")))
	out["link to the folder"] = [2]string{filepath.Join(dir, "folder", "data", "w.db"), filepath.Join(dir, "folder", "alias", "w.db")}

	// "l/.." where l is a link: the folder above the link's target, which
	// a lexical clean of the path would get wrong.
	must(os.MkdirAll(filepath.Join(dir, "dots", "a", "b"), 0o700))
	must(os.MkdirAll(filepath.Join(dir, "dots", "elsewhere"), 0o700))
	must(os.Symlink(filepath.Join(dir, "dots", "a", "b"), filepath.Join(dir, "dots", "elsewhere", "l")))
	out["dot-dot through a link"] = [2]string{filepath.Join(dir, "dots", "a", "w.db"),
		filepath.Join(dir, "dots", "elsewhere", "l") + "/../w.db"}

	// A relative path with a dot-dot, against the absolute one.
	must(os.MkdirAll(filepath.Join(dir, "rel", "sub"), 0o700))
	out["relative with dot-dot"] = [2]string{filepath.Join(dir, "rel", "w.db"), "./rel/sub/../w.db"}

	// A link made before the database exists, opened first.
	must(os.MkdirAll(filepath.Join(dir, "early"), 0o700))
	must(os.Symlink(filepath.Join(dir, "early", "later.db"), filepath.Join(dir, "early", "first.db")))
	out["link opened before its target exists"] = [2]string{filepath.Join(dir, "early", "first.db"), filepath.Join(dir, "early", "later.db")}
	return out
}

// Finding 5 of issue 8: a revocation or an entitlement change made through
// one spelling of a SQLite database's path is seen by the very next lookup
// of a node that opened it through another spelling, in both directions.
func TestChangesSeenThroughEverySpelling(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, pair := range spellings(t, dir) {
		t.Run(name, func(t *testing.T) {
			a, err := store.Open(ctx, "sqlite:"+pair[0])
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := store.Open(ctx, "sqlite:"+pair[1])
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			w, err := a.CreateWorkspace(ctx, "w", 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Workspace(ctx, w.ID); err != nil {
				t.Fatalf("the two spellings opened two databases: %v", err)
			}
			for _, dir := range []struct {
				name           string
				server, client *store.Store
			}{{"b changes, a looks up", a, b}, {"a changes, b looks up", b, a}} {
				key, k, err := dir.client.CreateKey(ctx, w.ID, dir.name)
				if err != nil {
					t.Fatal(err)
				}
				warm := func() *model.Principal {
					t.Helper()
					var p *model.Principal
					for i := 0; i < 3; i++ {
						if p, err = dir.server.Authenticate(ctx, key); err != nil {
							t.Fatalf("%s: Authenticate: %v", dir.name, err)
						}
					}
					return p
				}
				on := !warm().Monitoring
				if err := dir.client.SetMonitoring(ctx, w.ID, on); err != nil {
					t.Fatal(err)
				}
				if p, err := dir.server.Authenticate(ctx, key); err != nil || p.Monitoring != on {
					t.Fatalf("%s: entitlement change not seen: got %+v, %v; want monitoring %v", dir.name, p, err, on)
				}
				warm()
				if err := dir.client.RevokeKey(ctx, k.Prefix); err != nil {
					t.Fatal(err)
				}
				if _, err := dir.server.Authenticate(ctx, key); model.ErrorCode(err) != model.CodeUnauthorized {
					t.Fatalf("%s: revocation not seen: got %v, want unauthorized", dir.name, err)
				}
			}
		})
	}
}

// While revocations arrive through another spelling, lookups hammer the
// cache from many goroutines; each revoked key is refused by the lookup
// that follows its revocation.
func TestConcurrentRevocationsThroughAnotherSpelling(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	if err := os.Symlink(real, filepath.Join(dir, "link.db")); err != nil {
		t.Fatal(err)
	}
	server, err := store.Open(ctx, "sqlite:"+real)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	cli, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "link.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	w, _ := cli.CreateWorkspace(ctx, "w", 0, false)
	const n = 20
	keys := make([]string, n)
	prefixes := make([]string, n)
	for i := range keys {
		key, k, err := cli.CreateKey(ctx, w.ID, "k")
		if err != nil {
			t.Fatal(err)
		}
		keys[i], prefixes[i] = key, k.Prefix
		if _, err := server.Authenticate(ctx, key); err != nil { // cached
			t.Fatal(err)
		}
	}
	var revoked atomic.Int32 // keys[:revoked] are revoked
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				j := i % n
				before := int(revoked.Load())
				_, err := server.Authenticate(ctx, keys[j])
				if j < before && model.ErrorCode(err) != model.CodeUnauthorized {
					t.Errorf("key %d, revoked before the lookup began, was accepted: %v", j, err)
					return
				}
			}
		}()
	}
	for i := range keys {
		if err := cli.RevokeKey(ctx, prefixes[i]); err != nil {
			t.Fatal(err)
		}
		revoked.Store(int32(i + 1))
		if _, err := server.Authenticate(ctx, keys[i]); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("key %d: lookup right after its revocation: got %v, want unauthorized", i, err)
		}
	}
	close(stop)
	wg.Wait()
}

// A writer that dies after its commit, before it could tell the others,
// leaves the sidecar odd: no node may cache a principal meanwhile, so the
// change it committed is still seen by the next lookup.
func TestChangeOfADeadWriterIsSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.CreateWorkspace(ctx, "w", 0, false)
	key, _, _ := s.CreateKey(ctx, w.ID, "k")

	// The dead writer's first step: a change is under way.
	f, err := os.OpenFile(path+".auth-epoch", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{'.'}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for i := 0; i < 3; i++ {
		if _, err := s.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	// Its commit, and then nothing.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = CURRENT_TIMESTAMP`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, key); model.ErrorCode(err) != model.CodeUnauthorized {
		t.Fatalf("revocation of a writer that died before telling anyone: got %v, want unauthorized", err)
	}
}

// When running servers cannot be told of a change, it is not made: the key
// still works and the caller gets an error, rather than a revocation that a
// cache could outlive.
func TestChangeRefusedWhenServersCannotBeTold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.CreateWorkspace(ctx, "w", 0, false)
	key, k, _ := s.CreateKey(ctx, w.ID, "k")
	// A folder in the sidecar's place cannot be written (not even by root).
	if err := os.Remove(path + ".auth-epoch"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path+".auth-epoch", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeKey(ctx, k.Prefix); err == nil {
		t.Fatal("RevokeKey succeeded though no server could be told")
	}
	if err := s.SetMonitoring(ctx, w.ID, true); err == nil {
		t.Fatal("SetMonitoring succeeded though no server could be told")
	}
	fresh, err := store.Open(ctx, "sqlite:"+path) // reads rows, caches nothing (no sidecar)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if p, err := fresh.Authenticate(ctx, key); err != nil || p.Monitoring {
		t.Fatalf("after refused changes: got %+v, %v; want the key live and monitoring off", p, err)
	}
}
