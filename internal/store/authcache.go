package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"webacq/internal/model"
)

// authCache spares the database a key lookup per request. Every change that
// can invalidate a cached principal (a revocation, an entitlement change)
// goes through changeAuth, in whichever process makes it (server, console or
// command line), and moves an epoch that each lookup compares with the one
// its entries were read under: a changed epoch empties the cache first. So
// a revocation is seen by the very next request, as with an uncached lookup:
// the cache never outlives it. Where the epoch comes from depends on the
// engine (epochSource):
//
//   - SQLite (one node): a sidecar file next to the database, whose size and
//     time each lookup stats (sidecarEpoch).
//   - PostgreSQL (many nodes): a version row bumped in the change's own
//     transaction, with a NOTIFY that every node's listener acts on; the
//     change returns once every node has acknowledged it or could no longer
//     be serving from its cache (pgEpoch, in authlisten.go).
//
// An epoch kept in the database and read by each lookup was measured
// instead: reading it costs most of an uncached lookup (a query through
// database/sql), which would leave the cache nothing to save.
type authCache struct {
	source epochSource

	mu    sync.Mutex
	epoch authEpoch
	m     map[string]model.Principal // by key hash
}

// epochSource tells the cache the epoch of the principals it may hold now.
type epochSource interface {
	current() authEpoch
}

// authEpoch names a state of the keys and workspaces: principals read under
// one epoch may be served while it lasts. ok false means nothing may be
// cached (a change is under way, or this node cannot learn of changes).
type authEpoch struct {
	stamp fileStamp // SQLite
	gen   uint64    // PostgreSQL: bumped by this node's listener
	ok    bool
}

// sidecarEpoch is SQLite's epoch: the sidecar file's size and time.
//
// The sidecar is a sequence lock: a change makes its size odd before its
// transaction and even after the commit, holding an exclusive flock on it
// meanwhile, and nothing is cached while the size is odd. A writer that
// dies between its commit and its second append therefore leaves the cache
// off (correct, only slower) until the next change completes, instead of
// leaving a principal read before the commit in the cache for good.
//
// The sidecar is named after the database's canonical path (symbolic links
// resolved, as SQLite itself does to name its WAL), so every spelling of
// one database shares it. Hard links are not unified; SQLite keeps a WAL
// per name and does not support them either.
type sidecarEpoch struct{ path string }

type fileStamp struct {
	size  int64
	mtime time.Time
}

// maxCachedKeys bounds the cache; it is emptied when full.
const maxCachedKeys = 10000

// maxSidecar is the size past which a change starts the sidecar over.
const maxSidecar = 64 << 10

func newAuthCache(source epochSource) *authCache {
	return &authCache{source: source, m: map[string]model.Principal{}}
}

func sidecarPath(dbPath string) string { return dbPath + ".auth-epoch" }

func (e sidecarEpoch) current() authEpoch {
	fi, err := os.Stat(e.path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size()%2 != 0 {
		return authEpoch{}
	}
	return authEpoch{stamp: fileStamp{size: fi.Size(), mtime: fi.ModTime()}, ok: true}
}

// get returns the cached principal of hash, and the epoch under which a
// miss may later be put.
func (c *authCache) get(hash string) (model.Principal, authEpoch, bool) {
	ep := c.source.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ep.ok || ep != c.epoch {
		clear(c.m)
		c.epoch = ep
	}
	p, ok := c.m[hash]
	return p, ep, ok && ep.ok
}

// put caches a principal read from the database, unless an invalidation
// happened since the epoch was taken. An entry put after a change committed
// under an older epoch is harmless: the next get sees the new epoch first.
func (c *authCache) put(hash string, p model.Principal, ep authEpoch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ep.ok || ep != c.epoch {
		return
	}
	if len(c.m) >= maxCachedKeys {
		clear(c.m)
	}
	c.m[hash] = p
}

// drop empties the cache at once (it would be emptied by the next get
// anyway): memory is not held for principals nobody may use.
func (c *authCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}

// len is how many principals are cached.
func (c *authCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// changeAuth runs change, a write that may invalidate cached principals, so
// that every node's cache learns of it before the next lookup (see
// authCache). On PostgreSQL change runs in a transaction that also moves
// the epoch (see pgEpoch); on SQLite, on the writer, in the sidecar's
// sequence lock.
func (s *Store) changeAuth(ctx context.Context, change func(ex execer) error) error {
	if s.dialect == Postgres {
		return s.changeAuthPG(ctx, change)
	}
	if s.auth == nil {
		return change(s.db)
	}
	path := s.auth.source.(sidecarEpoch).path
	// When the sidecar cannot be written, nothing is changed: a change that
	// running servers could not learn of would let them honour a revoked
	// key.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("store: nothing changed: running servers could not be told (%s): %w", path, err)
	}
	defer f.Close()
	// One change at a time on this database, across processes, so the
	// parity of the size means what it says.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("store: nothing changed: lock %s: %w", path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if err := bumpSidecar(f, true); err != nil {
		return fmt.Errorf("store: nothing changed: running servers could not be told (%s): %w", path, err)
	}
	err = change(s.db)
	// After a failed change this only empties caches, which is harmless. If
	// it fails after a commit, the size stays odd and servers cache nothing
	// until the next change: still correct, so the change is reported done.
	bumpSidecar(f, false)
	return err
}

// bumpSidecar grows the sidecar by one or two bytes so that its size gets
// the wanted parity (odd: a change is under way) and always changes,
// starting over when it has grown past maxSidecar.
func bumpSidecar(f *os.File, odd bool) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size >= maxSidecar {
		if err := f.Truncate(0); err != nil {
			return err
		}
		size = 0
	}
	b := []byte("..")
	if (size%2 == 1) != odd {
		b = b[:1]
	}
	_, err = f.Write(b)
	return err
}

// canonicalPath names a SQLite database file the same way whatever the
// spelling: symbolic links are resolved (in the file name and in every
// folder of it) and the result is absolute. The file is created when
// missing so that a symbolic link to a file yet to exist resolves as well.
// Links are resolved before the path is cleaned: "link/../db" names the
// folder above the link's target, not the folder holding the link.
func canonicalPath(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return "", err
	}
	f.Close()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}
