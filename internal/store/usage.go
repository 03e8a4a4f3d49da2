package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"webacq/internal/model"
)

// MaxLogLimit caps one page of usage or activity rows.
const MaxLogLimit = 1000

// logQuery builds the WHERE clause shared by usage and activity listings.
func logQuery(workspaceID string, f model.LogFilter) (string, []any) {
	var w strings.Builder
	args := []any{workspaceID}
	w.WriteString(` WHERE workspace_id = $1`)
	add := func(cond string, v any) {
		args = append(args, v)
		w.WriteString(" AND " + cond + " $" + strconv.Itoa(len(args)))
	}
	if f.KeyPrefix != "" {
		add("key_prefix =", f.KeyPrefix)
	}
	if f.Endpoint != "" {
		add("endpoint =", f.Endpoint)
	}
	if !f.Since.IsZero() {
		add("created_at >=", f.Since.UTC())
	}
	switch {
	case !f.Before.IsZero() && f.BeforeID > 0:
		args = append(args, f.Before.UTC(), f.BeforeID)
		n := len(args)
		fmt.Fprintf(&w, " AND (created_at < $%d OR (created_at = $%d AND id < $%d))", n-1, n-1, n)
	case !f.Before.IsZero():
		add("created_at <", f.Before.UTC())
	}
	limit := f.Limit
	if limit <= 0 || limit > MaxLogLimit {
		limit = MaxLogLimit
	}
	w.WriteString(` ORDER BY created_at DESC, id DESC LIMIT ` + strconv.Itoa(limit))
	return w.String(), args
}

// Usage lists a workspace's credit ledger, newest first.
func (s *Store) Usage(ctx context.Context, workspaceID string, f model.LogFilter) ([]model.Usage, error) {
	where, args := logQuery(workspaceID, f)
	rows, err := s.rdb.QueryContext(ctx,
		`SELECT id, workspace_id, key_prefix, endpoint, credits, tier, status, duration_ms, request_id, created_at FROM usage_log`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: usage: %w", err)
	}
	defer rows.Close()
	out := []model.Usage{}
	for rows.Next() {
		var u model.Usage
		if err := rows.Scan(&u.ID, &u.WorkspaceID, &u.KeyPrefix, &u.Endpoint, &u.Credits, &u.Tier, &u.Status,
			&u.DurationMS, &u.RequestID, &u.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: usage: %w", err)
		}
		u.CreatedAt = u.CreatedAt.UTC()
		out = append(out, u)
	}
	return out, rows.Err()
}

// Activity lists a workspace's audit trail, newest first.
func (s *Store) Activity(ctx context.Context, workspaceID string, f model.LogFilter) ([]model.Activity, error) {
	where, args := logQuery(workspaceID, f)
	rows, err := s.rdb.QueryContext(ctx,
		`SELECT id, workspace_id, key_prefix, endpoint, via, method, target, status, error_code, credits, request_id, created_at FROM activity_log`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: activity: %w", err)
	}
	defer rows.Close()
	out := []model.Activity{}
	for rows.Next() {
		var a model.Activity
		if err := rows.Scan(&a.ID, &a.WorkspaceID, &a.KeyPrefix, &a.Endpoint, &a.Via, &a.Method, &a.Target, &a.Status,
			&a.ErrorCode, &a.Credits, &a.RequestID, &a.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: activity: %w", err)
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

// Credits answers a workspace's balance and what it spent lately.
func (s *Store) Credits(ctx context.Context, workspaceID string) (*model.CreditSummary, error) {
	now := s.Now()
	var c model.CreditSummary
	err := s.rdb.QueryRowContext(ctx, `SELECT credits,
		COALESCE((SELECT CAST(SUM(credits) AS BIGINT) FROM usage_log WHERE workspace_id = $1 AND created_at >= $2), 0),
		COALESCE((SELECT CAST(SUM(credits) AS BIGINT) FROM usage_log WHERE workspace_id = $1 AND created_at >= $3), 0)
		FROM workspaces WHERE id = $1`, workspaceID, now.Add(-24*time.Hour), now.Add(-30*24*time.Hour)).
		Scan(&c.Balance, &c.Spent24h, &c.Spent30d)
	if err != nil {
		return nil, fmt.Errorf("store: credits: %w", err)
	}
	return &c, nil
}

// pruneBatch is how many log rows one pruning statement deletes: SQLite has
// one writer, and a year of health checks deleted in one transaction would
// hold it for seconds.
var pruneBatch = 5000

// PruneLogs deletes activity rows created before cutoff, and usage rows
// created before it that drew no credits. Usage rows that drew credits are
// the ledger (balance and spending add up from them) and are kept whatever
// their age.
func (s *Store) PruneLogs(ctx context.Context, cutoff time.Time) (usage, activity int64, err error) {
	cutoff = cutoff.UTC()
	del := func(q string) (int64, error) {
		var total int64
		for {
			res, err := s.db.ExecContext(ctx, q, cutoff, pruneBatch)
			if err != nil {
				return total, err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return total, err
			}
			total += n
			if n < int64(pruneBatch) {
				return total, nil
			}
		}
	}
	if usage, err = del(`DELETE FROM usage_log WHERE id IN
		(SELECT id FROM usage_log WHERE credits = 0 AND created_at < $1 LIMIT $2)`); err != nil {
		return usage, 0, fmt.Errorf("store: prune usage: %w", err)
	}
	if activity, err = del(`DELETE FROM activity_log WHERE id IN
		(SELECT id FROM activity_log WHERE created_at < $1 LIMIT $2)`); err != nil {
		return usage, activity, fmt.Errorf("store: prune activity: %w", err)
	}
	return usage, activity, nil
}
