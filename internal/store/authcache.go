package store

import (
	"os"
	"sync"
	"time"

	"webacq/internal/model"
)

// authCache spares SQLite a key lookup per request. SQLite serves one node,
// and every change that can invalidate a cached principal (a revocation, an
// entitlement change) appends a byte to a sidecar file after its commit, in
// whichever process made it (server or command line). Each lookup stats the
// file; a changed size or time empties the cache. So a revocation is seen by
// the very next request, as with an uncached lookup: the cache never
// outlives it. PostgreSQL (many nodes) is never cached.
type authCache struct {
	path string

	mu    sync.Mutex
	stamp fileStamp
	m     map[string]model.Principal // by key hash
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ok    bool
}

// maxCachedKeys bounds the cache; it is emptied when full.
const maxCachedKeys = 10000

func newAuthCache(path string) *authCache {
	return &authCache{path: path, m: map[string]model.Principal{}}
}

func (c *authCache) current() fileStamp {
	fi, err := os.Stat(c.path)
	if err != nil {
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
// happened since the stamp was taken.
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

// invalidate tells every process sharing the database that cached
// principals are stale: it appends one byte to the sidecar file (so its
// size always changes), starting over when it grows past 64 KiB.
func invalidateAuth(path string) error {
	flag := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fi, err := os.Stat(path); err == nil && fi.Size() >= 64<<10 {
		flag = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte{'.'}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
