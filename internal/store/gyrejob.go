package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"webacq/internal/model"
)

// States of an asynchronous crawl (DECISIONS, Async gyre).
const (
	GyreQueued    = "queued"
	GyreRunning   = "running"
	GyreCompleted = "completed"
	GyreCancelled = "cancelled"
	GyreFailed    = "failed"
)

// GyreJob is an asynchronous crawl. Held is what it drew from the
// workspace when it was queued; once Status is final, CreditsUsed of it
// were kept and the rest refunded.
type GyreJob struct {
	ID          string
	WorkspaceID string
	KeyPrefix   string
	Status      string
	Request     []byte // the normalised request, as JSON
	Held        int64
	CreditsUsed int64
	Errors      []byte // JSON array of the crawl's errors, set when it ends
	RequestID   string
	Via         string // model.ViaHTTP or model.ViaMCP: how it was queued
	RiverJobID  int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	FinishedAt  *time.Time
	// Pages is how many pages are saved and Spent their prices (read
	// with the job).
	Pages int
	Spent int64
	// MaxPageCredits is the price of the dearest page saved (set by
	// EndGyreJobTx): it tells the tier that did the work.
	MaxPageCredits int64
}

// Final reports whether the job has ended.
func (j *GyreJob) Final() bool { return j.Status != GyreQueued && j.Status != GyreRunning }

// GyreJobPage is one page a job saved. Page, Keys and Links are JSON.
type GyreJobPage struct {
	Seq     int
	URLKey  string
	Credits int64
	Depth   int
	Page    []byte
	Keys    []byte
	Links   []byte
}

