package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

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
