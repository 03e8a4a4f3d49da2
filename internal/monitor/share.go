package monitor

import (
	"context"
	"sync"
	"time"
)

// limiter shares pools of slots among workspaces: the node's check workers
// (one pool) and each host's slots (a pool per host). A workspace is
// guaranteed its share of a pool and may borrow the rest while no other
// workspace needs it; docs/MONITORS.md ("Fair share") states the rule.
type limiter struct {
	mu    sync.Mutex
	pools map[string]*pool
}

// pool is one key's slots: n of them, share guaranteed to each workspace.
type pool struct {
	n, share int
	used     int
	by       map[string]int // slots held, by workspace
	// over is how many slots are borrowed: the sum, over workspaces, of
	// what each holds beyond its share.
	over    int
	waiting map[string]int // checks waiting for a slot, by workspace
	// free is closed, and replaced, whenever a slot is given back or a
	// waiter gives up, so that the waiters look again.
	free chan struct{}
}

// admits says whether a check of workspace w may take a slot now.
//
// Within its share, it may whenever fewer than n are in use, and also,
// while some workspace holds more than its share, whenever fewer than
// n+share are: a borrowed slot is never taken back from a running check,
// so room for the others' shares is lent beyond n instead. Past its share,
// it borrows only an idle slot (fewer than n in use) and only while no
// check of another workspace within its share waits for one.
func (p *pool) admits(w string) bool {
	if p.by[w] < p.share {
		return p.used < p.n || (p.over > 0 && p.used < p.n+p.share)
	}
	if p.used >= p.n {
		return false
	}
	for v, k := range p.waiting {
		if v != w && k > 0 && p.by[v] < p.share {
			return false
		}
	}
	return true
}

func (p *pool) take(w string) {
	if p.by[w] >= p.share {
		p.over++
	}
	p.by[w]++
	p.used++
}

func (p *pool) give(w string) {
	p.by[w]--
	if p.by[w] >= p.share {
		p.over--
	}
	if p.by[w] == 0 {
		delete(p.by, w)
	}
	p.used--
	p.wake()
}

func (p *pool) wake() {
	close(p.free)
	p.free = make(chan struct{})
}

// acquire takes a slot of key's pool of n for workspace, whose share of
// them is share (share >= n: no sharing, n in all), waiting at most wait
// for one. It returns the function that gives the slot back, or false
// when wait or ctx ran out first.
func (l *limiter) acquire(ctx context.Context, key, workspace string, n, share int, wait time.Duration) (func(), bool) {
	var t *time.Timer
	waiting := false
	l.mu.Lock()
	if l.pools == nil {
		l.pools = map[string]*pool{}
	}
	p, ok := l.pools[key]
	if !ok {
		p = &pool{by: map[string]int{}, waiting: map[string]int{}, free: make(chan struct{})}
		l.pools[key] = p
	}
	p.n, p.share = n, min(share, n)
	for {
		if p.admits(workspace) {
			p.take(workspace)
			if waiting {
				l.unwait(key, p, workspace, false)
			}
			l.mu.Unlock()
			if t != nil {
				t.Stop()
			}
			return func() { l.release(key, p, workspace) }, true
		}
		if !waiting {
			waiting = true
			p.waiting[workspace]++
			t = time.NewTimer(wait)
		}
		free := p.free
		l.mu.Unlock()
		select {
		case <-free:
			l.mu.Lock()
		case <-t.C:
			l.mu.Lock()
			l.unwait(key, p, workspace, true)
			l.mu.Unlock()
			return nil, false
		case <-ctx.Done():
			t.Stop()
			l.mu.Lock()
			l.unwait(key, p, workspace, true)
			l.mu.Unlock()
			return nil, false
		}
	}
}

// unwait ends a wait of workspace's check; one that gives up wakes the
// others, since a check past its share may have waited only for it.
func (l *limiter) unwait(key string, p *pool, workspace string, gaveUp bool) {
	if p.waiting[workspace]--; p.waiting[workspace] == 0 {
		delete(p.waiting, workspace)
	}
	if gaveUp {
		p.wake()
		l.drop(key, p)
	}
}

func (l *limiter) release(key string, p *pool, workspace string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p.give(workspace)
	l.drop(key, p)
}

// drop forgets an idle pool (the hosts come and go); a waiter woken by its
// last release holds the pool and looks again in it.
func (l *limiter) drop(key string, p *pool) {
	if p.used == 0 && len(p.waiting) == 0 && l.pools[key] == p {
		delete(l.pools, key)
	}
}

// share is one workspace's part of n slots: WorkspaceShare percent of
// them, at least one.
func (s *Service) share(n int) int {
	if s.WorkspaceShare <= 0 || s.WorkspaceShare >= 100 {
		return n
	}
	return max(1, n*s.WorkspaceShare/100)
}

// Runners is how many jobs the node's monitor queue must run at once
// (River's MaxWorkers): the Workers, and the share lent beyond them while
// one workspace has borrowed idle workers, so that another workspace's
// check gets a worker of its share without waiting for a borrowed one to
// end. Workers when shares are off.
func (s *Service) Runners() int {
	if s.Workers <= 0 || s.share(s.Workers) >= s.Workers {
		return max(s.Workers, 0)
	}
	return s.Workers + s.share(s.Workers)
}

// shareWait is how long a check that found no worker waits for one before
// it snoozes: the checks of a fast site end within it, so a workspace
// alone on the node does not snooze its checks one after another, while a
// waiting check gives its job's runner back soon for other workspaces'.
const shareWait = 100 * time.Millisecond

// hostWait is how long a check waits for a slot of its host before it
// snoozes: long enough for the fetches of a fast host to make room without
// a snooze each, short enough that a slow host does not hold the worker.
const hostWait = 2 * time.Second

// busySnooze is how long a check that found no room waits before it is
// tried again: a second or more, spread over four by job id.
func busySnooze(jobID int64) time.Duration { return time.Second + time.Duration(jobID%4)*time.Second }
