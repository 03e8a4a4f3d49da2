// Package store keeps every piece of shared state in SQLite (one node) or
// PostgreSQL (many nodes). One concrete *Store, hand-written SQL, one
// transaction per call; schema changes only through embedded migrations.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"webacq/internal/metrics"
)

//go:embed migrations
var migrations embed.FS

// Dialects.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Store is the database. Safe for concurrent use.
type Store struct {
	// db takes writes. On SQLite it is a single connection, so writers queue
	// in Go instead of spinning on SQLITE_BUSY; on PostgreSQL it is the pool.
	db *sql.DB
	// rdb takes reads: a pool of read-only connections on SQLite (WAL lets
	// them run beside the writer), the same pool as db on PostgreSQL.
	rdb      *sql.DB
	dialect  string
	path     string // of the SQLite file
	stmts    stmts
	auth     *authCache
	pool     *pgxpool.Pool // PostgreSQL only: shared by db and InTx
	listener *pgEpoch      // PostgreSQL only: the key cache's epoch
	// txStmts are statements of InTx prepared on SQLite's writer, by SQL.
	txStmts     sync.Map
	txStmtCount atomic.Int64
	// quotaMu orders this process's quota takes by their clock (TakeQuota).
	quotaMu sync.Mutex
	// windows are the request counts of CountRequest on SQLite.
	windows requestWindows

	// Now is the clock; tests may replace it.
	Now func() time.Time
}

// Open connects to databaseURL (`sqlite:PATH` or `postgres://…`) and brings
// the schema up to date.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	s, err := open(databaseURL)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func open(databaseURL string) (*Store, error) {
	s := &Store{Now: func() time.Time { return time.Now().UTC() }}
	switch {
	case strings.HasPrefix(databaseURL, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "//")
		if path == "" {
			return nil, errors.New("store: sqlite URL needs a path, as in sqlite:./data/webacq.db")
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("store: create database folder: %w", err)
			}
		}
		// Every process on this database must agree on the names of the
		// files beside it (the key cache's sidecar, the migration lock),
		// whatever spelling of the path each was given.
		path, err := canonicalPath(path)
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		q := "?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)" +
			"&_pragma=synchronous(NORMAL)&_time_format=sqlite"
		db, err := sql.Open("sqlite", "file:"+path+q+"&_txlock=immediate")
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		rdb, err := sql.Open("sqlite", "file:"+path+q+"&_pragma=query_only(1)")
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		n := max(4, 2*runtime.GOMAXPROCS(0))
		rdb.SetMaxOpenConns(n)
		rdb.SetMaxIdleConns(n)
		rdb.SetConnMaxLifetime(0)
		s.db, s.rdb, s.dialect, s.path = db, rdb, SQLite, path
		s.auth = newAuthCache(sidecarEpoch{path: sidecarPath(path)})
		if f, err := os.OpenFile(sidecarPath(path), os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		// One pool serves database/sql (most of the store) and pgx
		// transactions (InTx, which the job queue's driver joins).
		pc, err := pgxpool.ParseConfig(databaseURL)
		if err != nil {
			return nil, fmt.Errorf("store: open postgres: %s", strings.ReplaceAll(err.Error(), databaseURL, redactURL(databaseURL)))
		}
		// 32 connections unless the URL says otherwise (pool_max_conns=N):
		// every node's pool counts against the server's max_connections.
		if !strings.Contains(databaseURL, "pool_max_conns=") {
			pc.MaxConns = 32
		}
		pc.MaxConnIdleTime = 5 * time.Minute
		pool, err := pgxpool.NewWithConfig(context.Background(), pc)
		if err != nil {
			return nil, fmt.Errorf("store: open postgres: %w", err)
		}
		db := stdlib.OpenDBFromPool(pool)
		s.db, s.rdb, s.dialect, s.pool = db, db, Postgres, pool
		s.listener = newPGEpoch(s)
		s.auth = newAuthCache(s.listener)
	default:
		return nil, fmt.Errorf("store: database URL %q: want sqlite:PATH or postgres://…", redactURL(databaseURL))
	}
	return s, nil
}

// redactURL hides a password in a database URL so it can be shown in errors.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable)"
	}
	return u.Redacted()
}

