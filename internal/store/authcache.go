package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"webacq/internal/model"
)

// authCache spares SQLite a key lookup per request. SQLite serves one node,
// and every change that can invalidate a cached principal (a revocation, an
// entitlement change) moves a sidecar file next to the database, in
// whichever process makes it (server or command line). Each lookup stats the
// file; a changed size or time empties the cache. So a revocation is seen by
// the very next request, as with an uncached lookup: the cache never
// outlives it. PostgreSQL (many nodes) is never cached.
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
//
// An epoch kept in the database itself was measured instead: reading it
// costs most of an uncached lookup (a query through database/sql), which
// would leave the cache nothing to save.
type authCache struct {
	path string

	mu    sync.Mutex
	stamp fileStamp
	m     map[string]model.Principal // by key hash
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ok    bool // readable, and no change under way (even size)
}

// maxCachedKeys bounds the cache; it is emptied when full.
const maxCachedKeys = 10000

// maxSidecar is the size past which a change starts the sidecar over.
const maxSidecar = 64 << 10

func newAuthCache(dbPath string) *authCache {
	return &authCache{path: sidecarPath(dbPath), m: map[string]model.Principal{}}
}

func sidecarPath(dbPath string) string { return dbPath + ".auth-epoch" }

func (c *authCache) current() fileStamp {
	fi, err := os.Stat(c.path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size()%2 != 0 {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mtime: fi.ModTime(), ok: true}
}

// get returns the cached principal of hash, and the stamp under which a
// miss may later be put.
func (c *authCache) get(hash string) (model.Principal, fileStamp, bool) {
	st := c.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !st.ok || st != c.stamp {
		clear(c.m)
		c.stamp = st
	}
	p, ok := c.m[hash]
	return p, st, ok && st.ok
}

// put caches a principal read from the database, unless an invalidation
// happened since the stamp was taken. An entry put after a change committed
// under an older stamp is harmless: the next get sees the new stamp first.
func (c *authCache) put(hash string, p model.Principal, st fileStamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !st.ok || st != c.stamp {
		return
	}
	if len(c.m) >= maxCachedKeys {
		clear(c.m)
	}
	c.m[hash] = p
}

// len is how many principals are cached.
func (c *authCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// changeAuth runs change, a write that may invalidate cached principals, in
// the sidecar's sequence lock (see authCache). When the sidecar cannot be
// written, nothing is changed: a change that running servers could not
// learn of would let them honour a revoked key.
func (s *Store) changeAuth(change func() error) error {
	if s.auth == nil {
		return change()
	}
	f, err := os.OpenFile(s.auth.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("store: nothing changed: running servers could not be told (%s): %w", s.auth.path, err)
	}
	defer f.Close()
	// One change at a time on this database, across processes, so the
	// parity of the size means what it says.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("store: nothing changed: lock %s: %w", s.auth.path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if err := bumpSidecar(f, true); err != nil {
		return fmt.Errorf("store: nothing changed: running servers could not be told (%s): %w", s.auth.path, err)
	}
	err = change()
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
