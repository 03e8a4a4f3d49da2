package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"webacq/internal/model"
)

// DailyCredits is what a workspace's calls drew on one UTC day.
type DailyCredits struct {
	Day     time.Time
	Credits int64
	Calls   int64
}

// CreditsPerDay sums a workspace's usage rows per UTC day, oldest first,
// with the filter's key prefix, endpoint, since and before (its limit is
// ignored); days without calls are left out.
func (s *Store) CreditsPerDay(ctx context.Context, workspaceID string, f model.LogFilter) ([]DailyCredits, error) {
	var w strings.Builder
	args := []any{workspaceID}
	w.WriteString(`WHERE workspace_id = $1`)
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
	if !f.Before.IsZero() {
		add("created_at <", f.Before.UTC())
	}
	// Times are stored in UTC: on SQLite as text that starts with the date.
	day := `substr(created_at, 1, 10)`
	if s.dialect == Postgres {
		day = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+day+` AS day, CAST(SUM(credits) AS BIGINT), COUNT(*) FROM usage_log `+
		w.String()+` GROUP BY day ORDER BY day`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: credits per day: %w", err)
	}
	defer rows.Close()
	var out []DailyCredits
	for rows.Next() {
		var d DailyCredits
		var day string
		if err := rows.Scan(&day, &d.Credits, &d.Calls); err != nil {
			return nil, fmt.Errorf("store: credits per day: %w", err)
		}
		if d.Day, err = time.Parse(time.DateOnly, day); err != nil {
			return nil, fmt.Errorf("store: credits per day: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// RunDeliveries lists the deliveries of one run (the webhook, then the
// other channels), with their attempts.
func (s *Store) RunDeliveries(ctx context.Context, runID string) ([]*model.Delivery, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE run_id = $1
		ORDER BY CASE kind WHEN 'webhook' THEN 0 ELSE 1 END, created_at, id`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: run deliveries: %w", err)
	}
	var out []*model.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: run deliveries: %w", err)
	}
	for _, d := range out {
		if d.Log, err = s.attempts(ctx, d.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}
