// Package jobs runs background work on River, the job engine, over the
// service's own database: SQLite through database/sql, PostgreSQL through
// pgx. Jobs are inserted in the same transaction as the rows that cause them
// (store.Tx), so a crash loses none; a job's completion can join that
// transaction too, so a retried job finds its work already committed.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"webacq/internal/store"
)

// Queue names.
const (
	QueueMonitor     = "monitor"          // monitor checks
	QueueMaintenance = river.QueueDefault // housekeeping
)

// Config tunes the client.
type Config struct {
	// Workers is how many monitor checks this node runs at once; 0 makes
	// the node insert jobs without working any (an API-only node).
	Workers int
	// RescueAfter is how long a job may stay running before River takes
	// its worker for dead and retries it elsewhere.
	RescueAfter time.Duration
	// JobTimeout bounds one job's run.
	JobTimeout time.Duration
	// Periodic are housekeeping jobs, run by whichever node leads.
	Periodic []*river.PeriodicJob
	// Queues are more queues this node works, each with its number of
	// jobs at once (the crawl jobs' queue), when Workers is not 0.
	Queues map[string]int
	// PollInterval is how often an idle node looks for jobs (SQLite has no
	// notifications, so it always polls; PostgreSQL polls as a fallback).
	PollInterval time.Duration
	Log          *slog.Logger
}

// Queue is the River client of one process.
type Queue struct {
	sqlite *river.Client[*sql.Tx]
	pg     *river.Client[pgx.Tx]
	work   bool
}

