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

// User is a console account (DECISIONS.md, Console): a person who signs in
// with an email and a password, granted workspaces one by one. API keys
// never sign anyone in.
type User struct {
	ID    string
	Email string
	// PasswordHash is the argon2id hash in PHC form; the password itself is
	// never stored.
	PasswordHash string
	CreatedAt    time.Time
}

// CreateUser adds a console account; email is stored as given (the caller
// normalises it), and a taken email is a conflict.
func (s *Store) CreateUser(ctx context.Context, email, passwordHash string) (*User, error) {
	var u *User
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = s.insertUser(ctx, tx, email, passwordHash)
		return err
	})
	return u, err
}

func (s *Store) insertUser(ctx context.Context, tx *sql.Tx, email, passwordHash string) (*User, error) {
	u := &User{ID: uuid.NewString(), Email: email, PasswordHash: passwordHash, CreatedAt: s.Now()}
	_, err := tx.ExecContext(ctx, `INSERT INTO console_users (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`,
		u.ID, u.Email, u.PasswordHash, u.CreatedAt)
	if isUniqueViolation(err) {
		return nil, model.Errorf(model.CodeConflict, "a console user with email %s already exists", email)
	}
	if err != nil {
		return nil, fmt.Errorf("store: create user: %w", err)
	}
	return u, nil
}

// UserByEmail finds a console account by its (normalised) email.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	err := s.rdb.QueryRowContext(ctx, `SELECT id, email, password_hash, created_at FROM console_users WHERE email = $1`, email).
		Scan(&u.ID, &u.Email, &u.PasswordHash, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeNotFound, "no console user with email %s", email)
	}
	if err != nil {
		return nil, fmt.Errorf("store: find user: %w", err)
	}
	u.CreatedAt = u.CreatedAt.UTC()
	return &u, nil
}

// Roles of a console account in a workspace: an owner manages the
// workspace's keys, alerts and accounts; a member reads it and runs its
// monitors.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// Grant is a workspace a console account may act on, with its role there.
type Grant struct {
	model.Workspace
	Role string
}

// GrantWorkspace lets a user act on a workspace in the console with a
// role; granting again sets the role.
func (s *Store) GrantWorkspace(ctx context.Context, userID, workspaceID, role string) error {
	return s.withTx(ctx, func(tx *sql.Tx) error { return s.grant(ctx, tx, userID, workspaceID, role) })
}

func (s *Store) grant(ctx context.Context, tx *sql.Tx, userID, workspaceID, role string) error {
	if role != RoleOwner && role != RoleMember {
		return model.Errorf(model.CodeBadRequest, "role must be %s or %s, not %q", RoleOwner, RoleMember, role)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO console_grants (user_id, workspace_id, created_at, role) VALUES ($1, $2, $3, $4)
		ON CONFLICT (user_id, workspace_id) DO UPDATE SET role = excluded.role`, userID, workspaceID, s.Now(), role)
	if err != nil {
		return fmt.Errorf("store: grant workspace: %w", err)
	}
	return nil
}

// RevokeWorkspace takes a workspace away from a user; its sessions lose
// the workspace on their next request. Revoking what was not granted is
// not_found.
func (s *Store) RevokeWorkspace(ctx context.Context, userID, workspaceID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM console_grants WHERE user_id = $1 AND workspace_id = $2`, userID, workspaceID)
	if err != nil {
		return fmt.Errorf("store: revoke workspace: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.Errorf(model.CodeNotFound, "the account was not granted this workspace")
	}
	return nil
}

// UserWorkspaces lists the workspaces a user was granted, by name, with
// the user's role in each.
func (s *Store) UserWorkspaces(ctx context.Context, userID string) ([]Grant, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT w.id, w.name, w.credits, w.monitoring, w.created_at, g.role
		FROM console_grants g JOIN workspaces w ON w.id = g.workspace_id WHERE g.user_id = $1 ORDER BY w.name`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: user workspaces: %w", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		var g Grant
		if err := rows.Scan(&g.ID, &g.Name, &g.Credits, &g.Monitoring, &g.CreatedAt, &g.Role); err != nil {
			return nil, fmt.Errorf("store: user workspaces: %w", err)
		}
		g.CreatedAt = g.CreatedAt.UTC()
		out = append(out, g)
	}
	return out, rows.Err()
}

// Users lists the console accounts by email.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, email, password_hash, created_at FROM console_users ORDER BY email`)
	if err != nil {
		return nil, fmt.Errorf("store: users: %w", err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: users: %w", err)
		}
		u.CreatedAt = u.CreatedAt.UTC()
		out = append(out, u)
	}
	return out, rows.Err()
}

