// Package benchdb gives a benchmark a PostgreSQL schema of its own.
package benchdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Schema creates a fresh schema named prefix_<random> on the PostgreSQL at
// base and returns base's URL with search_path set to it, and the function
// that drops it.
func Schema(base, prefix string) (string, func(), error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	var b [6]byte
	rand.Read(b[:])
	name := prefix + "_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("postgres at %s: %w", base, err)
	}
	u, err := url.Parse(base)
	if err != nil {
		db.Close()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), func() { db.Exec(`DROP SCHEMA ` + name + ` CASCADE`); db.Close() }, nil
}