// stmts are the statements of the hot path, prepared once per connection.
type stmts struct {
	authenticate *sql.Stmt
	// SQLite multi-row INSERTs of the logs, by row count (sqliteChunks).
	insertUsage, insertActivity map[int]*sql.Stmt
}

func (s *Store) prepare(ctx context.Context) error {
	var err error
	if s.stmts.authenticate, err = s.rdb.PrepareContext(ctx, authenticateSQL); err != nil {
		return fmt.Errorf("store: prepare: %w", err)
	}
	if s.dialect != SQLite {
		return nil
	}
	s.stmts.insertUsage, s.stmts.insertActivity = map[int]*sql.Stmt{}, map[int]*sql.Stmt{}
	for _, n := range sqliteChunks {
		if s.stmts.insertUsage[n], err = s.db.PrepareContext(ctx, multiRow(insertUsageSQL, 9, n)); err != nil {
			return fmt.Errorf("store: prepare: %w", err)
		}
		if s.stmts.insertActivity[n], err = s.db.PrepareContext(ctx, multiRow(insertActivitySQL, 11, n)); err != nil {
			return fmt.Errorf("store: prepare: %w", err)
		}
	}
	return nil
}

// Dialect reports SQLite or Postgres.
func (s *Store) Dialect() string { return s.dialect }

// Close closes every connection.
func (s *Store) Close() error {
	if s.listener != nil {
		s.listener.stop()
	}
	if s.stmts.authenticate != nil {
		s.stmts.authenticate.Close()
	}
	for _, m := range []map[int]*sql.Stmt{s.stmts.insertUsage, s.stmts.insertActivity} {
		for _, st := range m {
			st.Close()
		}
	}
	s.txStmts.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
	err := s.db.Close()
	if s.rdb != s.db {
		err = errors.Join(err, s.rdb.Close())
	}
	if s.pool != nil {
		s.pool.Close()
	}
	return err
}

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.rdb.PingContext(ctx) }

// Migrate applies pending migrations, each in its own transaction. On
// PostgreSQL a session lock lets several nodes start at once.
func (s *Store) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+s.dialect)
	if err != nil {
		return err
	}
	var opts []goose.ProviderOption
	dialect := goose.DialectSQLite3
	if s.dialect == SQLite {
		// Processes sharing the file (serve, a CLI command) take turns.
		unlock, err := lockFile(s.path + ".migrate-lock")
		if err != nil {
			return fmt.Errorf("store: migrate lock: %w", err)
		}
		defer unlock()
	}
	if s.dialect == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, s.db, sub, opts...)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// lockFile takes an exclusive advisory lock on path, waiting for it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// withTx runs fn in one write transaction.
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// isUniqueViolation reports whether err is a unique-constraint failure on
// either engine.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "SQLSTATE 23505") || isUniqueViolationPG(err)
}

// JobCounts reads the job queue's depth: jobs by kind, queue and state,
// with the oldest available job's wait past its scheduled time. It is
// read at each metrics scrape; the job table is indexed by state.
func (s *Store) JobCounts(ctx context.Context) ([]metrics.JobCount, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT kind, queue, state, COUNT(*),
		MIN(CASE WHEN state = 'available' THEN scheduled_at END) FROM river_job GROUP BY kind, queue, state`)
	if err != nil {
		return nil, fmt.Errorf("store: job counts: %w", err)
	}
	defer rows.Close()
	now := s.Now()
	var out []metrics.JobCount
	for rows.Next() {
		var c metrics.JobCount
		var oldest any
		if err := rows.Scan(&c.Kind, &c.Queue, &c.State, &c.Count, &oldest); err != nil {
			return nil, fmt.Errorf("store: job counts: %w", err)
		}
		if t, ok := jobTime(oldest); ok {
			c.OldestWait = max(now.Sub(t), 0)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// jobTime reads a timestamp of the job table as an aggregate returns it:
// a time on PostgreSQL, text (or a time) on SQLite.
func jobTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, true
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999"} {
			if p, err := time.Parse(layout, t); err == nil {
				return p, true
			}
		}
	}
	return time.Time{}, false
}
