package primitive

import (
	"context"
	"hash/maphash"
	"net/url"
	"sync"
	"time"

	"webacq/internal/model"
)

// maxCrawlDelay caps the Crawl-delay honoured between page requests.
const maxCrawlDelay = 10 * time.Second

// frontier is the crawl engine that gyre and map's link walk share: the
// URLs admitted (deduplicated by NormalizeURL, at most capacity of them),
// a queue per scheme and host taken round robin, robots.txt read once per
// host before its first page and obeyed for every page, a Crawl-delay
// honoured with one request at a time, and the workers. What a page is
// made into is the caller's: visit runs on a worker's goroutine and take
// on the goroutine running run, which owns every field below but the
// read-only ones and known (safe for concurrent use).
type frontier[T any] struct {
	// Read-only during the crawl.
	s        *Service
	filter   *linkFilter
	workers  int           // pages in flight at once
	perHost  int           // pages in flight at once per host
	delay    time.Duration // spaces the requests to one host; a longer Crawl-delay wins
	capacity int           // the most URLs admitted (and the most parked)
	// maxDepth is the most links away from the start page a page may be
	// and still be fetched. A page linked from further away is parked: it
	// is fetched only if a shorter path to it turns up (relax).
	maxDepth int
	// ordered takes the pages in the order they started, whatever order
	// they complete in, so that what the caller builds does not depend on
	// which server answers first.
	ordered bool

	// visit fetches and reads one page that robots.txt allows.
	visit func(ctx context.Context, j *crawlJob) T
	// take takes a page's outcome into the caller's result; it may admit
	// URLs.
	take func(ctx context.Context, r crawlReport[T])
	// mayStart says whether one more page may start besides those in
	// flight.
	mayStart func(inflight int) bool
	// over, when not nil, ends the crawl even with pages in flight.
	over func() bool
	// resume, when not nil, runs first on run's goroutine: it takes in the
	// work of an earlier run (gyre's journal) and reports whether the
	// start page was among it, in which case it is not fetched again.
	resume func(ctx context.Context) (startDone bool)

	// known holds raw links whose fate is settled: refused by the filter
	// or past capacity (no job), or taken to admit (their job). Pages
	// repeat their navigation; a link known is not parsed again.
	known linkMemo

	wg       sync.WaitGroup
	reports  chan crawlReport[T]
	answered chan *crawlJob // see requestOver
	hostInfo chan crawlHostInfo
	calls    chan func()

	// jobs are the URLs admitted or parked by key, and the other keys of
	// pages taken (final and canonical URLs) by the job of the page.
	jobs      map[string]*crawlJob
	admitted  int
	parked    int // jobs parked beyond maxDepth
	hosts     map[string]*crawlHost
	order     []*crawlHost // round-robin order of hosts
	next      int          // where the next round-robin pick starts
	queued    int
	robots    int // robots.txt lookups in flight
	aside     int // aside calls running
	inflight  int
	requested int // pages started, less those robots.txt refused
	started   int // pages started: the next crawlJob.seq
	taken     int // with ordered, the seq of the next report to take
	held      map[int]crawlReport[T]
}

// crawlJob is one URL of the frontier. A worker reads only url, key,
// start and host; the rest belongs to the goroutine running run.
type crawlJob struct {
	url   string // cleaned (cleanURL)
	key   string // NormalizeURL(url)
	start bool
	seq   int // the order in which pages started
	host  *crawlHost
	// depth is the fewest links from the start page to this URL that the
	// crawl has seen so far, and via the page at the end of that path (or
	// GyreViaStart, GyreViaSitemap). Both may fall until the page is
	// taken; depth may fall after that too (via stays as returned).
	depth int
	via   string
	// parked: found only beyond maxDepth; not queued.
	parked bool
	// taken: the caller has taken the page's outcome; page is its URL
	// (the via of its links) and links the jobs of the links it follows.
	taken bool
	page  string
	links []*crawlJob
	// answered: the page's requests are over before its report (see
	// requestOver); its host's slot is free already.
	answered bool
}

// crawlHost is the queue and the limits of one scheme and host.
type crawlHost struct {
	origin   string // scheme://host[:port]
	ready    bool   // robots.txt has been read
	limit    int
	pace     *pacer
	inflight int
	jobs     []*crawlJob
}

