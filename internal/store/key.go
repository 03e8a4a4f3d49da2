package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"webacq/internal/model"
)

// execer is what both *sql.DB and *sql.Tx offer.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// CreateKey mints a key for a workspace and returns its plaintext, which is
// never stored and cannot be recovered.
func (s *Store) CreateKey(ctx context.Context, workspaceID, name string) (string, *model.APIKey, error) {
	if name == "" {
		return "", nil, model.Errorf(model.CodeBadRequest, "key name is required")
	}
	now := s.Now()
	key, id, err := insertKey(ctx, s.db, now, workspaceID, name)
	if err != nil {
		return "", nil, err
	}
	k := &model.APIKey{ID: id, WorkspaceID: workspaceID, Prefix: model.KeyDisplayPrefix(key), Name: name, CreatedAt: now}
	return key, k, nil
}

func insertKey(ctx context.Context, db execer, now time.Time, workspaceID, name string) (key, id string, err error) {
	key, id = model.NewKey(), uuid.NewString()
	_, err = db.ExecContext(ctx,
		`INSERT INTO api_keys (id, workspace_id, hash, prefix, name, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, workspaceID, model.HashKey(key), model.KeyDisplayPrefix(key), name, now)
	if err != nil {
		return "", "", fmt.Errorf("store: create key: %w", err)
	}
	return key, id, nil
}

// Keys lists a workspace's keys, revoked ones included, oldest first.
func (s *Store) Keys(ctx context.Context, workspaceID string) ([]model.APIKey, error) {
	rows, err := s.rdb.QueryContext(ctx,
		`SELECT id, workspace_id, prefix, name, created_at, last_used_at, revoked_at
		 FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("store: list keys: %w", err)
	}
	defer rows.Close()
	var out []model.APIKey
	for rows.Next() {
		var k model.APIKey
		var used, revoked sql.NullTime
		if err := rows.Scan(&k.ID, &k.WorkspaceID, &k.Prefix, &k.Name, &k.CreatedAt, &used, &revoked); err != nil {
			return nil, fmt.Errorf("store: list keys: %w", err)
		}
		k.LastUsedAt, k.RevokedAt = timePtr(used), timePtr(revoked)
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey revokes the live key whose display prefix is prefix. The very next
// request with it fails on every node: lookups read the row, or a cache that
// the revocation empties on every node before it returns (see authCache).
func (s *Store) RevokeKey(ctx context.Context, prefix string) error {
	return s.changeAuth(ctx, func(ex execer) error {
		res, err := ex.ExecContext(ctx,
			`UPDATE api_keys SET revoked_at = $1 WHERE prefix = $2 AND revoked_at IS NULL`, s.Now(), prefix)
		return oneRow(res, err, "live key with prefix "+prefix)
	})
}

// RevokeWorkspaceKey revokes a live key of one workspace by its prefix; a key
// of another workspace is not_found.
func (s *Store) RevokeWorkspaceKey(ctx context.Context, workspaceID, prefix string) error {
	return s.changeAuth(ctx, func(ex execer) error {
		res, err := ex.ExecContext(ctx,
			`UPDATE api_keys SET revoked_at = $1 WHERE workspace_id = $2 AND prefix = $3 AND revoked_at IS NULL`,
			s.Now(), workspaceID, prefix)
		return oneRow(res, err, "live key with prefix "+prefix)
	})
}

const authenticateSQL = `SELECT k.id, k.prefix, k.last_used_at, k.revoked_at, w.id, w.name, w.monitoring,
	w.rate_rpm, w.rate_concurrent FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = $1`

// Authenticate looks a key up by its hash. A key that is unknown or revoked
// is unauthorized; the caller has already checked the `mc_` form.
func (s *Store) Authenticate(ctx context.Context, key string) (*model.Principal, error) {
	hash := model.HashKey(key)
	if s.listener != nil {
		s.listener.start()
	}
	p, epoch, ok := s.auth.get(hash)
	if ok {
		return &p, nil
	}
	p = model.Principal{}
	var used, revoked sql.NullTime
	err := s.stmts.authenticate.QueryRowContext(ctx, hash).
		Scan(&p.KeyID, &p.KeyPrefix, &used, &revoked, &p.WorkspaceID, &p.WorkspaceName, &p.Monitoring, &p.RPM, &p.Concurrent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeUnauthorized, "invalid API key")
	}
	if err != nil {
		return nil, model.Wrap(model.CodeUnavailable, fmt.Errorf("store: authenticate: %w", err), "database unavailable")
	}
	if revoked.Valid {
		return nil, model.Errorf(model.CodeUnauthorized, "API key has been revoked")
	}
	p.KeyLastUsedAt = timePtr(used)
	s.auth.put(hash, p, epoch)
	return &p, nil
}

func timePtr(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	v := t.Time.UTC()
	return &v
}
