package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// On PostgreSQL the key cache's epoch is kept by a listener per node, on a
// connection of its own (not the pool's):
//
//   - Each change (changeAuth) bumps auth_epoch.version and sends a NOTIFY
//     in its own transaction. It then waits until every registered listener
//     has acknowledged the new version (auth_listeners.version), or until
//     leaseFor has passed since its commit, and only then returns.
//   - A listener registers (a row with its backend pid) after LISTEN, so it
//     misses no notice. On a notice it empties its cache (a new generation)
//     and then acknowledges.
//   - Every heartbeatEvery it renews its row and reads the version. Its
//     cache may serve only until leaseFor after the start of the last
//     heartbeat that found no newer version. A node that hears nothing (its
//     listener's connection killed, the network cut, the process stalled)
//     thus stops serving from its cache before a change that could not
//     reach it returns. Its connection's loss also turns the cache off at
//     once, until it has registered again.
//
// So a change is seen by the next lookup on every node, as on SQLite; it
// takes a few milliseconds (one notice and one acknowledgement), or leaseFor
// when a registered node does not answer. Rows of nodes that stopped without
// removing theirs are removed by the next change once staleAfter old.
const (
	heartbeatEvery = 250 * time.Millisecond
	leaseFor       = 2 * time.Second
	staleAfter     = 15 * time.Second // at least leaseFor
)

// authChannelSQL names the channel of this database and schema: the test
// schemas of one server do not hear one another, and the name stays under
// PostgreSQL's 63 bytes whatever the schema's.
const authChannelSQL = `'webacq_auth_' || left(md5(current_schema()), 16)`

// pgEpoch is the epoch source of PostgreSQL (see above). Its listener starts
// with the first lookup, so command-line processes never run one.
type pgEpoch struct {
	s    *Store
	base time.Time // lease is measured on the monotonic clock from here
	gen  atomic.Uint64
	// lease is when (after base) the cache stops serving; 0 when off.
	lease atomic.Int64

	once   sync.Once
	cancel context.CancelFunc
	done   chan struct{}
}

func newPGEpoch(s *Store) *pgEpoch { return &pgEpoch{s: s, base: time.Now()} }

func (e *pgEpoch) current() authEpoch {
	gen := e.gen.Load()
	return authEpoch{gen: gen, ok: time.Since(e.base) < time.Duration(e.lease.Load())}
}

// start runs the listener unless it runs already or was stopped.
func (e *pgEpoch) start() {
	e.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		e.cancel, e.done = cancel, make(chan struct{})
		go e.run(ctx)
	})
}

// stop ends the listener and removes its registration.
func (e *pgEpoch) stop() {
	e.once.Do(func() {}) // a lookup after Close starts nothing
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
}

// invalidate empties the cache: entries read before it are never served.
func (e *pgEpoch) invalidate() {
	e.gen.Add(1)
	e.s.auth.drop()
}

// off turns the cache off until the listener has registered again.
func (e *pgEpoch) off() {
	e.lease.Store(0)
	e.invalidate()
}

func (e *pgEpoch) run(ctx context.Context) {
	defer close(e.done)
	wait := 50 * time.Millisecond
	for {
		began := time.Now()
		err := e.session(ctx)
		e.off()
		if ctx.Err() != nil {
			return
		}
		slog.Warn("key cache off: listener lost, lookups read the database until it is back", "err", err)
		if time.Since(began) > time.Minute {
			wait = 50 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// session listens on one connection until it fails or ctx ends.
func (e *pgEpoch) session(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, e.s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var channel string
	if err := conn.QueryRow(ctx, `SELECT `+authChannelSQL).Scan(&channel); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	id := uuid.NewString()
	t0 := e.since()
	var known int64
	err = conn.QueryRow(ctx, `INSERT INTO auth_listeners (id, pid, version, seen_at)
		SELECT $1, pg_backend_pid(), version, now() FROM auth_epoch WHERE id = 1 RETURNING version`, id).Scan(&known)
	if err != nil {
		return err
	}
	defer func() {
		// Changes need not wait for a listener that is gone; but the cache
		// goes off first, or a change that no longer waits for this node
		// could return while it still serves what the change revoked.
		// Through the pool: this connection may be the one that failed.
		e.off()
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.s.db.ExecContext(c, `DELETE FROM auth_listeners WHERE id = $1`, id)
	}()
	// Principals read before the registration belong to no epoch this
	// listener vouches for.
	e.invalidate()
	e.lease.Store(int64(t0 + leaseFor))

	seen := func(v int64) error {
		if v <= known {
			return nil
		}
		e.invalidate()
		known = v
		c, cancel := context.WithTimeout(ctx, leaseFor)
		defer cancel()
		_, err := conn.Exec(c, `UPDATE auth_listeners SET version = $2 WHERE id = $1`, id, v)
		return err
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, heartbeatEvery)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			v, perr := strconv.ParseInt(n.Payload, 10, 64)
			if perr != nil {
				return fmt.Errorf("auth notice %q: %w", n.Payload, perr)
			}
			if err := seen(v); err != nil {
				return err
			}
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded):
			return err
		}
		// Heartbeat. One that takes longer than the lease ends the session:
		// the lease has lapsed anyway, and a new connection may fare better.
		t0 := e.since()
		var v int64
		hctx, cancel := context.WithTimeout(ctx, leaseFor)
		err = conn.QueryRow(hctx, `UPDATE auth_listeners SET seen_at = now() WHERE id = $1
			RETURNING (SELECT version FROM auth_epoch WHERE id = 1)`, id).Scan(&v)
		cancel()
		if errors.Is(err, pgx.ErrNoRows) {
			return errors.New("registration removed as stale")
		}
		if err != nil {
			return err
		}
		if err := seen(v); err != nil {
			return err
		}
		e.lease.Store(int64(t0 + leaseFor))
	}
}

func (e *pgEpoch) since() time.Duration { return time.Since(e.base) }

// changeAuthPG runs change in a transaction that bumps the epoch and tells
// every listener, then waits for them (see pgEpoch).
func (s *Store) changeAuthPG(ctx context.Context, change func(ex execer) error) error {
	var version int64
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if err := change(tx); err != nil {
			return err
		}
		// A listener whose row is this old has had no lease for a while;
		// its next heartbeat finds the row gone and registers again.
		if _, err := tx.ExecContext(ctx, `DELETE FROM auth_listeners WHERE seen_at < now() - $1 * interval '1 millisecond'`,
			staleAfter.Milliseconds()); err != nil {
			return fmt.Errorf("store: auth epoch: %w", err)
		}
		if err := tx.QueryRowContext(ctx, `UPDATE auth_epoch SET version = version + 1 WHERE id = 1 RETURNING version`).
			Scan(&version); err != nil {
			return fmt.Errorf("store: auth epoch: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify(`+authChannelSQL+`, $1)`, strconv.FormatInt(version, 10)); err != nil {
			return fmt.Errorf("store: auth epoch: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.listener.invalidate()
	s.awaitListeners(version, time.Now().Add(leaseFor))
	return nil
}

// awaitListeners waits until every registered listener has acknowledged
// version, or until deadline, when any that has not could no longer be
// serving from its cache. The change is committed: the caller's context is
// not consulted, the wait is bounded.
func (s *Store) awaitListeners(version int64, deadline time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for {
		var behind int
		err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM auth_listeners WHERE version < $1`, version).Scan(&behind)
		if err == nil && behind == 0 {
			return
		}
		select {
		case <-ctx.Done():
			// Sleep out the rest: a query cut short says nothing.
			time.Sleep(time.Until(deadline))
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}
