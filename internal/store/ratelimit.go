package store

import (
	"context"
	"fmt"
	"time"
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
