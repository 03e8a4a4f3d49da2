package store

import (
	"context"
	"fmt"
	"testing"
)

// CountMatching counts rows of table in which any text column equals v.
func (s *Store) CountMatching(ctx context.Context, table, v string) (int, error) {
	var n int
	q := fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE id = $1 OR hash = $1 OR prefix = $1 OR name = $1`, table)
	err := s.rdb.QueryRowContext(ctx, q, v).Scan(&n)
	return n, err
}

// SmallBatches makes renewals and expiry rounds take a few rows at a time
// for the rest of the test.
func SmallBatches(t testing.TB, renew, expire int) {
	oldRenew, oldExpire := renewChunk, expireRound
	renewChunk, expireRound = renew, expire
	t.Cleanup(func() { renewChunk, expireRound = oldRenew, oldExpire })
}

// SmallPruneBatches makes PruneLogs delete n rows per statement for the
// rest of the test.
func SmallPruneBatches(t testing.TB, n int) {
	old := pruneBatch
	pruneBatch = n
	t.Cleanup(func() { pruneBatch = old })
}

// KeyCacheOn reports whether the key cache may serve now (on PostgreSQL:
// the listener is registered and its lease runs).
func (s *Store) KeyCacheOn() bool { return s.auth.source.current().ok }

// Exec runs a statement directly, around every cache.
func (s *Store) Exec(ctx context.Context, q string, args ...any) error {
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}

// Count runs a query that answers one number.
func (s *Store) Count(t testing.TB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