// InsertGyreJob writes a queued job in tx (with its hold drawn and its
// River job inserted in the same tx by the caller).
func (s *Store) InsertGyreJob(ctx context.Context, tx Tx, j *GyreJob) error {
	_, err := tx.Exec(ctx, `INSERT INTO gyre_jobs (id, workspace_id, key_prefix, status, request, held, request_id,
		via, river_job_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
		j.ID, j.WorkspaceID, j.KeyPrefix, j.Status, string(j.Request), j.Held, j.RequestID, j.Via, j.RiverJobID, j.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert gyre job: %w", err)
	}
	return nil
}

// GyreJob reads a job of a workspace (workspaceID empty: any), with the
// count of its pages; not_found when there is none.
func (s *Store) GyreJob(ctx context.Context, workspaceID, id string) (*GyreJob, error) {
	var j GyreJob
	var req, errs string
	var fin sql.NullTime
	err := s.rdb.QueryRowContext(ctx, `SELECT id, workspace_id, key_prefix, status, request, held, credits_used, errors,
		request_id, via, river_job_id, created_at, updated_at, finished_at,
		(SELECT COUNT(*) FROM gyre_job_pages WHERE job_id = gyre_jobs.id),
		(SELECT COALESCE(SUM(credits), 0) FROM gyre_job_pages WHERE job_id = gyre_jobs.id)
		FROM gyre_jobs WHERE id = $1`, id).Scan(&j.ID, &j.WorkspaceID, &j.KeyPrefix, &j.Status, &req, &j.Held,
		&j.CreditsUsed, &errs, &j.RequestID, &j.Via, &j.RiverJobID, &j.CreatedAt, &j.UpdatedAt, &fin, &j.Pages, &j.Spent)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && workspaceID != "" && j.WorkspaceID != workspaceID) {
		return nil, model.Errorf(model.CodeNotFound, "no crawl job %q in this workspace", id)
	}
	if err != nil {
		return nil, fmt.Errorf("store: gyre job: %w", err)
	}
	j.Request, j.Errors = []byte(req), []byte(errs)
	if fin.Valid {
		t := fin.Time
		j.FinishedAt = &t
	}
	return &j, nil
}

// GyreJobPages lists up to limit pages of a job after seq `after` (-1: from
// the first), in the order the job took them; limit 0 lists them all.
func (s *Store) GyreJobPages(ctx context.Context, jobID string, after, limit int) ([]GyreJobPage, error) {
	q := `SELECT seq, url_key, credits, depth, page, keys, links FROM gyre_job_pages WHERE job_id = $1 AND seq > $2 ORDER BY seq`
	args := []any{jobID, after}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, limit)
	}
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: gyre job pages: %w", err)
	}
	defer rows.Close()
	var out []GyreJobPage
	for rows.Next() {
		var p GyreJobPage
		var page, keys, links string
		if err := rows.Scan(&p.Seq, &p.URLKey, &p.Credits, &p.Depth, &page, &keys, &links); err != nil {
			return nil, fmt.Errorf("store: gyre job pages: %w", err)
		}
		p.Page, p.Keys, p.Links = []byte(page), []byte(keys), []byte(links)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: gyre job pages: %w", err)
	}
	return out, nil
}

// StartGyreJob marks a queued or running job running (a job resumed after
// its worker died is running already) and reports whether it may run: a
// job that has ended must not.
func (s *Store) StartGyreJob(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE gyre_jobs SET status = $2, updated_at = $3 WHERE id = $1 AND status IN ($4, $2)`,
		id, GyreRunning, s.Now().UTC(), GyreQueued)
	if err != nil {
		return false, fmt.Errorf("store: start gyre job: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SaveGyreJobPage saves a page of a running job and reports whether it was
// saved: not when the job has ended (a cancelled job bills no page taken
// after the cancel), already holds maxPages pages, or holds the page
// already (a resumed job bills each page once). The page is billed when
// the job is settled, as one of its saved pages.
func (s *Store) SaveGyreJobPage(ctx context.Context, jobID string, maxPages int, p *GyreJobPage) (bool, error) {
	saved := false
	err := s.InTx(ctx, func(tx Tx) error {
		lock := ""
		if s.dialect == Postgres {
			// Settling updates the row: it waits for this page to commit
			// or sees the job ended.
			lock = " FOR SHARE"
		}
		var status string
		var n int
		err := tx.QueryRow(ctx, `SELECT status FROM gyre_jobs WHERE id = $1`+lock, jobID).Scan(&status)
		if errors.Is(err, ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if status != GyreRunning {
			return nil
		}
		if err := tx.QueryRow(ctx, `SELECT COUNT(*), COALESCE(MAX(seq), -1) FROM gyre_job_pages WHERE job_id = $1`, jobID).
			Scan(&n, &p.Seq); err != nil {
			return err
		}
		if n >= maxPages {
			return nil
		}
		p.Seq++
		k, err := tx.Exec(ctx, `INSERT INTO gyre_job_pages (job_id, seq, url_key, credits, depth, page, keys, links)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
			jobID, p.Seq, p.URLKey, p.Credits, p.Depth, string(p.Page), string(p.Keys), string(p.Links))
		if err != nil {
			return err
		}
		saved = k == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: save gyre job page: %w", err)
	}
	return saved, nil
}

// EndGyreJobTx ends a queued or running job in tx with status and the
// crawl's errors (JSON), and returns it with CreditsUsed the sum of its
// saved pages' prices; nil when it had ended already, so that a job is
// settled once whoever ends it (its worker, a cancel, a second worker).
// The caller refunds Held and draws CreditsUsed in tx (billing).
func (s *Store) EndGyreJobTx(ctx context.Context, tx Tx, id, status string, errs []byte) (*GyreJob, error) {
	now := s.Now().UTC()
	var j GyreJob
	var req string
	// The update comes first: on PostgreSQL it waits for pages being saved
	// (SaveGyreJobPage locks the row), and the sum below, a statement of
	// its own, sees them.
	err := tx.QueryRow(ctx, `UPDATE gyre_jobs SET status = $2, updated_at = $3, finished_at = $3
		WHERE id = $1 AND status IN ($4, $5) RETURNING id, workspace_id, key_prefix, request, held, request_id, via, river_job_id, created_at`,
		id, status, now, GyreQueued, GyreRunning).
		Scan(&j.ID, &j.WorkspaceID, &j.KeyPrefix, &req, &j.Held, &j.RequestID, &j.Via, &j.RiverJobID, &j.CreatedAt)
	if errors.Is(err, ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: end gyre job: %w", err)
	}
	if err := tx.QueryRow(ctx, `SELECT COALESCE(SUM(credits), 0), COUNT(*), COALESCE(MAX(credits), 0) FROM gyre_job_pages
		WHERE job_id = $1`, id).Scan(&j.CreditsUsed, &j.Pages, &j.MaxPageCredits); err != nil {
		return nil, fmt.Errorf("store: end gyre job: %w", err)
	}
	j.CreditsUsed = min(j.CreditsUsed, j.Held)
	j.Spent = j.CreditsUsed
	if errs == nil {
		errs = []byte("[]")
	}
	if _, err := tx.Exec(ctx, `UPDATE gyre_jobs SET credits_used = $2, errors = $3 WHERE id = $1`,
		id, j.CreditsUsed, string(errs)); err != nil {
		return nil, fmt.Errorf("store: end gyre job: %w", err)
	}
	j.Status, j.Request, j.Errors, j.UpdatedAt, j.FinishedAt = status, []byte(req), errs, now, &now
	return &j, nil
}

// RefundTx gives n credits back to a workspace in tx.
func (s *Store) RefundTx(ctx context.Context, tx Tx, workspaceID string, n int64) error {
	if n <= 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE workspaces SET credits = credits + $1 WHERE id = $2`, n, workspaceID); err != nil {
		return fmt.Errorf("store: refund: %w", err)
	}
	return nil
}

// PruneGyreJobs deletes the jobs that ended before cutoff, with their
// pages (kept for the page retention period).
func (s *Store) PruneGyreJobs(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := s.InTx(ctx, func(tx Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM gyre_job_pages WHERE job_id IN
			(SELECT id FROM gyre_jobs WHERE finished_at IS NOT NULL AND finished_at < $1)`, cutoff); err != nil {
			return err
		}
		var err error
		n, err = tx.Exec(ctx, `DELETE FROM gyre_jobs WHERE finished_at IS NOT NULL AND finished_at < $1`, cutoff)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune gyre jobs: %w", err)
	}
	return n, nil
}

// StrandedGyreJobs returns the ids of up to limit crawl jobs queued or
// running, not updated since before, whose River job will not run again:
// it is completed, cancelled or discarded (River discards the job of a
// node that died during its last attempt), or gone. Oldest first.
func (s *Store) StrandedGyreJobs(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(`SELECT g.id FROM gyre_jobs g LEFT JOIN river_job j ON j.id = g.river_job_id
		WHERE g.finished_at IS NULL AND g.status IN ($2, $3) AND g.updated_at < $1
		AND (j.id IS NULL OR j.state IN ('completed', 'cancelled', 'discarded'))
		ORDER BY g.created_at, g.id LIMIT %d`, limit), before, GyreQueued, GyreRunning)
	if err != nil {
		return nil, fmt.Errorf("store: stranded crawl jobs: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: stranded crawl jobs: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