// DeleteUser removes a console account; its grants and sessions go with it
// (ON DELETE CASCADE, enforced on both engines).
func (s *Store) DeleteUser(ctx context.Context, userID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM console_users WHERE id = $1`, userID)
	if err != nil {
		return fmt.Errorf("store: delete user: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.Errorf(model.CodeNotFound, "no such console user")
	}
	return nil
}

// SetPassword replaces a user's password hash and ends every session of
// the user but keep (the SHA-256 of the token of the session that changed
// it; "" ends all), in one transaction.
func (s *Store) SetPassword(ctx context.Context, userID, passwordHash, keep string) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE console_users SET password_hash = $1 WHERE id = $2`, passwordHash, userID)
		if err != nil {
			return fmt.Errorf("store: set password: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return model.Errorf(model.CodeNotFound, "no such console user")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM console_sessions WHERE user_id = $1 AND token_hash <> $2`, userID, keep); err != nil {
			return fmt.Errorf("store: set password: %w", err)
		}
		return nil
	})
}

// CreateSession starts a session of a user, known by the SHA-256 of its
// token, until expires. The session the browser held before (replaces, its
// hash; "" when none) ends in the same transaction, so signing in always
// rotates the session; sessions that expired are swept on the way.
func (s *Store) CreateSession(ctx context.Context, tokenHash, userID string, expires time.Time, replaces string) error {
	now := s.Now()
	return s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM console_sessions WHERE token_hash = $1 OR expires_at <= $2`,
			replaces, now); err != nil {
			return fmt.Errorf("store: create session: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO console_sessions (token_hash, user_id, created_at, expires_at)
			VALUES ($1, $2, $3, $4)`, tokenHash, userID, now, expires.UTC()); err != nil {
			return fmt.Errorf("store: create session: %w", err)
		}
		return nil
	})
}

// SessionUser returns the user of a live session; an unknown or expired
// session is unauthorized.
func (s *Store) SessionUser(ctx context.Context, tokenHash string) (*User, error) {
	var u User
	err := s.rdb.QueryRowContext(ctx, `SELECT u.id, u.email, u.password_hash, u.created_at
		FROM console_sessions se JOIN console_users u ON u.id = se.user_id
		WHERE se.token_hash = $1 AND se.expires_at > $2`, tokenHash, s.Now()).
		Scan(&u.ID, &u.Email, &u.PasswordHash, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.Errorf(model.CodeUnauthorized, "not signed in")
	}
	if err != nil {
		return nil, fmt.Errorf("store: session: %w", err)
	}
	u.CreatedAt = u.CreatedAt.UTC()
	return &u, nil
}

// DeleteSession ends a session (sign-out); an unknown one is no error.
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM console_sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// SignInLimit is the most failed sign-ins a subject ("email:…",
// "addr:…") may have in one window.
type SignInLimit struct {
	Subject string
	Max     int
}

// errSignInBlocked rolls back a reservation that a limit refused.
var errSignInBlocked = errors.New("store: sign-in blocked")

