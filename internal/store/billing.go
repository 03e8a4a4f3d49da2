package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"webacq/internal/model"
)

// Reservation is credits held by a call in flight.
type Reservation struct {
	ID          string
	WorkspaceID string
	Credits     int64
}

// Reserve draws credits from a workspace before work starts: the balance is
// checked and decremented in one statement, so it never goes below zero
// under any concurrency. The hold is recorded in the same transaction and
// expires after ttl unless its holder renews it (RenewReservations); an
// expired hold, whose holder died before settling, is refunded by
// ExpireReservations.
func (s *Store) Reserve(ctx context.Context, workspaceID string, credits int64, ttl time.Duration) (*Reservation, error) {
	r := &Reservation{WorkspaceID: workspaceID, Credits: credits}
	if credits <= 0 {
		r.Credits = 0
		return r, nil
	}
	r.ID = uuid.NewString()
	now := s.Now()
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE workspaces SET credits = credits - $1 WHERE id = $2 AND credits >= $1`, credits, workspaceID)
		if err != nil {
			return fmt.Errorf("store: reserve: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("store: reserve: %w", err)
		} else if n == 0 {
			return model.Errorf(model.CodeCreditsExhausted, "not enough credits: this call needs %d", credits)
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO reservations (id, workspace_id, credits, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
			r.ID, workspaceID, credits, now, now.Add(ttl))
		if err != nil {
			return fmt.Errorf("store: reserve: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Settle ends a reservation in one transaction: it keeps used credits,
// refunds the rest, and writes the usage and activity rows of the call with
// the credits actually drawn. If the reservation had already expired and
// been refunded, the used credits are drawn again when the balance allows.
// A non-empty keyID marks that key used.
func (s *Store) Settle(ctx context.Context, r *Reservation, used int64, u *model.Usage, a *model.Activity, keyID string) error {
	used = max(0, min(used, r.Credits))
	return s.withTx(ctx, func(tx *sql.Tx) error {
		if keyID != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`, u.CreatedAt, keyID); err != nil {
				return fmt.Errorf("store: mark key used: %w", err)
			}
		}
		drawn := used
		if r.ID != "" {
			res, err := tx.ExecContext(ctx, `DELETE FROM reservations WHERE id = $1`, r.ID)
			if err != nil {
				return fmt.Errorf("store: settle: %w", err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("store: settle: %w", err)
			}
			switch {
			case n == 1 && r.Credits > used:
				if _, err := tx.ExecContext(ctx, `UPDATE workspaces SET credits = credits + $1 WHERE id = $2`,
					r.Credits-used, r.WorkspaceID); err != nil {
					return fmt.Errorf("store: settle refund: %w", err)
				}
			case n == 0 && used > 0:
				res, err := tx.ExecContext(ctx,
					`UPDATE workspaces SET credits = credits - $1 WHERE id = $2 AND credits >= $1`, used, r.WorkspaceID)
				if err != nil {
					return fmt.Errorf("store: settle redraw: %w", err)
				}
				if n, _ := res.RowsAffected(); n == 0 {
					drawn = 0
				}
			}
		}
		u.Credits, a.Credits = drawn, drawn
		return s.insertLogs(ctx, tx, []model.Usage{*u}, []model.Activity{*a})
	})
}

