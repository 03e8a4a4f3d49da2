package store_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// twoNodes opens two stores on one fresh PostgreSQL database: two nodes of
// one deployment.
func twoNodes(t *testing.T) (a, b *store.Store) {
	t.Helper()
	url := storetest.URL(t, store.Postgres)
	open := func() *store.Store {
		s, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open()
}

// cacheOn looks key up on s until s's key cache serves (its listener has
// registered), and proves it does: a revocation written around the cache
// (a plain UPDATE, as no part of webacq writes one) is not seen.
func cacheOn(t *testing.T, s *store.Store, key, keyID string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !s.KeyCacheOn() {
		if _, err := s.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the key cache never came on")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := s.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1`, keyID); err != nil {
		t.Fatal(err)
	}
	_, err := s.Authenticate(ctx, key)
	if err := s.Exec(ctx, `UPDATE api_keys SET revoked_at = NULL WHERE id = $1`, keyID); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("lookup after a revocation around the cache: %v; want the cached principal (is the cache on?)", err)
	}
}

// A revocation and an entitlement change made on one node are seen by the
// very next lookup on another node, whose cache held the key.
func TestPostgresChangesReachOtherNodes(t *testing.T) {
	a, b := twoNodes(t)
	w, err := a.CreateWorkspace(ctx, "w", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	key, k, err := a.CreateKey(ctx, w.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	cacheOn(t, b, key, k.ID)

	if err := a.SetMonitoring(ctx, w.ID, true); err != nil {
		t.Fatal(err)
	}
	if p, err := b.Authenticate(ctx, key); err != nil || !p.Monitoring {
		t.Fatalf("entitlement change on another node: got %+v, %v; want monitoring on", p, err)
	}
	rpm := 7
	if err := a.SetRateLimits(ctx, w.ID, &rpm, nil); err != nil {
		t.Fatal(err)
	}
	if p, err := b.Authenticate(ctx, key); err != nil || p.RPM != rpm {
		t.Fatalf("rate limit change on another node: got %+v, %v; want rpm %d", p, err, rpm)
	}
	cacheOn(t, b, key, k.ID)
	if err := a.RevokeWorkspaceKey(ctx, w.ID, k.Prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Authenticate(ctx, key); model.ErrorCode(err) != model.CodeUnauthorized {
		t.Fatalf("lookup on another node right after the revocation: got %v, want unauthorized", err)
	}
}

// When a node's listener connection is killed, a revocation made at once on
// another node is still seen by that node's next lookup; the cache comes
// back once the listener has registered again.
func TestPostgresRevocationSeenWhenListenerKilled(t *testing.T) {
	a, b := twoNodes(t)
	w, _ := a.CreateWorkspace(ctx, "w", 0, false)
	key, k, _ := a.CreateKey(ctx, w.ID, "k")
	key2, k2, _ := a.CreateKey(ctx, w.ID, "k2")
	cacheOn(t, b, key, k.ID)
	if _, err := b.Authenticate(ctx, key2); err != nil {
		t.Fatal(err)
	}
	if err := a.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM auth_listeners`); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeKey(ctx, k.Prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Authenticate(ctx, key); model.ErrorCode(err) != model.CodeUnauthorized {
		t.Fatalf("lookup after the listener was killed and the key revoked: got %v, want unauthorized", err)
	}
	// Back again: cached, and revocations reach it.
	cacheOn(t, b, key2, k2.ID)
	if err := a.RevokeKey(ctx, k2.Prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Authenticate(ctx, key2); model.ErrorCode(err) != model.CodeUnauthorized {
		t.Fatalf("lookup after the listener came back and the key was revoked: got %v, want unauthorized", err)
	}
}

// While one node revokes keys one by one, lookups hammer another node's
// cache from many goroutines; no lookup that began after a key's
// revocation returned accepts it.
func TestPostgresConcurrentRevocations(t *testing.T) {
	a, b := twoNodes(t)
	w, _ := a.CreateWorkspace(ctx, "w", 0, false)
	const n = 10
	keys := make([]string, n)
	prefixes := make([]string, n)
	for i := range keys {
		key, k, err := a.CreateKey(ctx, w.ID, "k")
		if err != nil {
			t.Fatal(err)
		}
		keys[i], prefixes[i] = key, k.Prefix
		if i == 0 {
			cacheOn(t, b, key, k.ID)
		}
		if _, err := b.Authenticate(ctx, key); err != nil {
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
				_, err := b.Authenticate(ctx, keys[j])
				if j < before && model.ErrorCode(err) != model.CodeUnauthorized {
					t.Errorf("key %d, revoked before the lookup began, was accepted: %v", j, err)
					return
				}
			}
		}()
	}
	for i := range keys {
		if err := a.RevokeKey(ctx, prefixes[i]); err != nil {
			t.Fatal(err)
		}
		revoked.Store(int32(i + 1))
	}
	close(stop)
	wg.Wait()
}

// A registered node that never acknowledges (stalled, or cut off) delays a
// change by its lease at most, and a registration left by a node that
// stopped long ago is removed by the next change.
func TestPostgresSilentNodes(t *testing.T) {
	a, _ := twoNodes(t)
	w, _ := a.CreateWorkspace(ctx, "w", 0, false)
	_, k1, _ := a.CreateKey(ctx, w.ID, "k1")
	_, k2, _ := a.CreateKey(ctx, w.ID, "k2")
	if err := a.Exec(ctx, `INSERT INTO auth_listeners (id, pid, version, seen_at) VALUES ('silent', 0, 0, now())`); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeKey(ctx, k1.Prefix); err != nil {
		t.Fatalf("revocation with a silent node registered: %v", err)
	}
	if err := a.Exec(ctx, `UPDATE auth_listeners SET seen_at = now() - interval '1 hour' WHERE id = 'silent'`); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeKey(ctx, k2.Prefix); err != nil {
		t.Fatal(err)
	}
	if n := a.Count(t, `SELECT COUNT(*) FROM auth_listeners WHERE id = 'silent'`); n != 0 {
		t.Errorf("a registration an hour old survived a change: %d rows", n)
	}
}