type crawlHostInfo struct {
	host  *crawlHost
	delay time.Duration
}

// crawlReport is what a worker reports for one job: the robots.txt
// verdict, a wait cut short by the end of the crawl, or visit's outcome.
type crawlReport[T any] struct {
	job        *crawlJob
	disallowed bool
	err        error
	out        T
}

func (f *frontier[T]) init() {
	f.reports = make(chan crawlReport[T])
	f.answered = make(chan *crawlJob)
	f.hostInfo = make(chan crawlHostInfo)
	f.calls = make(chan func())
	f.jobs = make(map[string]*crawlJob)
	f.hosts = make(map[string]*crawlHost)
	f.held = make(map[int]crawlReport[T])
	f.known = linkMemo{seed: maphash.MakeSeed(), seen: make(map[uint64]*crawlJob), max: linkMemoFactor * f.capacity}
}

// run crawls from the start URL (cleaned) until ctx ends, over says so, or
// nothing is left to do or wait for. Every worker has stopped when it
// returns.
func (f *frontier[T]) run(ctx context.Context, start string) {
	ctx, cancel := context.WithCancel(ctx)
	defer f.wg.Wait()
	defer cancel()

	key, _ := NormalizeURL(start)
	if f.resume == nil || !f.resume(ctx) {
		j := &crawlJob{url: start, key: key, via: GyreViaStart, start: true}
		f.jobs[key] = j
		f.admitted++
		f.enqueue(ctx, j)
	} else if f.jobs[key] == nil {
		f.jobs[key] = &crawlJob{url: start, key: key, via: GyreViaStart, start: true, taken: true, page: start}
	}
	for {
		f.schedule(ctx)
		if ctx.Err() != nil || (f.over != nil && f.over()) {
			return
		}
		if f.inflight == 0 && (!f.mayStart(0) || (f.robots == 0 && f.aside == 0)) {
			return
		}
		select {
		case r := <-f.reports:
			f.inflight--
			if !r.job.answered {
				r.job.host.inflight--
				r.job.host.pace.over()
			}
			if r.disallowed {
				f.requested--
			}
			f.deliver(ctx, r)
		case j := <-f.answered:
			j.answered = true
			j.host.inflight--
			j.host.pace.over()
		case hi := <-f.hostInfo:
			f.robots--
			hi.host.ready = true
			hi.host.limit = f.perHost
			if d := max(hi.delay, f.delay); d > 0 {
				hi.host.limit = 1
				hi.host.pace = &pacer{delay: min(d, maxCrawlDelay)}
			}
		case call := <-f.calls:
			f.aside--
			call()
		case <-ctx.Done():
		}
	}
}

// deliver hands a report to take, in start order when ordered.
func (f *frontier[T]) deliver(ctx context.Context, r crawlReport[T]) {
	if !f.ordered {
		f.take(ctx, r)
		return
	}
	f.held[r.job.seq] = r
	for {
		r, ok := f.held[f.taken]
		if !ok {
			return
		}
		delete(f.held, f.taken)
		f.taken++
		f.take(ctx, r)
	}
}

// admit takes a vetted URL found depth links away from the start page
// through via, and returns its job, nil when the frontier is full. A URL
// known already keeps its job, whose depth falls to depth if that is
// nearer (relax); a new one is queued, or parked when it is beyond
// maxDepth.
func (f *frontier[T]) admit(ctx context.Context, c candidate, via string, depth int) *crawlJob {
	if j := f.jobs[c.key]; j != nil {
		if c.raw != "" {
			f.known.add(c.raw, j)
		}
		f.relax(ctx, j, depth, via)
		return j
	}
	j := &crawlJob{url: c.url, key: c.key, via: via, depth: depth}
	if depth > f.maxDepth {
		if f.parked >= f.capacity {
			// Not remembered: the link may turn up nearer later.
			return nil
		}
		j.parked = true
		f.parked++
	} else if f.admitted >= f.capacity {
		if c.raw != "" {
			f.known.add(c.raw, nil)
		}
		return nil
	}
	if c.raw != "" {
		f.known.add(c.raw, j)
	}
	f.jobs[c.key] = j
	if !j.parked {
		f.admitted++
		f.enqueue(ctx, j)
	}
	return j
}

