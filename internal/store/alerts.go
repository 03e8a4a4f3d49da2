package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"webacq/internal/model"
)

// AlertSettings are a workspace's default alert channels besides the
// webhook (DECISIONS.md, Alert channels). SealedSlackURL is sealed with
// the workspace's secret box; "" and nil mean the channel is off.
type AlertSettings struct {
	SealedSlackURL string
	EmailTo        []string
	SMSTo          []string
}

// AlertSettings reads a workspace's default alert channels.
func (s *Store) AlertSettings(ctx context.Context, workspaceID string) (AlertSettings, error) {
	var slack, email, sms sql.NullString
	err := s.rdb.QueryRowContext(ctx, `SELECT alert_slack_url, alert_email_to, alert_sms_to FROM workspaces WHERE id = $1`,
		workspaceID).Scan(&slack, &email, &sms)
	if errors.Is(err, sql.ErrNoRows) {
		return AlertSettings{}, model.Errorf(model.CodeNotFound, "workspace not found")
	}
	if err != nil {
		return AlertSettings{}, fmt.Errorf("store: alert settings: %w", err)
	}
	a := AlertSettings{SealedSlackURL: slack.String}
	for _, f := range []struct {
		col sql.NullString
		to  *[]string
	}{{email, &a.EmailTo}, {sms, &a.SMSTo}} {
		if f.col.Valid {
			if err := json.Unmarshal([]byte(f.col.String), f.to); err != nil {
				return AlertSettings{}, fmt.Errorf("store: alert settings: %w", err)
			}
		}
	}
	return a, nil
}

// SetAlertSettings writes a workspace's default alert channels; empty
// fields are stored as NULL (off).
func (s *Store) SetAlertSettings(ctx context.Context, workspaceID string, a AlertSettings) error {
	list := func(l []string) any {
		if len(l) == 0 {
			return nil
		}
		return mustJSON(l)
	}
	_, err := s.db.ExecContext(ctx, `UPDATE workspaces SET alert_slack_url = $1, alert_email_to = $2, alert_sms_to = $3
		WHERE id = $4`, nullString(a.SealedSlackURL), list(a.EmailTo), list(a.SMSTo), workspaceID)
	if err != nil {
		return fmt.Errorf("store: set alert settings: %w", err)
	}
	return nil
}

// TakeQuota takes one of n units a window allows under name, shared by
// every node using this store, and reports whether it got one; when not,
// wait is how long until one frees. It is a generic cell rate: each unit
// moves the cell's theoretical time (rate_limits.next_at) window/n ahead,
// and a unit is refused when that time would pass now+window, so at most n
// units are taken in any span of one window, in bursts of up to n. One
// statement takes it, so concurrent callers on any node never overshoot.
func (s *Store) TakeQuota(ctx context.Context, name string, n int, window time.Duration) (ok bool, wait time.Duration, err error) {
	if n <= 0 {
		return false, window, nil
	}
	// The clock is read and the quota taken under one lock: a take whose
	// time was read before an earlier take's, but ran after it, would see
	// the quota one step fuller than it is (five parallel SMS alerts under
	// a cap of three sent two).
	s.quotaMu.Lock()
	defer s.quotaMu.Unlock()
	now := s.Now().UnixMicro()
	step, span := window.Microseconds()/int64(n), window.Microseconds()
	var next int64
	err = s.db.QueryRowContext(ctx, `INSERT INTO rate_limits (name, next_at) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET next_at = CASE WHEN rate_limits.next_at > $3 THEN rate_limits.next_at ELSE $3 END + $4
		WHERE CASE WHEN rate_limits.next_at > $3 THEN rate_limits.next_at ELSE $3 END + $4 <= $5
		RETURNING next_at`, name, now+step, now, step, now+span).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		w, err := s.QuotaWait(ctx, name, n, window)
		return false, w, err
	}
	if err != nil {
		return false, 0, fmt.Errorf("store: quota %s: %w", name, err)
	}
	return true, 0, nil
}

// QuotaWait is how long until a unit of TakeQuota's quota frees (0: one
// is free now), without taking it.
func (s *Store) QuotaWait(ctx context.Context, name string, n int, window time.Duration) (time.Duration, error) {
	if n <= 0 {
		return window, nil
	}
	var next int64
	err := s.rdb.QueryRowContext(ctx, `SELECT next_at FROM rate_limits WHERE name = $1`, name).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: quota %s: %w", name, err)
	}
	now := s.Now().UnixMicro()
	free := max(next, now) + window.Microseconds()/int64(n) - window.Microseconds() - now
	return time.Duration(max(free, 0)) * time.Microsecond, nil
}
