package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"webacq/internal/model"
)

const deliveryColumns = `id, monitor_id, workspace_id, run_id, kind, target, status, payload, attempts, last_status,
	last_error, created_at, updated_at`

// InsertDelivery writes a delivery in tx (with the run that causes it).
func (s *Store) InsertDelivery(ctx context.Context, tx Tx, d *model.Delivery) error {
	_, err := tx.Exec(ctx, `INSERT INTO deliveries (`+deliveryColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 0, '', $9, $9)`,
		d.ID, d.MonitorID, d.WorkspaceID, d.RunID, d.Kind, d.Target, d.Status, string(d.Payload), d.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert delivery: %w", err)
	}
	return nil
}

// Delivery reads one delivery.
func (s *Store) Delivery(ctx context.Context, id string) (*model.Delivery, error) {
	return scanDelivery(s.rdb.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE id = $1`, id))
}

// EarlierPending reports whether a delivery of the same monitor, kind and
// target, created before d, is still pending (deliveries go out in order).
func (s *Store) EarlierPending(ctx context.Context, d *model.Delivery) (bool, error) {
	var n int
	err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE monitor_id = $1 AND kind = $2
		AND target = $3 AND status = 'pending' AND created_at < $4`, d.MonitorID, d.Kind, d.Target, d.CreatedAt).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: earlier deliveries: %w", err)
	}
	return n > 0, nil
}

// RecordAttempt logs an attempt and moves the delivery to status. The
// attempt's number is the delivery's count of attempts plus one, taken in
// the same transaction, so that the count and the log agree.
func (s *Store) RecordAttempt(ctx context.Context, id, status string, a model.DeliveryAttempt) error {
	return s.InTx(ctx, func(tx Tx) error { return s.RecordAttemptTx(ctx, tx, id, status, a) })
}

// RecordAttemptTx is RecordAttempt in tx.
func (s *Store) RecordAttemptTx(ctx context.Context, tx Tx, id, status string, a model.DeliveryAttempt) error {
	if _, err := tx.Exec(ctx, `UPDATE deliveries SET status = $2, attempts = attempts + 1, last_status = $3,
		last_error = $4, updated_at = $5 WHERE id = $1`, id, status, a.StatusCode, a.ErrorClass, a.At); err != nil {
		return fmt.Errorf("store: delivery status: %w", err)
	}
	if err := tx.QueryRow(ctx, `SELECT attempts FROM deliveries WHERE id = $1`, id).Scan(&a.Attempt); err != nil {
		return fmt.Errorf("store: delivery attempt: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO delivery_attempts (delivery_id, attempt, status_code, latency_ms, error_class,
		response, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, a.Attempt, a.StatusCode, a.LatencyMS, a.ErrorClass,
		a.Response, a.At); err != nil {
		return fmt.Errorf("store: delivery attempt: %w", err)
	}
	return nil
}

// liveDeliveryJob is the condition that a delivery job of the delivery id
// compared with idExpr will still run: it is available, scheduled,
// running, retryable or pending. Completed, cancelled and discarded jobs
// (River discards the job of a node that died during its last attempt)
// will not.
func (s *Store) liveDeliveryJob(idExpr string) string {
	arg := "args->>'delivery_id'"
	if s.dialect == SQLite {
		arg = "json_extract(args, '$.delivery_id')"
	}
	return `EXISTS (SELECT 1 FROM river_job WHERE kind = 'alert_delivery' AND ` + arg + ` = ` + idExpr + `
		AND state IN ('available', 'scheduled', 'running', 'retryable', 'pending'))`
}

// OrphanedDeliveries returns the ids of up to limit deliveries pending
// since before (not updated after it) that no job will send: none of
// their delivery jobs is live (liveDeliveryJob). Oldest first.
func (s *Store) OrphanedDeliveries(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(`SELECT id FROM deliveries WHERE status = 'pending' AND updated_at < $1
		AND NOT `+s.liveDeliveryJob("deliveries.id")+` ORDER BY created_at, id LIMIT %d`, limit), before)
	if err != nil {
		return nil, fmt.Errorf("store: orphaned deliveries: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: orphaned deliveries: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: orphaned deliveries: %w", err)
	}
	return ids, nil
}

// TakeOrphan locks the delivery in tx and reports whether it is still
// pending without a live job (ok), with its count of attempts and the
// error class of its last one, so that concurrent sweeps and redelivers
// on any node act on it once.
func (s *Store) TakeOrphan(ctx context.Context, tx Tx, id string) (attempts int, lastError string, ok bool, err error) {
	if _, err := tx.Exec(ctx, `UPDATE deliveries SET updated_at = updated_at WHERE id = $1`, id); err != nil {
		return 0, "", false, fmt.Errorf("store: take orphaned delivery: %w", err)
	}
	var status string
	err = tx.QueryRow(ctx, `SELECT status, attempts, last_error, `+s.liveDeliveryJob("$1")+` FROM deliveries WHERE id = $1`,
		id).Scan(&status, &attempts, &lastError, &ok)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, fmt.Errorf("store: take orphaned delivery: %w", err)
	}
	// ok held "a live job exists".
	return attempts, lastError, status == model.DeliveryPending && !ok, nil
}

// ResetDelivery makes a settled (delivered or failed) delivery pending
// again in tx (redeliver) and returns its count of attempts so far; ok
// tells the caller to queue its job. A pending delivery is left as it is
// (ok false) while a job of it is queued, waiting or running; one left
// without a job (River discards the job of a node that died in its last
// attempt) is taken as settled. The row is locked first, so concurrent
// callers on any node queue one job.
func (s *Store) ResetDelivery(ctx context.Context, tx Tx, id string, now time.Time) (attempts int, ok bool, err error) {
	n, err := tx.Exec(ctx, `UPDATE deliveries SET status = 'pending', updated_at = $2 WHERE id = $1 AND status <> 'pending'`,
		id, now)
	if err != nil {
		return 0, false, fmt.Errorf("store: reset delivery: %w", err)
	}
	if n == 0 {
		if _, err := tx.Exec(ctx, `UPDATE deliveries SET updated_at = updated_at WHERE id = $1`, id); err != nil {
			return 0, false, fmt.Errorf("store: reset delivery: %w", err)
		}
		var live bool
		if err := tx.QueryRow(ctx, `SELECT `+s.liveDeliveryJob("$1"), id).Scan(&live); err != nil {
			return 0, false, fmt.Errorf("store: reset delivery: %w", err)
		}
		if live {
			return 0, false, nil
		}
	}
	if err := tx.QueryRow(ctx, `SELECT attempts FROM deliveries WHERE id = $1`, id).Scan(&attempts); err != nil {
		return 0, false, fmt.Errorf("store: reset delivery: %w", err)
	}
	return attempts, true, nil
}

// Deliveries lists a monitor's deliveries, newest first, with their
// attempts, from the first page (before zero) or those created before.
func (s *Store) Deliveries(ctx context.Context, monitorID string, before time.Time, limit int) ([]*model.Delivery, error) {
	return s.DeliveriesBefore(ctx, monitorID, before, "", limit)
}

// DeliveriesBefore lists a monitor's deliveries, newest first, from the
// cursor (before, beforeID): those created before it, or at the same time
// with a smaller id (a run's deliveries share their created_at).
func (s *Store) DeliveriesBefore(ctx context.Context, monitorID string, before time.Time, beforeID string,
	limit int) ([]*model.Delivery, error) {
	q, args := `SELECT `+deliveryColumns+` FROM deliveries WHERE monitor_id = $1`, []any{monitorID}
	switch {
	case !before.IsZero() && beforeID != "":
		q += ` AND (created_at < $2 OR (created_at = $2 AND id < $3))`
		args = append(args, before, beforeID)
	case !before.IsZero():
		q += ` AND created_at < $2`
		args = append(args, before)
	}
	q += fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT %d`, limit)
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: deliveries: %w", err)
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
		return nil, fmt.Errorf("store: deliveries: %w", err)
	}
	for _, d := range out {
		if d.Log, err = s.attempts(ctx, d.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Store) attempts(ctx context.Context, id string) ([]model.DeliveryAttempt, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT attempt, status_code, latency_ms, error_class, response, created_at
		FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt, id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: delivery attempts: %w", err)
	}
	defer rows.Close()
	var out []model.DeliveryAttempt
	for rows.Next() {
		var a model.DeliveryAttempt
		if err := rows.Scan(&a.Attempt, &a.StatusCode, &a.LatencyMS, &a.ErrorClass, &a.Response, &a.At); err != nil {
			return nil, fmt.Errorf("store: delivery attempts: %w", err)
		}
		a.At = a.At.UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

func scanDelivery(row Row) (*model.Delivery, error) {
	var d model.Delivery
	var payload string
	err := row.Scan(&d.ID, &d.MonitorID, &d.WorkspaceID, &d.RunID, &d.Kind, &d.Target, &d.Status, &payload, &d.Attempts,
		&d.LastStatus, &d.LastError, &d.CreatedAt, &d.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeNotFound, "delivery not found")
	}
	if err != nil {
		return nil, fmt.Errorf("store: read delivery: %w", err)
	}
	d.Payload = []byte(payload)
	d.CreatedAt, d.UpdatedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC()
	return &d, nil
}

// RunWebhooks returns the webhook delivery of each of runIDs that has one.
func (s *Store) RunWebhooks(ctx context.Context, runIDs []string) (map[string]*model.RunDelivery, error) {
	out := make(map[string]*model.RunDelivery, len(runIDs))
	if len(runIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(runIDs))
	marks := make([]string, len(runIDs))
	for i, id := range runIDs {
		args[i], marks[i] = id, fmt.Sprintf("$%d", i+1)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT run_id, id, status FROM deliveries WHERE kind = 'webhook' AND run_id IN (`+
		strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: run webhooks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var run string
		var d model.RunDelivery
		if err := rows.Scan(&run, &d.DeliveryID, &d.Status); err != nil {
			return nil, fmt.Errorf("store: run webhooks: %w", err)
		}
		out[run] = &d
	}
	return out, rows.Err()
}

// PruneDeliveries deletes deliveries settled (delivered or failed) before
// cutoff, with their attempts, and returns how many; pending ones stay
// whatever their age.
func (s *Store) PruneDeliveries(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := s.InTx(ctx, func(tx Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM delivery_attempts WHERE delivery_id IN
			(SELECT id FROM deliveries WHERE status <> 'pending' AND updated_at < $1)`, cutoff); err != nil {
			return err
		}
		var err error
		n, err = tx.Exec(ctx, `DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < $1`, cutoff)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune deliveries: %w", err)
	}
	return n, nil
}