// follow takes the links of a page taken at j's depth: the jobs of those
// known and those admitted, which become j's links.
func (f *frontier[T]) follow(ctx context.Context, j *crawlJob, links pageLinks) {
	j.links = make([]*crawlJob, 0, len(links.known)+len(links.fresh))
	for _, k := range links.known {
		f.relax(ctx, k, j.depth+1, j.page)
		j.links = append(j.links, k)
	}
	for _, c := range links.fresh {
		if k := f.admit(ctx, c, j.page, j.depth+1); k != nil {
			j.links = append(j.links, k)
		}
	}
}

// relax gives j the depth d, through via, if that is nearer than its own:
// a parked job now within maxDepth is queued (if the frontier has room),
// and the links of a page taken are relaxed in turn, so that a page taken
// with its links cut by maxDepth has them followed when a shorter path to
// it turns up. No page is fetched twice: a job is queued once.
func (f *frontier[T]) relax(ctx context.Context, j *crawlJob, d int, via string) {
	if d >= j.depth {
		return
	}
	type step struct {
		j   *crawlJob
		d   int
		via string
	}
	todo := []step{{j, d, via}}
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if s.d >= s.j.depth {
			continue
		}
		s.j.depth = s.d
		if !s.j.taken {
			s.j.via = s.via
		}
		if s.j.parked && s.d <= f.maxDepth && f.admitted < f.capacity {
			s.j.parked = false
			f.parked--
			f.admitted++
			f.enqueue(ctx, s.j)
		}
		for _, k := range s.j.links {
			if s.d+1 < k.depth {
				todo = append(todo, step{k, s.d + 1, s.j.page})
			}
		}
	}
}

// runAside runs work on its own goroutine and then, on run's goroutine, the
// function work returns. The crawl does not end for want of pages while
// such a call is running.
func (f *frontier[T]) runAside(ctx context.Context, work func() func()) {
	f.aside++
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		then := work()
		select {
		case f.calls <- then:
		case <-ctx.Done():
		}
	}()
}

// enqueue adds a job to its host's queue, starting the robots.txt lookup
// of a host met for the first time.
func (f *frontier[T]) enqueue(ctx context.Context, j *crawlJob) {
	u, err := url.Parse(j.url)
	if err != nil {
		return
	}
	origin := u.Scheme + "://" + u.Host
	h := f.hosts[origin]
	if h == nil {
		h = &crawlHost{origin: origin}
		f.hosts[origin] = h
		f.order = append(f.order, h)
		f.robots++
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			// CrawlDelay reads (and caches) robots.txt, which Allowed then
			// answers from memory for every page of the host.
			d := f.s.HTTP.Robots().CrawlDelay(ctx, origin+"/", f.s.UserAgent)
			select {
			case f.hostInfo <- crawlHostInfo{host: h, delay: d}:
			case <-ctx.Done():
			}
		}()
	}
	j.host = h
	h.jobs = append(h.jobs, j)
	f.queued++
}

// schedule starts as many jobs as the limits allow.
func (f *frontier[T]) schedule(ctx context.Context) {
	for ctx.Err() == nil && f.inflight < f.workers && f.mayStart(f.inflight) {
		j, ok := f.pick()
		if !ok {
			return
		}
		j.seq = f.started
		f.started++
		f.requested++
		f.inflight++
		j.host.inflight++
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			_ = growStack()
			r := f.work(ctx, j)
			select {
			case f.reports <- r:
			case <-ctx.Done():
			}
		}()
	}
}

// pick takes the next job of the next host, round robin, that may take
// one more request.
func (f *frontier[T]) pick() (*crawlJob, bool) {
	n := len(f.order)
	for i := range n {
		h := f.order[(f.next+i)%n]
		if !h.ready || h.inflight >= h.limit || len(h.jobs) == 0 {
			continue
		}
		j := h.jobs[0]
		h.jobs[0] = nil
		h.jobs = h.jobs[1:]
		if len(h.jobs) == 0 {
			h.jobs = nil // let the drained array go
		}
		f.queued--
		f.next = (f.next + i + 1) % n
		return j, true
	}
	return nil, false
}

