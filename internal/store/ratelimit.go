package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// TakeSlot reserves the next slot of a rate limit shared by every node
// using this store: at most one request per interval. It returns when the
// reserved slot begins, now or later; the caller waits until then. One
// statement reserves it, so concurrent callers on any node get distinct
// slots.
func (s *Store) TakeSlot(ctx context.Context, name string, interval time.Duration) (time.Time, error) {
	now := s.Now().UnixMicro()
	step := interval.Microseconds()
	var next int64
	err := s.db.QueryRowContext(ctx, `INSERT INTO rate_limits (name, next_at) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET next_at = CASE WHEN rate_limits.next_at > $3 THEN rate_limits.next_at + $4 ELSE $2 END
		RETURNING next_at`, name, now+step, now, step).Scan(&next)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: rate limit %s: %w", name, err)
	}
	return time.UnixMicro(next - step).UTC(), nil
}

// WaitSlot takes a slot of the limit and sleeps until it begins. A slot
// further away than maxWait answers an error at once (the slot is spent:
// the limit errs on the side of fewer requests).
func (s *Store) WaitSlot(ctx context.Context, name string, interval, maxWait time.Duration) error {
	at, err := s.TakeSlot(ctx, name, interval)
	if err != nil {
		return err
	}
	wait := time.Until(at)
	if wait <= 0 {
		return nil
	}
	if wait > maxWait {
		return fmt.Errorf("store: rate limit %s: the next slot is %s away", name, wait.Round(time.Millisecond))
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StartCall takes one of a workspace's limit slots for a crawl or an
// extract (DECISIONS, Rate limits: concurrent crawls/extracts), a lease
// that ends at now+ttl unless RenewCall extends it. It answers ok=false,
// taking nothing, when limit leases are already live. Every node shares
// the table; the workspace's row of request_windows (class "running")
// serialises the count and the insert, so two nodes cannot both take
// the last slot.
func (s *Store) StartCall(ctx context.Context, workspaceID, endpoint string, limit int, ttl time.Duration) (id string, running int, ok bool, err error) {
	now := s.Now()
	err = s.InTx(ctx, func(tx Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO request_windows (workspace_id, class, window_start, count) VALUES ($1, 'running', 0, 0)
			ON CONFLICT (workspace_id, class) DO UPDATE SET count = request_windows.count`, workspaceID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM running_calls WHERE workspace_id = $1 AND expires_at <= $2`, workspaceID, now.Unix()); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM running_calls WHERE workspace_id = $1`, workspaceID).Scan(&running); err != nil {
			return err
		}
		if running >= limit {
			return nil
		}
		id = uuid.NewString()
		if _, err := tx.Exec(ctx, `INSERT INTO running_calls (id, workspace_id, endpoint, expires_at) VALUES ($1, $2, $3, $4)`,
			id, workspaceID, endpoint, now.Add(ttl).Unix()); err != nil {
			return err
		}
		running++
		ok = true
		return nil
	})
	if err != nil {
		return "", 0, false, fmt.Errorf("store: start call: %w", err)
	}
	return id, running, ok, nil
}

// RenewCall extends a running call's lease to now+ttl.
func (s *Store) RenewCall(ctx context.Context, id string, ttl time.Duration) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE running_calls SET expires_at = $1 WHERE id = $2`, s.Now().Add(ttl).Unix(), id); err != nil {
		return fmt.Errorf("store: renew call: %w", err)
	}
	return nil
}

// EndCall frees a running call's slot.
func (s *Store) EndCall(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM running_calls WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: end call: %w", err)
	}
	return nil
}
