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

const monitorColumns = `id, workspace_id, url, host, label, channels, check_interval_hours, discovery_keywords,
	extract_intent, accept_selectors, company, alerts, status, consecutive_errors, anchor, snapshot, etag,
	last_modified, body_hash, reanchor, last_checked, last_changed, last_outcome, top_score, next_check_at,
	job_id, created_at, updated_at`

// InsertMonitor writes a new monitor in tx. A URL already registered by the
// workspace answers conflict (a unique constraint decides, so concurrent
// registrations of one URL leave exactly one).
func (s *Store) InsertMonitor(ctx context.Context, tx Tx, m *model.Monitor) error {
	company, alerts := nullJSON(m.Company), nullRaw(json.RawMessage(m.Alerts))
	_, err := tx.Exec(ctx, `INSERT INTO monitors (`+monitorColumns+`) VALUES
		($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, NULL, NULL, '', '', '', $15, NULL, NULL, '', 0, $16,
		 NULL, $17, $17)`,
		m.ID, m.WorkspaceID, m.URL, m.Host, m.Label, mustJSON(m.Channels), m.CheckIntervalHours,
		mustJSON(m.DiscoveryKeywords), m.ExtractIntent, mustJSON(m.AcceptSelectors), company, alerts, m.Status,
		m.ConsecutiveErrors, m.Reanchor, m.NextCheckAt, m.CreatedAt)
	if isUniqueViolation(err) {
		return model.Errorf(model.CodeConflict, "url already registered by this workspace: %s", m.URL)
	}
	if err != nil {
		return fmt.Errorf("store: insert monitor: %w", err)
	}
	return nil
}

// MonitorTx reads a monitor in tx; on PostgreSQL the row stays locked until
// tx ends, so a run and a pause or a delete of the same monitor take turns
// (SQLite's write transactions already do). Unknown ids answer not_found.
func (s *Store) MonitorTx(ctx context.Context, tx Tx, id string) (*model.Monitor, error) {
	q := `SELECT ` + monitorSelect + ` FROM monitors WHERE id = $1`
	if s.dialect == Postgres {
		q += ` FOR UPDATE`
	}
	return scanMonitor(tx.QueryRow(ctx, q, id))
}

// Monitor reads a workspace's monitor; another workspace's is not_found.
func (s *Store) Monitor(ctx context.Context, workspaceID, id string) (*model.Monitor, error) {
	return scanMonitor(s.rdb.QueryRowContext(ctx,
		`SELECT `+monitorSelect+` FROM monitors WHERE id = $1 AND workspace_id = $2`, id, workspaceID))
}

// Cursor is a position in a list ordered newest first by (time, id): the
// rows after it are those before At, and those at At with an id below ID.
// Rows written in the same millisecond share a time, so a time alone would
// skip them. The zero Cursor is the start of the list; one without ID
// bounds by time alone.
type Cursor struct {
	At time.Time
	ID string
}

// where is the condition of the rows after c on the columns at and id, as
// placeholders from n on, and their arguments.
func (c Cursor) where(at, id string, n int) (string, []any) {
	switch {
	case c.At.IsZero():
		return "", nil
	case c.ID == "":
		return fmt.Sprintf(` AND %s < $%d`, at, n), []any{c.At}
	}
	return fmt.Sprintf(` AND (%s < $%d OR (%s = $%d AND %s < $%d))`, at, n, at, n, id, n+1), []any{c.At, c.ID}
}

// Monitors lists a workspace's monitors, newest first, created before
// before (zero: no bound), at most limit.
func (s *Store) Monitors(ctx context.Context, workspaceID string, before time.Time, limit int) ([]*model.Monitor, error) {
	return s.MonitorsAfter(ctx, workspaceID, Cursor{At: before}, limit)
}