// requestOver tells the frontier, from the worker of j, that the requests
// of j's page are over (its answer read) while the worker goes on with the
// page (converting it): the host may take its next request. The per-host
// limit counts requests, not pages; the workers bound the pages. A worker
// calls it at most once, before its report, or not at all.
func (f *frontier[T]) requestOver(ctx context.Context, j *crawlJob) {
	select {
	case f.answered <- j:
	case <-ctx.Done():
	}
}

// work checks robots.txt, waits for the host's pace and visits the page.
func (f *frontier[T]) work(ctx context.Context, j *crawlJob) crawlReport[T] {
	r := crawlReport[T]{job: j}
	if !f.s.HTTP.Robots().Allowed(ctx, j.url, f.s.UserAgent) {
		r.disallowed = true
		return r
	}
	if err := j.host.pace.wait(ctx); err != nil {
		r.err = model.Wrap(model.CodeTimeout, err, "the crawl ran out of time")
		return r
	}
	r.out = f.visit(ctx, j)
	return r
}

// pageLinks are the links of a page that a crawl follows, as a worker
// vetted them: the jobs of those the frontier knew, and the new ones.
type pageLinks struct {
	known []*crawlJob
	fresh []candidate
}

// vetLinks vets the links of a page for the frontier, once each: a link
// whose fate is known is not parsed again (its job, if it has one, is
// among known), and one that keep refuses is remembered as refused. It is
// safe for concurrent use.
func (f *frontier[T]) vetLinks(links []string, keep func(candidate) bool) pageLinks {
	var out pageLinks
	var keys map[string]bool
	for _, l := range links {
		j, ok := f.known.get(l)
		if ok && j == nil {
			continue
		}
		var c candidate
		if !ok {
			if c, ok = f.filter.vet(l, nil); !ok || !keep(c) {
				f.known.add(l, nil)
				continue
			}
		}
		if keys == nil {
			keys = make(map[string]bool, len(links))
		}
		key := c.key
		if j != nil {
			key = j.key // set before the job was remembered
		}
		if keys[key] {
			continue
		}
		keys[key] = true
		if j != nil {
			out.known = append(out.known, j)
		} else {
			c.raw = l
			out.fresh = append(out.fresh, c)
		}
	}
	return out
}

// linkMemoFactor bounds a frontier's linkMemo, as a multiple of its
// capacity: past it, links are vetted every time they are met.
const linkMemoFactor = 4

// linkMemo is a bounded map from raw links to their jobs (nil: refused),
// safe for concurrent use. It keeps 64-bit hashes, not the links: a
// page's links are garbage once vetted, and a false match (about one in
// 10^11 for a full memo of a 1,000-page crawl) would only mistake one
// spelling of one link.
type linkMemo struct {
	seed maphash.Seed
	mu   sync.RWMutex
	seen map[uint64]*crawlJob
	max  int
}

// get returns the job of raw and whether raw is known.
func (m *linkMemo) get(raw string) (*crawlJob, bool) {
	h := maphash.String(m.seed, raw)
	m.mu.RLock()
	defer m.mu.RUnlock()
	j, ok := m.seen[h]
	return j, ok
}

func (m *linkMemo) add(raw string, j *crawlJob) {
	h := maphash.String(m.seed, raw)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.seen[h]; ok || len(m.seen) < m.max {
		m.seen[h] = j
	}
}

// pacer spaces requests by a Crawl-delay, from the start of one request
// and from the end of its answer: the next request waits for both, so
// that the site sees the delay between two requests even when the first
// was slow to reach it (a loaded machine, a slow network) and the second
// was not. A nil pacer does not wait.
type pacer struct {
	delay time.Duration
	mu    sync.Mutex
	next  time.Time
}

func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	at := time.Now()
	if p.next.After(at) {
		at = p.next
	}
	p.next = at.Add(p.delay)
	p.mu.Unlock()
	if d := time.Until(at); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// over tells p that a request's answer is over: the next request waits
// the delay from now, if that is later than the delay from its start.
func (p *pacer) over() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if at := time.Now().Add(p.delay); at.After(p.next) {
		p.next = at
	}
	p.mu.Unlock()
}
