package main_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// Two API nodes on one PostgreSQL cache key lookups; a key revoked from the
// command line, and one revoked through the other node's API, fail the very
// next request on both nodes.
func TestRevocationReachesEveryNodeOnPostgres(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	env := []string{"WEBACQ_CHROMIUM=none", "WEBACQ_JOB_WORKERS=0"}
	a := startServer(t, db, env...)
	b := startServer(t, db, env...)
	cliKey := strings.TrimSpace(mustRun(t, db, "key", "create", "--workspace", "default", "--name", "cli"))
	apiKey := strings.TrimSpace(mustRun(t, db, "key", "create", "--workspace", "default", "--name", "api"))

	// Both nodes look both keys up until both listeners have registered:
	// from then on their lookups are served from their caches.
	pg, err := sql.Open("pgx", db)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		for _, s := range []*server{a, b} {
			for _, k := range []string{cliKey, apiKey} {
				if code := s.health(t, k); code != 200 {
					t.Fatalf("health before any revocation: %d", code)
				}
			}
		}
		var n int
		if err := pg.QueryRow(`SELECT COUNT(*) FROM auth_listeners`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the nodes' key cache listeners never registered")
		}
		time.Sleep(20 * time.Millisecond)
	}

	mustRun(t, db, "key", "revoke", cliKey[:12])
	for name, s := range map[string]*server{"a": a, "b": b} {
		if code := s.health(t, cliKey); code != 401 {
			t.Errorf("node %s, first request after the command-line revocation: %d, want 401", name, code)
		}
	}
	if code, env := restCall(t, a, a.key, "DELETE", "/api/v1/keys/"+apiKey[:12], ""); code != 200 {
		t.Fatalf("revoke through node a: %d %v", code, env)
	}
	if code := b.health(t, apiKey); code != 401 {
		t.Errorf("node b, first request after node a revoked the key: %d, want 401", code)
	}
}
