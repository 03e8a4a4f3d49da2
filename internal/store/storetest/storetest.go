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
	"strings"
	"sync"
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
	return OpenPrepared(t, dialect, "", nil)
}

// OpenPrepared is Open on a database that prepare (when not nil) has also
// brought up to date, as jobs.Migrate does the job queue's tables; name
// tells one prepare from another. On SQLite the migrations and prepare run
// once per test process, in a template database that each test's database
// is a copy of: the same schema and rows a fresh migration gives, without
// its cost per test (seconds under the race detector). store.Open still
// runs on the copy and finds nothing to do. On PostgreSQL each test's
// schema is migrated as before.
func OpenPrepared(t testing.TB, dialect, name string, prepare func(context.Context, *store.Store) error) *store.Store {
	t.Helper()
	ctx := context.Background()
	url := URL(t, dialect)
	if dialect == store.SQLite {
		if err := sqliteTemplate(name, prepare).copyTo(strings.TrimPrefix(url, "sqlite:")); err != nil {
			t.Fatalf("sqlite template %q: %v", name, err)
		}
	}
	s, err := store.Open(ctx, url)
	if err != nil {
		t.Fatalf("open %s store: %v", dialect, err)
	}
	t.Cleanup(func() { s.Close() })
	if prepare != nil && dialect != store.SQLite {
		if err := prepare(ctx, s); err != nil {
			t.Fatalf("prepare %s store (%s): %v", dialect, name, err)
		}
	}
	return s
}

// template is a migrated (and prepared) SQLite database, its files' bytes.
type template struct {
	once    sync.Once
	db, wal []byte
	err     error
}

var (
	templatesMu sync.Mutex
	templates   = map[string]*template{}
)

// sqliteTemplate returns the template of that name, made on first use.
func sqliteTemplate(name string, prepare func(context.Context, *store.Store) error) *template {
	templatesMu.Lock()
	tp := templates[name]
	if tp == nil {
		tp = &template{}
		templates[name] = tp
	}
	templatesMu.Unlock()
	tp.once.Do(func() { tp.db, tp.wal, tp.err = makeSQLiteTemplate(prepare) })
	return tp
}

func makeSQLiteTemplate(prepare func(context.Context, *store.Store) error) (db, wal []byte, err error) {
	dir, err := os.MkdirTemp("", "webacq-storetest")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "webacq.db")
	ctx := context.Background()
	s, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		return nil, nil, err
	}
	if prepare != nil {
		err = prepare(ctx, s)
	}
	if err == nil {
		_, err = s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, err
	}
	if db, err = os.ReadFile(path); err != nil {
		return nil, nil, err
	}
	if wal, err = os.ReadFile(path + "-wal"); err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	return db, wal, nil
}

// copyTo writes the template's files at path.
func (tp *template) copyTo(path string) error {
	if tp.err != nil {
		return tp.err
	}
	if err := os.WriteFile(path, tp.db, 0o600); err != nil {
		return err
	}
	if len(tp.wal) > 0 {
		return os.WriteFile(path+"-wal", tp.wal, 0o600)
	}
	return nil
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
