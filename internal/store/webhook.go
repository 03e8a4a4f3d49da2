package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"webacq/internal/model"
)

// WebhookConfig is a workspace's webhook as stored: the secret sealed.
type WebhookConfig struct {
	URL          string
	SealedSecret string
}

// Webhook reads a workspace's webhook configuration (zero when none).
func (s *Store) Webhook(ctx context.Context, workspaceID string) (WebhookConfig, error) {
	var u, sec sql.NullString
	err := s.rdb.QueryRowContext(ctx, `SELECT webhook_url, webhook_secret FROM workspaces WHERE id = $1`, workspaceID).Scan(&u, &sec)
	if errors.Is(err, sql.ErrNoRows) {
		return WebhookConfig{}, model.Errorf(model.CodeNotFound, "workspace not found")
	}
	if err != nil {
		return WebhookConfig{}, fmt.Errorf("store: webhook: %w", err)
	}
	return WebhookConfig{URL: u.String, SealedSecret: sec.String}, nil
}

// SetWebhook writes a workspace's webhook configuration; empty fields are
// stored as NULL (cleared).
func (s *Store) SetWebhook(ctx context.Context, workspaceID string, c WebhookConfig) error {
	_, err := s.db.ExecContext(ctx, `UPDATE workspaces SET webhook_url = $1, webhook_secret = $2 WHERE id = $3`,
		nullString(c.URL), nullString(c.SealedSecret), workspaceID)
	if err != nil {
		return fmt.Errorf("store: set webhook: %w", err)
	}
	return nil
}

// DisableWebhook clears a workspace's webhook URL (its receiver answered
// 410 Gone) only while url is still the configured one, and reports
// whether it did: a 410 from a URL the user has since replaced turns
// nothing off. The secret stays.
func (s *Store) DisableWebhook(ctx context.Context, workspaceID, url string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE workspaces SET webhook_url = NULL WHERE id = $1 AND webhook_url = $2`,
		workspaceID, url)
	if err != nil {
		return false, fmt.Errorf("store: disable webhook: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: disable webhook: %w", err)
	}
	return n > 0, nil
}

// SealedSecrets returns up to limit sealed values (webhook secrets, else
// Slack URLs) with their workspace ids, so that start-up can check they
// open with the key.
func (s *Store) SealedSecrets(ctx context.Context, limit int) (map[string]string, error) {
	rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(
		`SELECT id, COALESCE(webhook_secret, alert_slack_url) FROM workspaces
		WHERE webhook_secret IS NOT NULL OR alert_slack_url IS NOT NULL LIMIT %d`, limit))
	if err != nil {
		return nil, fmt.Errorf("store: sealed secrets: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, sec string
		if err := rows.Scan(&id, &sec); err != nil {
			return nil, fmt.Errorf("store: sealed secrets: %w", err)
		}
		out[id] = sec
	}
	return out, rows.Err()
}
