// Package storetest opens real databases for tests: a temporary SQLite file,
// and a fresh schema on the PostgreSQL named by WEBACQ_TEST_POSTGRES
// (default postgres://postgres@127.0.0.1:5432/test). An unreachable
// PostgreSQL fails the test; WEBACQ_TEST_POSTGRES=off skips those subtests.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"webacq/internal/store"
)

// DefaultPostgres is the server the tests use unless told otherwise.
const DefaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Dialects are the engines every storage test runs against.
var Dialects = []string{store.SQLite, store.Postgres}

// URL returns a database URL of a fresh, empty database of the dialect,
// removed when the test ends.
func URL(t testing.TB, dialect string) string {
	t.Helper()
	switch dialect {
	case store.SQLite:
		return "sqlite:" + filepath.Join(t.TempDir(), "webacq.db")
	case store.Postgres:
		return postgresSchema(t)
	}
	t.Fatalf("unknown dialect %q", dialect)
	return ""
}

// Open returns a migrated store of the dialect on a fresh database.
func Open(t testing.TB, dialect string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), URL(t, dialect))
	if err != nil {
		t.Fatalf("open %s store: %v", dialect, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Each runs fn as a subtest against every dialect.
func Each(t *testing.T, fn func(t *testing.T, dialect string)) {
	for _, d := range Dialects {
		t.Run(d, func(t *testing.T) { fn(t, d) })
	}
}

// postgresSchema creates a schema of its own for the test and returns a URL
// whose search_path points at it.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv("WEBACQ_TEST_POSTGRES")
	if base == "off" {
		t.Skip("PostgreSQL tests turned off (WEBACQ_TEST_POSTGRES=off)")
	}
	if base == "" {
		base = DefaultPostgres
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("postgres unreachable at %s (start it, or set WEBACQ_TEST_POSTGRES): %v", base, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("postgres URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