// RenewReservations moves the expiry of the given holds to ttl from now:
// their calls are still running, so no node may refund them. Holds already
// settled or expired are left alone (a late Settle draws again).
func (s *Store) RenewReservations(ctx context.Context, ids []string, ttl time.Duration) error {
	until := s.Now().Add(ttl)
	for len(ids) > 0 {
		n := min(len(ids), renewChunk)
		var q strings.Builder
		q.WriteString(`UPDATE reservations SET expires_at = $1 WHERE id IN (`)
		args := make([]any, 0, n+1)
		args = append(args, until)
		for i, id := range ids[:n] {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("$" + strconv.Itoa(i+2))
			args = append(args, id)
		}
		q.WriteByte(')')
		if _, err := s.db.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("store: renew reservations: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

// ExpireReservations refunds reservations whose holder never settled them
// (a crashed node) and returns how many it refunded. Each is deleted and
// refunded in one transaction, so a late Settle and this never both refund.
func (s *Store) ExpireReservations(ctx context.Context) (int, error) {
	refunded := 0
	for {
		n, more, err := s.expireBatch(ctx)
		refunded += n
		if err != nil || !more {
			return refunded, err
		}
	}
}

// Sizes of the statements on many reservations; variables so that tests can
// cross their bounds with few rows.
var (
	// renewChunk keeps a renewal well under both engines' parameter limits.
	renewChunk = 500
	// expireRound is how many expired holds one round lists.
	expireRound = 1000
)

// expireBatch refunds up to expireRound expired reservations; more reports
// that there may be others.
func (s *Store) expireBatch(ctx context.Context) (refunded int, more bool, err error) {
	batch := expireRound
	now := s.Now()
	rows, err := s.rdb.QueryContext(ctx, `SELECT id FROM reservations WHERE expires_at < $1 LIMIT $2`, now, batch)
	if err != nil {
		return 0, false, fmt.Errorf("store: expired reservations: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("store: expired reservations: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("store: expired reservations: %w", err)
	}
	for _, id := range ids {
		err := s.withTx(ctx, func(tx *sql.Tx) error {
			var ws string
			var credits int64
			// Expiry is checked again: the holder may have renewed the hold
			// since it was listed.
			err := tx.QueryRowContext(ctx,
				`DELETE FROM reservations WHERE id = $1 AND expires_at < $2 RETURNING workspace_id, credits`, id, now).
				Scan(&ws, &credits)
			if errors.Is(err, sql.ErrNoRows) {
				return nil // settled or renewed meanwhile
			}
			if err != nil {
				return err
			}
			refunded++
			_, err = tx.ExecContext(ctx, `UPDATE workspaces SET credits = credits + $1 WHERE id = $2`, credits, ws)
			return err
		})
		if err != nil {
			return refunded, false, fmt.Errorf("store: expire reservation: %w", err)
		}
	}
	return refunded, len(ids) == batch, nil
}

// AddCredits adds n credits (n may be negative down to a zero balance).
func (s *Store) AddCredits(ctx context.Context, workspaceID string, n int64) (int64, error) {
	var bal int64
	err := s.db.QueryRowContext(ctx,
		`UPDATE workspaces SET credits = credits + $1 WHERE id = $2 AND credits + $1 >= 0 RETURNING credits`, n, workspaceID).
		Scan(&bal)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, model.Errorf(model.CodeBadRequest, "workspace not found or balance would go below zero")
	}
	if err != nil {
		return 0, fmt.Errorf("store: add credits: %w", err)
	}
	return bal, nil
}

// Record is the usage and activity rows of a call that drew nothing, with
// the key whose last use it marks (KeyID empty: leave it).
type Record struct {
	Usage    model.Usage
	Activity model.Activity
	KeyID    string
}

// WriteRecords writes many calls' rows in one transaction: the group commit
// that lets free calls (health, reads) log every request cheaply.
func (s *Store) WriteRecords(ctx context.Context, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	us := make([]model.Usage, len(recs))
	as := make([]model.Activity, len(recs))
	keys := map[string]time.Time{}
	for i, r := range recs {
		us[i], as[i] = r.Usage, r.Activity
		if r.KeyID != "" {
			keys[r.KeyID] = r.Usage.CreatedAt
		}
	}
	return s.withTx(ctx, func(tx *sql.Tx) error {
		if err := s.insertLogs(ctx, tx, us, as); err != nil {
			return err
		}
		for id, at := range keys {
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`, at, id); err != nil {
				return fmt.Errorf("store: mark key used: %w", err)
			}
		}
		return nil
	})
}

// TouchKey marks a key used now.
func (s *Store) TouchKey(ctx context.Context, keyID string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`, s.Now(), keyID)
	if err != nil {
		return fmt.Errorf("store: mark key used: %w", err)
	}
	return nil
}

const (
	insertUsageSQL    = `INSERT INTO usage_log (workspace_id, key_prefix, endpoint, credits, tier, status, duration_ms, request_id, created_at) VALUES `
	insertActivitySQL = `INSERT INTO activity_log (workspace_id, key_prefix, endpoint, via, method, target, status, error_code, credits, request_id, created_at) VALUES `
)

// insertLogs writes usage and activity rows. PostgreSQL takes one multi-row
// INSERT per table (one round trip); SQLite, in process, runs a prepared
// single-row statement per row, which beats parsing a long statement.
func (s *Store) insertLogs(ctx context.Context, tx *sql.Tx, us []model.Usage, as []model.Activity) error {
	if s.dialect == SQLite {
		for len(us) > 0 {
			n := chunk(len(us))
			args := make([]any, 0, n*9)
			for _, u := range us[:n] {
				args = append(args, usageArgs(&u)...)
			}
			if _, err := tx.StmtContext(ctx, s.stmts.insertUsage[n]).ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("store: insert usage: %w", err)
			}
			us = us[n:]
		}
		for len(as) > 0 {
			n := chunk(len(as))
			args := make([]any, 0, n*11)
			for _, a := range as[:n] {
				args = append(args, activityArgs(&a)...)
			}
			if _, err := tx.StmtContext(ctx, s.stmts.insertActivity[n]).ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("store: insert activity: %w", err)
			}
			as = as[n:]
		}
		return nil
	}
	return insertLogsMulti(func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}, us, as)
}

// insertLogsMulti writes usage and activity rows as multi-row INSERTs of at
// most 256 rows through exec.
func insertLogsMulti(exec func(q string, args ...any) error, us []model.Usage, as []model.Activity) error {
	const maxRows = 256
	for len(us) > 0 {
		n := min(len(us), maxRows)
		var q strings.Builder
		q.WriteString(insertUsageSQL)
		args := make([]any, 0, n*9)
		for i, u := range us[:n] {
			writeTuple(&q, i, 9)
			args = append(args, usageArgs(&u)...)
		}
		if err := exec(q.String(), args...); err != nil {
			return fmt.Errorf("store: insert usage: %w", err)
		}
		us = us[n:]
	}
	for len(as) > 0 {
		n := min(len(as), maxRows)
		var q strings.Builder
		q.WriteString(insertActivitySQL)
		args := make([]any, 0, n*11)
		for i, a := range as[:n] {
			writeTuple(&q, i, 11)
			args = append(args, activityArgs(&a)...)
		}
		if err := exec(q.String(), args...); err != nil {
			return fmt.Errorf("store: insert activity: %w", err)
		}
		as = as[n:]
	}
	return nil
}

// usageArgs are a usage row's values in insertUsageSQL's column order.
func usageArgs(u *model.Usage) []any {
	return []any{u.WorkspaceID, u.KeyPrefix, u.Endpoint, u.Credits, u.Tier, u.Status, u.DurationMS, u.RequestID, u.CreatedAt}
}

// activityArgs are an activity row's values in insertActivitySQL's column
// order.
func activityArgs(a *model.Activity) []any {
	return []any{a.WorkspaceID, a.KeyPrefix, a.Endpoint, a.Via, a.Method, a.Target, a.Status, a.ErrorCode, a.Credits,
		a.RequestID, a.CreatedAt}
}

// LogTx writes usage and activity rows in a caller's transaction: the acts
// billed inside the transaction that records them (monitor runs, previews)
// go through the same INSERTs as the calls of the API. Use
// billing.ChargeTx, which draws the credits too.
func (s *Store) LogTx(ctx context.Context, tx Tx, us []model.Usage, as []model.Activity) error {
	if t, ok := tx.(sqlTx); ok {
		return s.insertLogs(ctx, t.tx, us, as)
	}
	return insertLogsMulti(func(q string, args ...any) error {
		_, err := tx.Exec(ctx, q, args...)
		return err
	}, us, as)
}

// sqliteChunks are the row counts of the prepared multi-row INSERTs on
// SQLite; a batch is written as a sum of them (binary decomposition).
var sqliteChunks = []int{64, 16, 4, 1}

// chunk returns the largest prepared row count not above n.
func chunk(n int) int {
	for _, c := range sqliteChunks {
		if c <= n {
			return c
		}
	}
	return 1
}

// multiRow returns head followed by n placeholder tuples of width columns.
// SQLite takes "?" placeholders here: numbered ones are looked up by name,
// which grows with the square of the row count.
func multiRow(head string, width, n int) string {
	var q strings.Builder
	q.WriteString(head)
	row := "(" + strings.Repeat("?,", width-1) + "?)"
	for i := 0; i < n; i++ {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(row)
	}
	return q.String()
}

// writeTuple appends the i-th "($k, …)" of a multi-row VALUES list.
func writeTuple(q *strings.Builder, i, width int) {
	if i > 0 {
		q.WriteByte(',')
	}
	q.WriteByte('(')
	for j := 0; j < width; j++ {
		if j > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('$')
		q.WriteString(strconv.Itoa(i*width + j + 1))
	}
	q.WriteByte(')')
}