// ReserveSignIn counts one attempt against each of limits before its
// password is checked, and returns zero; an attempt that succeeds gives it
// back (SignInSucceeded), so what stays counted are the failures. When a
// subject already has its maximum in the current window, nothing is
// counted and ReserveSignIn returns when the first blocked subject may try
// again. Counting and checking are one statement per subject in one
// transaction, so parallel attempts can never pass a limit: the row each
// increments is locked until the transaction ends. A window begins with a
// subject's first attempt and lasts window.
func (s *Store) ReserveSignIn(ctx context.Context, limits []SignInLimit, window time.Duration) (time.Time, error) {
	now := s.Now()
	var until time.Time
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		// Windows that ended count for nothing: keep the table small.
		if _, err := tx.ExecContext(ctx, `DELETE FROM console_signin_failures WHERE window_start <= $1`, now.Add(-window)); err != nil {
			return err
		}
		for _, l := range limits {
			var n int
			var start time.Time
			err := tx.QueryRowContext(ctx, `INSERT INTO console_signin_failures (subject, failures, window_start) VALUES ($1, 1, $2)
				ON CONFLICT (subject) DO UPDATE SET failures = console_signin_failures.failures + 1
				RETURNING failures, window_start`, l.Subject, now).Scan(&n, &start)
			if err != nil {
				return err
			}
			if end := start.UTC().Add(window); n > l.Max && end.After(until) {
				until = end
			}
		}
		if !until.IsZero() {
			return errSignInBlocked
		}
		return nil
	})
	switch {
	case errors.Is(err, errSignInBlocked):
		return until, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("store: reserve sign-in: %w", err)
	}
	return time.Time{}, nil
}

// SignInSucceeded ends a reserved attempt that signed in: the account's
// failures are forgotten, and the attempt is given back to the other
// subjects (the address it came from).
func (s *Store) SignInSucceeded(ctx context.Context, account string, others []string) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM console_signin_failures WHERE subject = $1`, account); err != nil {
			return fmt.Errorf("store: sign-in succeeded: %w", err)
		}
		for _, sub := range others {
			if _, err := tx.ExecContext(ctx, `UPDATE console_signin_failures SET failures = failures - 1
				WHERE subject = $1 AND failures > 0`, sub); err != nil {
				return fmt.Errorf("store: sign-in succeeded: %w", err)
			}
		}
		return nil
	})
}

// CreateSetupLink stores a one-time link (by the SHA-256 of its token)
// that lets whoever holds it create the first console account of a
// workspace before expires.
func (s *Store) CreateSetupLink(ctx context.Context, tokenHash, workspaceID string, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO console_setup_links (token_hash, workspace_id, expires_at) VALUES ($1, $2, $3)`,
		tokenHash, workspaceID, expires.UTC())
	if err != nil {
		return fmt.Errorf("store: create setup link: %w", err)
	}
	return nil
}

// SetupLink returns the workspace of an unused, unexpired setup link;
// any other is not_found.
func (s *Store) SetupLink(ctx context.Context, tokenHash string) (*model.Workspace, error) {
	var id string
	err := s.rdb.QueryRowContext(ctx, `SELECT workspace_id FROM console_setup_links
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`, tokenHash, s.Now()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errSetupLink
	}
	if err != nil {
		return nil, fmt.Errorf("store: setup link: %w", err)
	}
	return s.Workspace(ctx, id)
}

var errSetupLink = model.Errorf(model.CodeNotFound, "this setup link is unknown, used or expired")

// UseSetupLink spends a setup link: it creates the account and grants it
// the link's workspace, in one transaction, so a link makes one account.
func (s *Store) UseSetupLink(ctx context.Context, tokenHash, email, passwordHash string) (*User, error) {
	now := s.Now()
	var u *User
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var ws string
		err := tx.QueryRowContext(ctx, `UPDATE console_setup_links SET used_at = $2
			WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING workspace_id`, tokenHash, now).Scan(&ws)
		if errors.Is(err, sql.ErrNoRows) {
			return errSetupLink
		}
		if err != nil {
			return fmt.Errorf("store: use setup link: %w", err)
		}
		if u, err = s.insertUser(ctx, tx, email, passwordHash); err != nil {
			return err
		}
		return s.grant(ctx, tx, u.ID, ws, RoleOwner)
	})
	return u, err
}