// MonitorsAfter lists a workspace's monitors, newest first, from the one
// after cursor c, at most limit.
func (s *Store) MonitorsAfter(ctx context.Context, workspaceID string, c Cursor, limit int) ([]*model.Monitor, error) {
	cond, cargs := c.where("created_at", "id", 2)
	q, args := `SELECT `+monitorSelect+` FROM monitors WHERE workspace_id = $1`+cond, append([]any{workspaceID}, cargs...)
	q += fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT %d`, limit)
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: monitors: %w", err)
	}
	defer rows.Close()
	var out []*model.Monitor
	for rows.Next() {
		m, err := scanMonitor(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: monitors: %w", err)
	}
	return out, nil
}

// UpdateMonitor writes every mutable field of m in tx.
func (s *Store) UpdateMonitor(ctx context.Context, tx Tx, m *model.Monitor) error {
	var job any
	if m.JobID != 0 {
		job = m.JobID
	}
	n, err := tx.Exec(ctx, `UPDATE monitors SET label = $2, channels = $3, check_interval_hours = $4,
		discovery_keywords = $5, accept_selectors = $6, company = $7, alerts = $8, status = $9,
		consecutive_errors = $10, anchor = $11, snapshot = $12, etag = $13, last_modified = $14, body_hash = $15,
		reanchor = $16, last_checked = $17, last_changed = $18, last_outcome = $19, top_score = $20,
		next_check_at = $21, job_id = $22, updated_at = $23, channel_state = $24 WHERE id = $1`,
		m.ID, m.Label, mustJSON(m.Channels), m.CheckIntervalHours, mustJSON(m.DiscoveryKeywords),
		mustJSON(m.AcceptSelectors), nullJSON(m.Company), nullRaw(json.RawMessage(m.Alerts)), m.Status, m.ConsecutiveErrors,
		nullRaw(m.Anchor), nullString(m.Snapshot), m.ETag, m.LastModified, m.BodyHash, m.Reanchor,
		nullTime(m.LastChecked), nullTime(m.LastChanged), m.LastOutcome, scoreOut(m.TopScore), m.NextCheckAt, job, s.Now(),
		nullRaw(m.ChannelState))
	if err != nil {
		return fmt.Errorf("store: update monitor: %w", err)
	}
	if n == 0 {
		return model.Errorf(model.CodeNotFound, "monitor not found")
	}
	return nil
}

// DeleteMonitor removes a monitor and its runs in tx.
func (s *Store) DeleteMonitor(ctx context.Context, tx Tx, id string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM monitor_runs WHERE monitor_id = $1`, id); err != nil {
		return fmt.Errorf("store: delete monitor runs: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM monitors WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: delete monitor: %w", err)
	}
	return nil
}

// RunDone reports whether the run of a monitor's due time is already
// written: a job retried after its worker died finds it and stops.
func (s *Store) RunDone(ctx context.Context, tx Tx, monitorID string, due time.Time) (bool, error) {
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM monitor_runs WHERE monitor_id = $1 AND due_at = $2`, monitorID, due).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: run done: %w", err)
	}
	return true, nil
}

// InsertRun writes a run in tx. A second run of the same monitor and due
// time answers conflict.
func (s *Store) InsertRun(ctx context.Context, tx Tx, r *model.Run) error {
	signals, links := r.ChangeSignal, r.PDFLinks
	if signals == nil {
		signals = []model.Signal{}
	}
	if links == nil {
		links = []string{}
	}
	_, err := tx.Exec(ctx, `INSERT INTO monitor_runs (id, monitor_id, workspace_id, due_at, started_at, finished_at,
		outcome, suppressed, top_score, channel, status_code, tier, content_hash, size_bytes, change_signal, pdf_links,
		extracted_fields, error, credits, content_preview, snapshot, diff)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
		r.ID, r.MonitorID, r.WorkspaceID, r.DueAt, r.StartedAt, r.FinishedAt, r.Outcome, r.Suppressed, scoreOut(r.TopScore),
		r.Channel, r.StatusCode, r.Tier, r.ContentHash, r.SizeBytes, mustJSON(signals), mustJSON(links),
		nullRaw(r.ExtractedFields), r.Error, r.Credits, r.ContentPreview, nullStringPtr(r.Snapshot), nullStringPtr(r.Diff))
	if isUniqueViolation(err) {
		return model.Errorf(model.CodeConflict, "run of this due time already recorded")
	}
	if err != nil {
		return fmt.Errorf("store: insert run: %w", err)
	}
	return nil
}

const runColumns = `id, monitor_id, workspace_id, due_at, started_at, finished_at, outcome, suppressed, top_score,
	channel, status_code, tier, content_hash, size_bytes, change_signal, pdf_links, extracted_fields, error, credits,
	content_preview`

// Runs lists a monitor's runs, newest first, started before before (zero:
// no bound), at most limit; without snapshot and diff.
func (s *Store) Runs(ctx context.Context, monitorID string, before time.Time, limit int) ([]*model.Run, error) {
	return s.RunsAfter(ctx, monitorID, Cursor{At: before}, limit)
}

// RunsAfter lists a monitor's runs, newest first, from the one after cursor
// c, at most limit; without snapshot and diff.
func (s *Store) RunsAfter(ctx context.Context, monitorID string, c Cursor, limit int) ([]*model.Run, error) {
	cond, cargs := c.where("started_at", "id", 2)
	q, args := `SELECT `+runColumns+`, NULL, NULL FROM monitor_runs WHERE monitor_id = $1`+cond, append([]any{monitorID}, cargs...)
	q += fmt.Sprintf(` ORDER BY started_at DESC, id DESC LIMIT %d`, limit)
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	defer rows.Close()
	var out []*model.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	return out, nil
}