// Migrate brings River's tables up to date on the store's database.
func Migrate(ctx context.Context, st *store.Store) error {
	var err error
	if p := st.Pool(); p != nil {
		var m *rivermigrate.Migrator[pgx.Tx]
		if m, err = rivermigrate.New(riverpgxv5.New(p), &rivermigrate.Config{Logger: quiet()}); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	} else {
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riversqlite.New(st.DB()), &rivermigrate.Config{Logger: quiet()}); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	return nil
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// New builds the client; workers registers the job kinds this process runs.
func New(st *store.Store, workers *river.Workers, cfg Config) (*Queue, error) {
	log := cfg.Log
	if log == nil {
		log = quiet()
	}
	poll := cfg.PollInterval
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	rc := &river.Config{
		Logger:               slog.New(levelAtLeast{log.Handler(), slog.LevelWarn}),
		JobTimeout:           min(cfg.JobTimeout, cfg.RescueAfter),
		RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval:    poll,
		FetchCooldown:        min(poll/4, 20*time.Millisecond),
		MaxAttempts:          10,
	}
	q := &Queue{work: cfg.Workers > 0}
	if q.work {
		rc.Workers = workers
		rc.PeriodicJobs = cfg.Periodic
		rc.Queues = map[string]river.QueueConfig{
			QueueMonitor:     {MaxWorkers: cfg.Workers},
			QueueMaintenance: {MaxWorkers: 2},
		}
		for name, n := range cfg.Queues {
			rc.Queues[name] = river.QueueConfig{MaxWorkers: max(n, 1)}
		}
	}
	var err error
	if p := st.Pool(); p != nil {
		q.pg, err = river.NewClient(riverpgxv5.New(p), rc)
	} else {
		q.sqlite, err = river.NewClient(riversqlite.New(st.DB()), rc)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return q, nil
}

// Start starts working jobs (a no-op on an insert-only node).
func (q *Queue) Start(ctx context.Context) error {
	if !q.work {
		return nil
	}
	if q.pg != nil {
		return q.pg.Start(ctx)
	}
	return q.sqlite.Start(ctx)
}

// Stop lets running jobs finish (within ctx) and stops.
func (q *Queue) Stop(ctx context.Context) error {
	if !q.work {
		return nil
	}
	if q.pg != nil {
		return q.pg.Stop(ctx)
	}
	return q.sqlite.Stop(ctx)
}

// InsertTx queues a job in tx and returns its id. A unique job that already
// exists answers the existing one's id.
func (q *Queue) InsertTx(ctx context.Context, tx store.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	var res *rivertype.JobInsertResult
	var err error
	switch raw := tx.Raw().(type) {
	case pgx.Tx:
		res, err = q.pg.InsertTx(ctx, raw, args, opts)
	case *sql.Tx:
		res, err = q.sqlite.InsertTx(ctx, raw, args, opts)
	default:
		return 0, fmt.Errorf("jobs: unknown transaction %T", raw)
	}
	if err != nil {
		return 0, fmt.Errorf("jobs: insert %s: %w", args.Kind(), err)
	}
	return res.Job.ID, nil
}

// Insert queues a job in a transaction of its own.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error {
	var err error
	if q.pg != nil {
		_, err = q.pg.Insert(ctx, args, opts)
	} else {
		_, err = q.sqlite.Insert(ctx, args, opts)
	}
	if err != nil {
		return fmt.Errorf("jobs: insert %s: %w", args.Kind(), err)
	}
	return nil
}

// CancelTx cancels a queued job in tx; a job already finished or gone is
// not an error.
func (q *Queue) CancelTx(ctx context.Context, tx store.Tx, id int64) error {
	if id == 0 {
		return nil
	}
	var err error
	switch raw := tx.Raw().(type) {
	case pgx.Tx:
		_, err = q.pg.JobCancelTx(ctx, raw, id)
	case *sql.Tx:
		_, err = q.sqlite.JobCancelTx(ctx, raw, id)
	default:
		return fmt.Errorf("jobs: unknown transaction %T", raw)
	}
	if err != nil && !errors.Is(err, river.ErrNotFound) {
		return fmt.Errorf("jobs: cancel %d: %w", id, err)
	}
	return nil
}

// WakeTx makes a queued job available now, in tx, and reports whether it
// will run (false: there is no such job). A running job is left alone: it
// reads what tx changed when it records its work.
func (q *Queue) WakeTx(ctx context.Context, tx store.Tx, id int64) (bool, error) {
	if id == 0 {
		return false, nil
	}
	var err error
	switch raw := tx.Raw().(type) {
	case pgx.Tx:
		_, err = q.pg.JobRetryTx(ctx, raw, id)
	case *sql.Tx:
		_, err = q.sqlite.JobRetryTx(ctx, raw, id)
	default:
		return false, fmt.Errorf("jobs: unknown transaction %T", raw)
	}
	if errors.Is(err, river.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("jobs: wake %d: %w", id, err)
	}
	return true, nil
}

// CompleteTx marks the running job done in tx, from inside its worker: the
// job's effects and its completion commit together, so it never runs again
// after they are in.
func CompleteTx[T river.JobArgs](ctx context.Context, tx store.Tx, job *river.Job[T]) error {
	var err error
	switch raw := tx.Raw().(type) {
	case pgx.Tx:
		_, err = river.JobCompleteTx[*riverpgxv5.Driver](ctx, raw, job)
	case *sql.Tx:
		_, err = river.JobCompleteTx[*riversqlite.Driver](ctx, raw, job)
	default:
		return fmt.Errorf("jobs: unknown transaction %T", raw)
	}
	if err != nil {
		return fmt.Errorf("jobs: complete %d: %w", job.ID, err)
	}
	return nil
}

// levelAtLeast drops River's records below a level: its info lines are
// many and say nothing an operator needs.
type levelAtLeast struct {
	slog.Handler
	min slog.Level
}

func (h levelAtLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelAtLeast) WithAttrs(a []slog.Attr) slog.Handler {
	return levelAtLeast{h.Handler.WithAttrs(a), h.min}
}

func (h levelAtLeast) WithGroup(g string) slog.Handler {
	return levelAtLeast{h.Handler.WithGroup(g), h.min}
}
