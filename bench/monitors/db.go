package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"webacq/bench/internal/benchdb"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// database is the benchmark's own read-only view of the node's database:
// it counts runs instead of asking the API 10,000 times.
type database struct {
	url     string // as the nodes are given it
	readURL string // as the benchmark reads it
	db      *sql.DB
	drop    func() // removes the PostgreSQL schema
}

// nodeApp names the nodes' PostgreSQL sessions, whose CPU time is counted.
const nodeApp = "webacq-bench-node"

// newDatabase makes a fresh database: a SQLite file in dir, or a schema of
// its own on the PostgreSQL server pg.
func newDatabase(dialect, dir, pg string) (*database, error) {
	switch dialect {
	case "sqlite":
		path := filepath.Join(dir, "webacq.db")
		return &database{url: "sqlite:" + path, readURL: "sqlite:" + path, drop: func() {}}, nil
	case "postgres":
		return newSchema(pg)
	}
	return nil, fmt.Errorf("-db %q: want sqlite or postgres", dialect)
}

func newSchema(base string) (*database, error) {
	read, drop, err := benchdb.Schema(base, "bench")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(read)
	if err != nil {
		drop()
		return nil, err
	}
	q := u.Query()
	q.Set("application_name", nodeApp)
	u.RawQuery = q.Encode()
	return &database{url: u.String(), readURL: read, drop: drop}, nil
}

// open connects for reading, once the node has created the schema.
func (d *database) open() error {
	var err error
	if path, ok := strings.CutPrefix(d.readURL, "sqlite:"); ok {
		d.db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	} else {
		d.db, err = sql.Open("pgx", d.readURL)
	}
	if err != nil {
		return err
	}
	d.db.SetMaxOpenConns(2)
	return nil
}

func (d *database) close() {
	if d.db != nil {
		d.db.Close()
	}
	d.drop()
}

// runs counts the recorded runs.
func (d *database) runs(ctx context.Context) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM monitor_runs`).Scan(&n)
	return n, err
}

// phase is what the database says of the runs due at or after since: how
// many, their outcomes, and the span from the first start to the last
// finish.
type phase struct {
	runs          int
	outcomes      map[string]int
	first, last   time.Time
	credits       int64
	statusCodes   map[int]int
	slowestMillis int64
}

func (d *database) phase(ctx context.Context, since time.Time) (*phase, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT outcome, started_at, finished_at, credits, status_code
		FROM monitor_runs WHERE due_at >= $1`, since.UTC())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	p := &phase{outcomes: map[string]int{}, statusCodes: map[int]int{}}
	for rows.Next() {
		var outcome string
		var started, finished time.Time
		var credits int64
		var status int
		if err := rows.Scan(&outcome, &started, &finished, &credits, &status); err != nil {
			return nil, err
		}
		p.runs++
		p.outcomes[outcome]++
		p.statusCodes[status]++
		p.credits += credits
		if p.first.IsZero() || started.Before(p.first) {
			p.first = started
		}
		if finished.After(p.last) {
			p.last = finished
		}
		p.slowestMillis = max(p.slowestMillis, finished.Sub(started).Milliseconds())
	}
	return p, rows.Err()
}

// rate is runs per second between the first start and the last finish.
func (p *phase) rate() float64 {
	s := p.last.Sub(p.first).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(p.runs) / s
}

// backendCPU is the CPU time of each PostgreSQL backend serving a node, by
// process id (nil on SQLite).
func (d *database) backendCPU(ctx context.Context) map[int]float64 {
	if strings.HasPrefix(d.readURL, "sqlite:") {
		return nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, nodeApp)
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[int]float64{}
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			out[pid] = cpuSeconds(pid)
		}
	}
	return out
}

// cpuSince is the CPU the node's backends used between two readings of
// backendCPU (backends that ended in between are missed).
func cpuSince(before, after map[int]float64) float64 {
	var total float64
	for pid, s := range after {
		total += s - before[pid]
	}
	return total
}

// waitSampler counts what the node's PostgreSQL sessions are doing, every
// few milliseconds: a poor man's profile of the database side.
type waitSampler struct {
	mu      sync.Mutex
	counts  map[string]int
	samples int
	cancel  context.CancelFunc
	done    chan struct{}
}

// sampleWaits starts sampling (nil on SQLite).
func (d *database) sampleWaits(every time.Duration) *waitSampler {
	if strings.HasPrefix(d.readURL, "sqlite:") {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &waitSampler{counts: map[string]int{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			w.once(ctx, d.db)
		}
	}()
	return w
}

func (w *waitSampler) once(ctx context.Context, db *sql.DB) {
	rows, err := db.QueryContext(ctx, `SELECT state, coalesce(wait_event_type, ''), coalesce(wait_event, ''),
		left(regexp_replace(query, '\s+', ' ', 'g'), 70) FROM pg_stat_activity
		WHERE application_name = $1 AND state IN ('active', 'idle in transaction')`, nodeApp)
	if err != nil {
		return
	}
	defer rows.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples++
	for rows.Next() {
		var state, typ, event, query string
		if rows.Scan(&state, &typ, &event, &query) != nil {
			continue
		}
		what := "running"
		switch {
		case state == "idle in transaction":
			what = "idle in transaction (the node works between statements)"
			query = "after: " + query
		case typ != "":
			what = typ + "/" + event
		}
		w.counts[what+" | "+query]++
	}
}

// report stops sampling and prints the top activities as the average
// number of sessions doing each.
func (w *waitSampler) report(top int) {
	if w == nil {
		return
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.samples == 0 {
		return
	}
	keys := make([]string, 0, len(w.counts))
	for k := range w.counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return w.counts[keys[i]] > w.counts[keys[j]] })
	fmt.Printf("  node's PostgreSQL sessions, average number busy with each (%d samples):\n", w.samples)
	for i, k := range keys {
		if i == top {
			break
		}
		fmt.Printf("    %5.1f  %s\n", float64(w.counts[k])/float64(w.samples), k)
	}
}
