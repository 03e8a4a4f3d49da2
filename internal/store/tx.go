package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tx is one write transaction that other parts of the service can join: the
// monitor runner writes a run, draws its credits and queues the jobs the run
// causes in one Tx, so a crash keeps all of them or none. On SQLite it wraps
// a *sql.Tx; on PostgreSQL a pgx.Tx, the transaction type of the job queue's
// driver. Raw returns the underlying transaction for the job queue.
type Tx interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	Raw() any
}

// Row is one result row.
type Row interface{ Scan(dest ...any) error }

// Rows is a result set; Close it.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// ErrNoRows is what Row.Scan answers on both engines when nothing matched.
var ErrNoRows = sql.ErrNoRows

// InTx runs fn in one write transaction and commits it when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx Tx) error) error {
	if s.pool != nil {
		ptx, err := s.pool.Begin(ctx)
		if err != nil {
			return fmt.Errorf("store: begin: %w", err)
		}
		defer ptx.Rollback(context.WithoutCancel(ctx))
		if err := fn(pgxTx{ptx}); err != nil {
			return err
		}
		if err := ptx.Commit(ctx); err != nil {
			return fmt.Errorf("store: commit: %w", err)
		}
		return nil
	}
	var missed []string
	err := s.withTx(ctx, func(tx *sql.Tx) error { return fn(sqlTx{tx: tx, s: s, missed: &missed}) })
	s.prepareMissed(ctx, missed)
	return err
}

// maxTxStmts bounds the statements kept prepared for SQLite transactions.
const maxTxStmts = 256

// prepareMissed prepares, on SQLite's single writer connection and outside
// any transaction (which holds that connection), the statements a
// transaction ran unprepared, so later transactions reuse them instead of
// compiling the same SQL on every call.
func (s *Store) prepareMissed(ctx context.Context, qs []string) {
	for _, q := range qs {
		if _, ok := s.txStmts.Load(q); ok || s.txStmtCount.Load() >= maxTxStmts {
			continue
		}
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			continue // the statement runs unprepared
		}
		if _, loaded := s.txStmts.LoadOrStore(q, st); loaded {
			st.Close()
		} else {
			s.txStmtCount.Add(1)
		}
	}
}

// Pool is the pgx pool on PostgreSQL (nil on SQLite), for the job queue.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// DB is the writer handle: on SQLite its single connection, for the job
// queue, which must queue behind the same writer.
func (s *Store) DB() *sql.DB { return s.db }

type sqlTx struct {
	tx     *sql.Tx
	s      *Store
	missed *[]string
}

// stmt is q prepared for this transaction, or nil when it is not prepared
// yet (it is noted, and prepared once the transaction ends).
func (t sqlTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if st, ok := t.s.txStmts.Load(q); ok {
		return t.tx.StmtContext(ctx, st.(*sql.Stmt))
	}
	*t.missed = append(*t.missed, q)
	return nil
}

func (t sqlTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st := t.stmt(ctx, q); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = t.tx.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t sqlTx) QueryRow(ctx context.Context, q string, args ...any) Row {
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

func (t sqlTx) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	var rows *sql.Rows
	var err error
	if st := t.stmt(ctx, q); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = t.tx.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (t sqlTx) Raw() any { return t.tx }

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type pgxTx struct{ tx pgx.Tx }

func (t pgxTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (t pgxTx) QueryRow(ctx context.Context, q string, args ...any) Row {
	return pgxRow{t.tx.QueryRow(ctx, q, args...)}
}

func (t pgxTx) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (t pgxTx) Raw() any { return t.tx }

type pgxRow struct{ row pgx.Row }

func (r pgxRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}

// isUniqueViolationPG reports a pgx unique-constraint failure.
func isUniqueViolationPG(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// AsyncCommit lets tx commit without waiting for the WAL flush on
// PostgreSQL (no-op on SQLite). Only for transactions that may be lost
// whole in a database crash without harm: a monitor run, whose bill and job
// state are in the same transaction, is then simply checked again.
func (s *Store) AsyncCommit(ctx context.Context, tx Tx) error {
	if s.dialect != Postgres {
		return nil
	}
	if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit TO OFF`); err != nil {
		return fmt.Errorf("store: async commit: %w", err)
	}
	return nil
}
