package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"webacq/internal/model"
)

// CreateWorkspace inserts a workspace; a taken name is a conflict.
func (s *Store) CreateWorkspace(ctx context.Context, name string, credits int64, monitoring bool) (*model.Workspace, error) {
	if name == "" {
		return nil, model.Errorf(model.CodeBadRequest, "workspace name is required")
	}
	if credits < 0 {
		return nil, model.Errorf(model.CodeBadRequest, "credits must not be negative")
	}
	w := &model.Workspace{ID: uuid.NewString(), Name: name, Credits: credits, Monitoring: monitoring, CreatedAt: s.Now()}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO workspaces (id, name, credits, monitoring, created_at) VALUES ($1, $2, $3, $4, $5)`,
		w.ID, w.Name, w.Credits, w.Monitoring, w.CreatedAt)
	if isUniqueViolation(err) {
		return nil, model.Errorf(model.CodeConflict, "workspace %q already exists", name)
	}
	if err != nil {
		return nil, fmt.Errorf("store: create workspace: %w", err)
	}
	return w, nil
}

// Bootstrap creates workspace "default" with a key when the database holds no
// workspace at all, and returns that key's plaintext. It returns "" when
// there was something already. Safe when several nodes start at once.
func (s *Store) Bootstrap(ctx context.Context, credits int64) (key string, err error) {
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM workspaces`).Scan(&n); err != nil {
			return fmt.Errorf("store: count workspaces: %w", err)
		}
		if n > 0 {
			return nil
		}
		id := uuid.NewString()
		var got string
		err := tx.QueryRowContext(ctx,
			`INSERT INTO workspaces (id, name, credits, monitoring, created_at) VALUES ($1, 'default', $2, $3, $4)
			 ON CONFLICT (name) DO NOTHING RETURNING id`, id, credits, true, s.Now()).Scan(&got)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: bootstrap workspace: %w", err)
		}
		key, _, err = insertKey(ctx, tx, s.Now(), id, "bootstrap")
		return err
	})
	return key, err
}

// WorkspaceByName finds a workspace by its name.
func (s *Store) WorkspaceByName(ctx context.Context, name string) (*model.Workspace, error) {
	return s.findWorkspace(ctx, `WHERE name = $1`, name)
}

// Workspace finds a workspace by id.
func (s *Store) Workspace(ctx context.Context, id string) (*model.Workspace, error) {
	return s.findWorkspace(ctx, `WHERE id = $1`, id)
}

func (s *Store) findWorkspace(ctx context.Context, where string, arg any) (*model.Workspace, error) {
	var w model.Workspace
	err := s.rdb.QueryRowContext(ctx,
		`SELECT id, name, credits, monitoring, created_at, rate_rpm, rate_concurrent FROM workspaces `+where, arg).
		Scan(&w.ID, &w.Name, &w.Credits, &w.Monitoring, &w.CreatedAt, &w.RPM, &w.Concurrent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeNotFound, "workspace %v not found", arg)
	}
	if err != nil {
		return nil, fmt.Errorf("store: find workspace: %w", err)
	}
	return &w, nil
}