// Run reads one run of a monitor with its snapshot and diff.
func (s *Store) Run(ctx context.Context, monitorID, runID string) (*model.Run, error) {
	return scanRun(s.rdb.QueryRowContext(ctx,
		`SELECT `+runColumns+`, snapshot, diff FROM monitor_runs WHERE id = $1 AND monitor_id = $2`, runID, monitorID))
}

// PruneRunSnapshots drops the snapshots and diffs of runs started before
// cutoff (the run records themselves stay) and returns how many it cleared.
func (s *Store) PruneRunSnapshots(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE monitor_runs SET snapshot = NULL, diff = NULL
		WHERE started_at < $1 AND (snapshot IS NOT NULL OR diff IS NOT NULL)`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("store: prune run snapshots: %w", err)
	}
	return res.RowsAffected()
}

// DrawCredits takes n credits from a workspace in tx when its balance
// allows, and reports whether it did.
func (s *Store) DrawCredits(ctx context.Context, tx Tx, workspaceID string, n int64) (bool, error) {
	if n <= 0 {
		return true, nil
	}
	k, err := tx.Exec(ctx, `UPDATE workspaces SET credits = credits - $1 WHERE id = $2 AND credits >= $1`, n, workspaceID)
	if err != nil {
		return false, fmt.Errorf("store: draw credits: %w", err)
	}
	return k == 1, nil
}

// Balance reads a workspace's credits.
func (s *Store) Balance(ctx context.Context, workspaceID string) (int64, error) {
	var n int64
	err := s.rdb.QueryRowContext(ctx, `SELECT credits FROM workspaces WHERE id = $1`, workspaceID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, model.Errorf(model.CodeNotFound, "workspace not found")
	}
	if err != nil {
		return 0, fmt.Errorf("store: balance: %w", err)
	}
	return n, nil
}

func scanMonitor(row Row) (*model.Monitor, error) {
	var m model.Monitor
	var channels, keywords, selectors string
	var company, alerts, anchor, snapshot sql.NullString
	var checked, changed sql.NullTime
	var job sql.NullInt64
	var top float64
	var x extractionScan
	var channelState sql.NullString
	err := row.Scan(append([]any{&m.ID, &m.WorkspaceID, &m.URL, &m.Host, &m.Label, &channels, &m.CheckIntervalHours, &keywords,
		&m.ExtractIntent, &selectors, &company, &alerts, &m.Status, &m.ConsecutiveErrors, &anchor, &snapshot, &m.ETag,
		&m.LastModified, &m.BodyHash, &m.Reanchor, &checked, &changed, &m.LastOutcome, &top, &m.NextCheckAt,
		&job, &m.CreatedAt, &m.UpdatedAt, &channelState}, x.dest()...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeNotFound, "monitor not found")
	}
	if err != nil {
		return nil, fmt.Errorf("store: read monitor: %w", err)
	}
	err = errors.Join(json.Unmarshal([]byte(channels), &m.Channels), json.Unmarshal([]byte(keywords), &m.DiscoveryKeywords),
		json.Unmarshal([]byte(selectors), &m.AcceptSelectors))
	if company.Valid {
		err = errors.Join(err, json.Unmarshal([]byte(company.String), &m.Company))
	}
	var xerr error
	m.Extraction, xerr = x.extraction(m.ExtractIntent)
	if err = errors.Join(err, xerr); err != nil {
		return nil, fmt.Errorf("store: read monitor %s: %w", m.ID, err)
	}
	if alerts.Valid {
		m.Alerts = model.AlertsOverride(alerts.String)
	}
	if anchor.Valid {
		m.Anchor = json.RawMessage(anchor.String)
	}
	if channelState.Valid {
		m.ChannelState = json.RawMessage(channelState.String)
	}
	m.Snapshot = snapshot.String
	m.LastChecked, m.LastChanged = timePtr(checked), timePtr(changed)
	m.JobID = job.Int64
	m.TopScore = scoreIn(top)
	m.NextCheckAt, m.CreatedAt, m.UpdatedAt = m.NextCheckAt.UTC(), m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return &m, nil
}

func scanRun(row Row) (*model.Run, error) {
	var r model.Run
	var signals, links string
	var extracted, snapshot, diff sql.NullString
	var top float64
	err := row.Scan(&r.ID, &r.MonitorID, &r.WorkspaceID, &r.DueAt, &r.StartedAt, &r.FinishedAt, &r.Outcome,
		&r.Suppressed, &top, &r.Channel, &r.StatusCode, &r.Tier, &r.ContentHash, &r.SizeBytes, &signals, &links,
		&extracted, &r.Error, &r.Credits, &r.ContentPreview, &snapshot, &diff)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeNotFound, "run not found")
	}
	if err != nil {
		return nil, fmt.Errorf("store: read run: %w", err)
	}
	r.TopScore = scoreIn(top)
	if err := errors.Join(json.Unmarshal([]byte(signals), &r.ChangeSignal), json.Unmarshal([]byte(links), &r.PDFLinks)); err != nil {
		return nil, fmt.Errorf("store: read run %s: %w", r.ID, err)
	}
	if extracted.Valid {
		r.ExtractedFields = json.RawMessage(extracted.String)
	}
	if snapshot.Valid {
		r.Snapshot = &snapshot.String
	}
	if diff.Valid {
		r.Diff = &diff.String
	}
	r.DueAt, r.StartedAt, r.FinishedAt = r.DueAt.UTC(), r.StartedAt.UTC(), r.FinishedAt.UTC()
	return &r, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("store: marshal %T: %v", v, err)) // only plain types reach here
	}
	return string(b)
}

func nullJSON(v *model.Company) any {
	if v == nil {
		return nil
	}
	return mustJSON(v)
}

func nullRaw(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullStringPtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return *t
}

// MonitorByID reads any workspace's monitor (for the check worker).
func (s *Store) MonitorByID(ctx context.Context, id string) (*model.Monitor, error) {
	return scanMonitor(s.rdb.QueryRowContext(ctx, `SELECT `+monitorSelect+` FROM monitors WHERE id = $1`, id))
}

// strandedAfter: a job scheduled further ahead than this waits for a later
// due time, not a brief snooze (at most retryAfterFailure's 30 s).
const strandedAfter = time.Minute

// StrandedMonitors lists active monitors due before overdue whose job will
// not run them: gone, finished, or waiting for a later due time (more than
// strandedAfter from now). A job snoozed briefly (a check past its
// workspace's share, or waiting for a host slot) will run them and is left
// alone: waking it would only make it snooze again, and crowd out the
// checks of other workspaces. River's own table is read here, by its
// documented columns, because whether a job will run is River's state and
// the monitor's due time is ours.
func (s *Store) StrandedMonitors(ctx context.Context, overdue time.Time, limit int) ([]string, error) {
	// River's clock and, on SQLite, its time format (its driver's timeString).
	var later any = time.Now().UTC().Add(strandedAfter)
	if s.dialect == SQLite {
		later = later.(time.Time).Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
	}
	rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(`SELECT m.id FROM monitors m LEFT JOIN river_job j ON j.id = m.job_id
		WHERE m.status <> 'paused' AND m.next_check_at < $1
		AND (j.id IS NULL OR j.state IN ('completed', 'cancelled', 'discarded')
			OR (j.state = 'scheduled' AND j.scheduled_at > $2))
		ORDER BY m.next_check_at LIMIT %d`, limit), overdue, later)
	if err != nil {
		return nil, fmt.Errorf("store: stranded monitors: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: stranded monitors: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// SetRefinements stores a monitor's extraction refinements in tx.
func (s *Store) SetRefinements(ctx context.Context, tx Tx, monitorID string, refinements []string) error {
	if refinements == nil {
		refinements = []string{}
	}
	n, err := tx.Exec(ctx, `UPDATE monitors SET extract_refinements = $2 WHERE id = $1`, monitorID, mustJSON(refinements))
	if err != nil {
		return fmt.Errorf("store: set refinements: %w", err)
	}
	if n == 0 {
		return model.Errorf(model.CodeNotFound, "monitor not found")
	}
	return nil
}

// noScore is what the NOT NULL top_score columns hold for a run (or a
// monitor whose last run) compared nothing: a relocation score is never
// negative. It spares a table rebuild on SQLite.
const noScore = -1

func scoreOut(v *float64) float64 {
	if v == nil {
		return noScore
	}
	return *v
}

func scoreIn(v float64) *float64 {
	if v < 0 {
		return nil
	}
	return &v
}

// ClaimCheckNow records a check-now of a monitor at now, in tx, unless the
// last one was less than every ago (every 0: no limit); then it records
// nothing and returns how long is left to wait.
func (s *Store) ClaimCheckNow(ctx context.Context, tx Tx, id string, now time.Time, every time.Duration) (time.Duration, error) {
	var last sql.NullTime
	err := tx.QueryRow(ctx, `SELECT check_now_at FROM monitors WHERE id = $1`, id).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, model.Errorf(model.CodeNotFound, "monitor not found")
	}
	if err != nil {
		return 0, fmt.Errorf("store: read check-now: %w", err)
	}
	if since := now.Sub(last.Time); every > 0 && last.Valid && since < every {
		return every - since, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE monitors SET check_now_at = $2 WHERE id = $1`, id, now); err != nil {
		return 0, fmt.Errorf("store: record check-now: %w", err)
	}
	return 0, nil
}