// Workspaces lists every workspace by name.
func (s *Store) Workspaces(ctx context.Context) ([]model.Workspace, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, name, credits, monitoring, created_at FROM workspaces ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: list workspaces: %w", err)
	}
	defer rows.Close()
	var out []model.Workspace
	for rows.Next() {
		var w model.Workspace
		if err := rows.Scan(&w.ID, &w.Name, &w.Credits, &w.Monitoring, &w.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: list workspaces: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// SetMonitoring turns the monitoring entitlement of a workspace on or off.
func (s *Store) SetMonitoring(ctx context.Context, workspaceID string, on bool) error {
	return s.changeAuth(ctx, func(ex execer) error {
		res, err := ex.ExecContext(ctx, `UPDATE workspaces SET monitoring = $1 WHERE id = $2`, on, workspaceID)
		return oneRow(res, err, "workspace")
	})
}

func oneRow(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("store: update %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: update %s: %w", what, err)
	}
	if n == 0 {
		return model.Errorf(model.CodeNotFound, "%s not found", what)
	}
	return nil
}

// SetRateLimits sets a workspace's requests per minute per class and its
// crawls/extracts at once; nil leaves a setting as it is.
func (s *Store) SetRateLimits(ctx context.Context, workspaceID string, rpm, concurrent *int) error {
	for _, set := range []struct {
		v   *int
		col string
	}{{rpm, "rate_rpm"}, {concurrent, "rate_concurrent"}} {
		if set.v == nil {
			continue
		}
		if *set.v < 1 || *set.v > 1_000_000 {
			return model.Errorf(model.CodeBadRequest, "%s must be a whole number from 1 to 1000000", strings.TrimPrefix(set.col, "rate_"))
		}
		err := s.changeAuth(ctx, func(ex execer) error {
			res, err := ex.ExecContext(ctx, `UPDATE workspaces SET `+set.col+` = $1 WHERE id = $2`, *set.v, workspaceID)
			return oneRow(res, err, "workspace")
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// CountRequest counts one request of a workspace's class in the current
// minute and returns the count so far and the minute's end. One statement
// on the database every node shares, so N nodes enforce one limit. A
// node whose clock is behind counts into the newer minute.
func (s *Store) CountRequest(ctx context.Context, workspaceID, class string) (count int, reset time.Time, err error) {
	window := s.Now().Truncate(time.Minute)
	if s.dialect == SQLite {
		return s.countInProcess(ctx, workspaceID, class, window)
	}
	var start int64
	err = s.db.QueryRowContext(ctx, `INSERT INTO request_windows (workspace_id, class, window_start, count) VALUES ($1, $2, $3, 1)
		ON CONFLICT (workspace_id, class) DO UPDATE SET
		count = CASE WHEN request_windows.window_start >= $3 THEN request_windows.count + 1 ELSE 1 END,
		window_start = CASE WHEN request_windows.window_start >= $3 THEN request_windows.window_start ELSE $3 END
		RETURNING count, window_start`, workspaceID, class, window.Unix()).Scan(&count, &start)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("store: count request: %w", err)
	}
	return count, time.Unix(start, 0).UTC().Add(time.Minute), nil
}

// SetCredits sets a workspace's balance to n (not below zero) and returns it.
func (s *Store) SetCredits(ctx context.Context, workspaceID string, n int64) (int64, error) {
	if n < 0 {
		return 0, model.Errorf(model.CodeBadRequest, "credits must not be negative")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE workspaces SET credits = $1 WHERE id = $2`, n, workspaceID)
	if err := oneRow(res, err, "workspace"); err != nil {
		return 0, err
	}
	return n, nil
}

// countInProcess is CountRequest on SQLite. One process serves a SQLite
// file, so the count it keeps in memory is the count, and it spares each
// counted request a write transaction on the one writer (a tenth of fetch
// throughput, bench/load). The state is still the database's: the row of
// each workspace and class is read when this process first counts it
// (a restart resumes the minute) and written back at most once a second.
func (s *Store) countInProcess(ctx context.Context, workspaceID, class string, window time.Time) (int, time.Time, error) {
	k := [2]string{workspaceID, class}
	if !s.windows.known(k) {
		var start int64
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT window_start, count FROM request_windows WHERE workspace_id = $1 AND class = $2`,
			workspaceID, class).Scan(&start, &n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, time.Time{}, fmt.Errorf("store: count request: %w", err)
		}
		s.windows.load(k, time.Unix(start, 0).UTC(), n)
	}
	n, start, persist := s.windows.count(k, window, s.Now())
	if persist {
		_, err := s.db.ExecContext(ctx, `INSERT INTO request_windows (workspace_id, class, window_start, count) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, class) DO UPDATE SET
			count = CASE WHEN request_windows.window_start = excluded.window_start THEN max(request_windows.count, excluded.count) ELSE excluded.count END,
			window_start = excluded.window_start`, workspaceID, class, start.Unix(), n)
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("store: count request: %w", err)
		}
	}
	return n, start.Add(time.Minute), nil
}

// windowPersistEvery is how often countInProcess writes a count back.
const windowPersistEvery = time.Second

// requestWindows counts requests per workspace, class and minute in
// memory (SQLite: one serving process).
type requestWindows struct {
	mu sync.Mutex
	m  map[[2]string]requestWindow
}

type requestWindow struct {
	start     time.Time
	n         int
	persisted time.Time // when the count was last written back
}

func (w *requestWindows) known(k [2]string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.m[k]
	return ok
}

// load sets a key's window from the database unless this process counts
// it already.
func (w *requestWindows) load(k [2]string, start time.Time, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[[2]string]requestWindow{}
	}
	if _, ok := w.m[k]; !ok {
		w.m[k] = requestWindow{start: start, n: n}
	}
}

// count adds one request in window and returns the count, its window's
// start and whether to write it back now; a window older than the one kept
// counts into the newer (as the database's upsert does).
func (w *requestWindows) count(k [2]string, window, now time.Time) (int, time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[[2]string]requestWindow{}
	}
	cur := w.m[k]
	if window.After(cur.start) {
		// A new minute: forget the keys whose minute ended (the map holds
		// about the workspaces active in the last minute).
		if len(w.m) > 1024 {
			for key, v := range w.m {
				if v.start.Before(window) {
					delete(w.m, key)
				}
			}
		}
		cur = requestWindow{start: window, persisted: cur.persisted}
	}
	cur.n++
	persist := now.Sub(cur.persisted) >= windowPersistEvery
	if persist {
		cur.persisted = now
	}
	w.m[k] = cur
	return cur.n, cur.start, persist
}
