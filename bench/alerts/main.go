// Command alerts measures detection-to-delivery latency of webhook alerts:
// N monitors of a local site are anchored, their pages change, every one is
// checked, and a local receiver notes when each signed delivery arrives.
// Latency is the arrival minus the payload's detected_at (the run's end).
// One `webacq serve` on a fresh SQLite and/or PostgreSQL database. See
// README.md.
//
//	go run ./bench/alerts [-db sqlite|postgres|both] [-n 1000]
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// defaultPostgres is the local test server (trust authentication).
const defaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// secret signs the deliveries; the receiver checks every signature.
const secret = "bench-alerts-webhook-secret-0123456789"

type options struct {
	db, pg   string
	n        int
	rounds   int
	clients  int
	workers  int
	poll     time.Duration
	settle   bool
	timeout  time.Duration
	keep     bool
	extraEnv string
}

func main() {
	var o options
	flag.StringVar(&o.db, "db", "both", "sqlite, postgres or both")
	flag.StringVar(&o.pg, "pg", defaultPostgres, "PostgreSQL server (a fresh schema is made, then dropped)")
	flag.IntVar(&o.n, "n", 1000, "monitors (one page each)")
	flag.IntVar(&o.rounds, "rounds", 1,
		"times every page changes and is checked, each round as soon as the last round's runs are recorded")
	flag.IntVar(&o.clients, "clients", 16, "REST calls at once when registering and triggering")
	flag.IntVar(&o.workers, "workers", 0, "WEBACQ_JOB_WORKERS of the node (0: its default)")
	flag.DurationVar(&o.poll, "poll", 0, "WEBACQ_JOB_POLL_INTERVAL of the node (0: its default)")
	flag.BoolVar(&o.settle, "settle", true,
		"let every anchor's delivery arrive before the pages change (false: change them as soon as the anchors are recorded)")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up on a phase after this long")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (binary, SQLite file, node logs)")
	flag.StringVar(&o.extraEnv, "env", "", "extra environment of the node, comma-separated NAME=VALUE")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench/alerts:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	var stores []string
	switch o.db {
	case "both":
		stores = []string{"sqlite", "postgres"}
	case "sqlite", "postgres":
		stores = []string{o.db}
	default:
		return fmt.Errorf("-db %q: want sqlite, postgres or both", o.db)
	}
	if o.n < 1 || o.rounds < 1 || o.clients < 1 {
		return fmt.Errorf("-n, -rounds and -clients must be positive")
	}
	dir, err := os.MkdirTemp("", "webacq-bench-alerts")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("keeping", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin, err := build(dir)
	if err != nil {
		return err
	}
	var results []result
	for _, store := range stores {
		fmt.Printf("== %s: %d monitors, GOMAXPROCS %d\n", store, o.n, runtime.GOMAXPROCS(0))
		rs, err := benchStore(o, bin, dir, store)
		if err != nil {
			return fmt.Errorf("%s: %w", store, err)
		}
		results = append(results, rs...)
	}
	printTable(results)
	return nil
}

// result is one phase's deliveries on one store.
type result struct {
	db, phase        string
	n                int
	checksPerSec     float64
	deliveriesPerSec float64
	latency          []time.Duration // arrival − detected_at, sorted
	pickup, send     []time.Duration // detected_at → the job's last start, and from there to the arrival, sorted
	receiverErrors   int
	duplicates       int
	snoozed          int // deliveries that waited behind an earlier one of their monitor
	retried          int // deliveries that took more than one attempt
}

func benchStore(o options, bin, dir, store string) ([]result, error) {
	ctx := context.Background()
	db, err := newDatabase(store, dir, o.pg)
	if err != nil {
		return nil, err
	}
	defer db.close()
	credits := (o.rounds+2)*o.n + 100
	if _, err := cli(bin, db.url, "workspace", "create", "bench", "--credits", fmt.Sprint(credits), "--monitoring"); err != nil {
		return nil, err
	}
	// The bench's registrations and check-nows are monitor API calls, far
	// more than a workspace's default 600 per minute.
	if _, err := cli(bin, db.url, "workspace", "update", "bench", "--rpm", "1000000"); err != nil {
		return nil, err
	}
	key, err := cli(bin, db.url, "key", "create", "--workspace", "bench", "--name", "bench")
	if err != nil {
		return nil, err
	}
	if err := db.open(); err != nil {
		return nil, err
	}
	s, err := startSite(o.n)
	if err != nil {
		return nil, err
	}
	defer s.close()
	rcv, err := startReceiver()
	if err != nil {
		return nil, err
	}
	defer rcv.close()
	n, err := startNode(bin, db.url, filepath.Join(dir, store+"-serve.log"), nodeEnv(o))
	if err != nil {
		return nil, err
	}
	defer n.stop()
	api := &client{base: n.url, key: key, clients: o.clients,
		http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: o.clients}}}
	if err := api.call(ctx, "POST", "/api/v1/monitor/webhook",
		map[string]any{"webhook_url": rcv.url + "/hook", "webhook_secret": secret}, nil); err != nil {
		return nil, err
	}

	// Phase 1: register every monitor; each is checked at once and its
	// anchor alerts.
	ids := make([]string, o.n)
	start := time.Now()
	err = api.parallel(ctx, o.n, func(ctx context.Context, i int) error {
		var out struct {
			MonitorID string `json:"monitor_id"`
		}
		body := map[string]any{"url": s.url(i), "check_interval_hours": 24, "label": fmt.Sprintf("bench %d", i)}
		if err := api.call(ctx, "POST", "/api/v1/monitor/register", body, &out); err != nil {
			return err
		}
		ids[i] = out.MonitorID
		return nil
	})
	if err != nil {
		return nil, err
	}
	fmt.Printf("registered %d monitors in %.1f s\n", o.n, time.Since(start).Seconds())
	if o.settle {
		if err := rcv.wait("anchored", o.n, o.timeout); err != nil {
			return nil, err
		}
	} else if err := db.waitRuns(ctx, o.n, o.timeout); err != nil {
		return nil, err
	}
	anchors := time.Now()

	// Phase 2: every page changes and every monitor is checked now, once
	// per round.
	for round := 1; round <= o.rounds; round++ {
		start := time.Now()
		s.version.Store(int64(round))
		err = api.parallel(ctx, o.n, func(ctx context.Context, i int) error {
			return api.call(ctx, "POST", "/api/v1/monitor/"+ids[i]+"/check", nil, nil)
		})
		if err != nil {
			return nil, err
		}
		fmt.Printf("triggered %d checks in %.1f s\n", o.n, time.Since(start).Seconds())
		if round < o.rounds {
			if err := db.waitRuns(ctx, (round+1)*o.n, o.timeout); err != nil {
				return nil, err
			}
		}
	}
	if !o.settle {
		if err := rcv.wait("anchored", o.n, o.timeout); err != nil {
			return nil, err
		}
	}
	if err := rcv.wait("changed", o.rounds*o.n, o.timeout); err != nil {
		return nil, err
	}
	fmt.Printf("all deliveries arrived %.1f s after the first check was triggered\n", time.Since(anchors).Seconds())
	// Late duplicates would arrive within the retry wait; none is expected.
	time.Sleep(time.Second)
	jobs, err := db.deliveryJobs(ctx)
	if err != nil {
		return nil, err
	}
	var out []result
	for _, phase := range []string{"anchored", "changed"} {
		out = append(out, rcv.result(store, phase, jobs))
	}
	if bad, err := db.undelivered(ctx); err != nil {
		return nil, err
	} else if bad > 0 {
		return nil, fmt.Errorf("%d deliveries not delivered", bad)
	}
	return out, nil
}

func nodeEnv(o options) []string {
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0",
		"WEBACQ_SECRET_KEY=bench-alerts-operator-key-0123456789"}
	if o.workers > 0 {
		env = append(env, fmt.Sprintf("WEBACQ_JOB_WORKERS=%d", o.workers))
	}
	if o.poll > 0 {
		env = append(env, "WEBACQ_JOB_POLL_INTERVAL="+o.poll.String())
	}
	for kv := range strings.SplitSeq(o.extraEnv, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			env = append(env, kv)
		}
	}
	return env
}

// site serves N press-release lists, /ir/{i}/press; at version v each
// has v releases more.
type site struct {
	n       int
	version atomic.Int64
	srv     *http.Server
	base    string
}

func startSite(n int) (*site, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &site{n: n, base: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *site) close() { s.srv.Close() }

func (s *site) url(i int) string { return fmt.Sprintf("%s/ir/%d/press", s.base, i) }

// targets are words, not numbers: the comparison ignores counters.
var targets = []string{"industrial robots", "optical sensors", "marine engines", "solar inverters", "medical scanners",
	"rail signalling", "farm machinery", "satellite antennas"}

var products = []string{"sensor platform", "payments gateway", "cloud backup service", "battery module",
	"logistics software", "diagnostic test", "wind turbine blade", "data centre campus"}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var i int
	if _, err := fmt.Sscanf(r.URL.Path, "/ir/%d/press", &i); err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	company := fmt.Sprintf("Northwind Holdings %d", i)
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Press releases | %s</title></head><body>`,
		company)
	fmt.Fprintf(&b, `<header><a href="/">%s</a><nav><a href="/about">About us</a> <a href="/investors">Investors</a></nav></header>`,
		company)
	b.WriteString(`<main><h1>Press releases</h1><ul class="press-list">`)
	for v := s.version.Load(); v > 0; v-- {
		fmt.Fprintf(&b, `<li><h2><a href="/ir/%d/press/deal-%d">%s agrees to acquire a maker of %s</a></h2>`+
			`<p>The board expects the acquisition to close within the year, subject to approval.</p></li>`,
			i, v, company, targets[int(v)%len(targets)])
	}
	for k := range 8 {
		fmt.Fprintf(&b, `<li><h2><a href="/ir/%d/press/%c">%s reports results for its %s</a></h2>`+
			`<p>Revenue from its %s grew %d%% year on year; the board confirms its outlook.</p></li>`,
			i, 'a'+k, company, products[(i+k)%len(products)], products[(i+k+3)%len(products)], 3+(i*7+k)%19)
	}
	fmt.Fprintf(&b, `</ul></main><footer>© 2026 %s</footer></body></html>`, company)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, b.String())
}

// receiver is the webhook endpoint: it checks each X-Svc-Signature (hex
// HMAC-SHA256 of the raw body) and notes each delivery's first arrival.
type receiver struct {
	srv  *http.Server
	url  string
	mu   sync.Mutex
	got  map[string]*arrival // by delivery_id
	errs int                 // requests without a valid signature or body
	dups int
}

type arrival struct {
	outcome    string
	detectedAt time.Time
	at         time.Time
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String(), got: map[string]*arrival{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *receiver) close() { r.srv.Close() }

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	sig, _ := hex.DecodeString(req.Header.Get("X-Svc-Signature"))
	var p struct {
		DeliveryID string    `json:"delivery_id"`
		Outcome    string    `json:"outcome"`
		DetectedAt time.Time `json:"detected_at"`
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) || json.Unmarshal(body, &p) != nil || p.DeliveryID == "" {
		r.errs++
		http.Error(w, "bad signature or body", http.StatusBadRequest)
		return
	}
	if r.got[p.DeliveryID] != nil {
		r.dups++
	} else {
		r.got[p.DeliveryID] = &arrival{outcome: p.Outcome, detectedAt: p.DetectedAt, at: now}
	}
	io.WriteString(w, "ok")
}

func (r *receiver) count(outcome string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, a := range r.got {
		if a.outcome == outcome {
			n++
		}
	}
	return n
}

// wait waits until want deliveries of outcome have arrived.
func (r *receiver) wait(outcome string, want int, timeout time.Duration) error {
	start := time.Now()
	last := start
	for {
		got := r.count(outcome)
		if got >= want {
			fmt.Printf("%d %s deliveries arrived in %.1f s\n", want, outcome, time.Since(start).Seconds())
			return nil
		}
		if time.Since(start) > timeout {
			return fmt.Errorf("%d of %d %s deliveries after %s", got, want, outcome, timeout)
		}
		if time.Since(last) > 5*time.Second {
			fmt.Printf("  … %d of %d %s deliveries\n", got, want, outcome)
			last = time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// result summarises the deliveries of one outcome, with what the
// database says of their jobs.
func (r *receiver) result(store, outcome string, jobs map[string]deliveryJob) result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := result{db: store, phase: outcome, receiverErrors: r.errs, duplicates: r.dups}
	var firstDetected, lastDetected, lastArrival time.Time
	for id, a := range r.got {
		if a.outcome != outcome {
			continue
		}
		res.n++
		res.latency = append(res.latency, a.at.Sub(a.detectedAt))
		if j, ok := jobs[id]; ok {
			res.pickup = append(res.pickup, j.attemptedAt.Sub(a.detectedAt))
			res.send = append(res.send, a.at.Sub(j.attemptedAt))
			if j.snoozes > 0 {
				res.snoozed++
			}
			if j.attempts > 1 {
				res.retried++
			}
		}
		if firstDetected.IsZero() || a.detectedAt.Before(firstDetected) {
			firstDetected = a.detectedAt
		}
		if a.detectedAt.After(lastDetected) {
			lastDetected = a.detectedAt
		}
		if a.at.After(lastArrival) {
			lastArrival = a.at
		}
	}
	for _, d := range [][]time.Duration{res.latency, res.pickup, res.send} {
		slices.Sort(d)
	}
	if s := lastDetected.Sub(firstDetected).Seconds(); s > 0 {
		res.checksPerSec = float64(res.n) / s
	}
	if s := lastArrival.Sub(firstDetected).Seconds(); s > 0 {
		res.deliveriesPerSec = float64(res.n) / s
	}
	return res
}

// pct is the p-th percentile of sorted durations.
func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(p/100*float64(len(d))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }

func printTable(rs []result) {
	fmt.Println()
	fmt.Println("latency = arrival at the receiver − detected_at (the run's end), in ms")
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "db\tphase\tN\tchecks/s\tdeliveries/s\tp50\tp90\tp99\tmax\treceiver errors\tduplicates\tsnoozed\tretried\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", r.db, r.phase, r.n, r.checksPerSec,
			r.deliveriesPerSec, ms(pct(r.latency, 50)), ms(pct(r.latency, 90)), ms(pct(r.latency, 99)),
			ms(pct(r.latency, 100)), r.receiverErrors, r.duplicates, r.snoozed, r.retried)
	}
	tw.Flush()
	fmt.Println()
	fmt.Println("where the time goes, in ms: pickup = detected_at → the delivery job's (last) start; send = start → arrival")
	tw = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "db\tphase\tpickup p50\tpickup p99\tsend p50\tsend p99\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.db, r.phase, ms(pct(r.pickup, 50)), ms(pct(r.pickup, 99)),
			ms(pct(r.send, 50)), ms(pct(r.send, 99)))
	}
	tw.Flush()
}

// database is the benchmark's read-only view of the node's database.
type database struct {
	url     string // as the node is given it
	readURL string
	sqlite  bool
	db      *sql.DB
	drop    func()
}

// newDatabase makes a fresh database: a SQLite file in dir, or a schema of
// its own on the PostgreSQL server pg.
func newDatabase(store, dir, pg string) (*database, error) {
	if store == "sqlite" {
		path := filepath.Join(dir, "webacq.db")
		os.Remove(path)
		return &database{url: "sqlite:" + path, readURL: "sqlite:" + path, sqlite: true, drop: func() {}}, nil
	}
	admin, err := sql.Open("pgx", pg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b [6]byte
	rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		admin.Close()
		return nil, fmt.Errorf("postgres at %s: %w", pg, err)
	}
	u, err := url.Parse(pg)
	if err != nil {
		admin.Close()
		return nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	drop := func() {
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	}
	return &database{url: u.String(), readURL: u.String(), drop: drop}, nil
}

// open connects for reading, once the schema exists.
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

// waitRuns waits until the database holds want runs.
func (d *database) waitRuns(ctx context.Context, want int, timeout time.Duration) error {
	start := time.Now()
	for {
		var got int
		if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM monitor_runs`).Scan(&got); err != nil {
			return err
		}
		if got >= want {
			fmt.Printf("%d runs recorded in %.1f s\n", want, time.Since(start).Seconds())
			return nil
		}
		if time.Since(start) > timeout {
			return fmt.Errorf("%d of %d runs after %s", got, want, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deliveryJob is what River kept of a delivery's job.
type deliveryJob struct {
	attemptedAt time.Time // the last start
	attempts    int
	snoozes     int
}

func (d *database) deliveryJobs(ctx context.Context) (map[string]deliveryJob, error) {
	q := `SELECT args->>'delivery_id', attempted_at, attempt, coalesce((metadata->>'snoozes')::int, 0)
		FROM river_job WHERE kind = 'alert_delivery' AND attempted_at IS NOT NULL`
	if d.sqlite {
		q = `SELECT json_extract(args, '$.delivery_id'), attempted_at, attempt, coalesce(json_extract(metadata, '$.snoozes'), 0)
		FROM river_job WHERE kind = 'alert_delivery' AND attempted_at IS NOT NULL`
	}
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("delivery jobs: %w", err)
	}
	defer rows.Close()
	out := map[string]deliveryJob{}
	for rows.Next() {
		var id string
		var j deliveryJob
		if err := rows.Scan(&id, &j.attemptedAt, &j.attempts, &j.snoozes); err != nil {
			return nil, fmt.Errorf("delivery jobs: %w", err)
		}
		out[id] = j
	}
	return out, rows.Err()
}

// undelivered counts the webhook deliveries not delivered.
func (d *database) undelivered(ctx context.Context) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM deliveries WHERE kind = 'webhook' AND status <> 'delivered'`).Scan(&n)
	return n, err
}

// build compiles cmd/webacq into dir and returns the binary's path.
func build(dir string) (string, error) {
	bin := filepath.Join(dir, "webacq")
	out, err := exec.Command("go", "build", "-o", bin, "webacq/cmd/webacq").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// cli runs one command of the binary to completion and returns its stdout.
func cli(bin, dbURL string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("webacq %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// node is a running `webacq serve`.
type node struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
}

// startNode starts `webacq serve` with env and waits until it listens; its
// log goes to logPath.
func startNode(bin, dbURL, logPath string, env []string) (*node, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL, "WEBACQ_ADDR="+addr), env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	n := &node{cmd: cmd, url: "http://" + addr, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer logf.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var once sync.Once
		for sc.Scan() {
			fmt.Fprintln(logf, sc.Text())
			if strings.Contains(sc.Text(), "msg=listening") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	go func() { cmd.Wait(); pw.Close(); close(n.done) }()
	select {
	case <-ready:
		return n, nil
	case <-n.done:
		return nil, fmt.Errorf("webacq serve exited before it listened; see %s", logPath)
	case <-time.After(60 * time.Second):
		n.stop()
		return nil, fmt.Errorf("webacq serve did not listen within 60 s; see %s", logPath)
	}
}

// stop asks the node to shut down and kills it if it does not in time.
func (n *node) stop() {
	n.cmd.Process.Signal(os.Interrupt)
	select {
	case <-n.done:
	case <-time.After(30 * time.Second):
		n.cmd.Process.Kill()
		<-n.done
	}
}

// client calls the node's REST API with one key.
type client struct {
	base, key string
	clients   int
	http      *http.Client
}

// call sends one request and decodes the envelope's data into out (if
// not nil).
func (c *client) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var env struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error string          `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: HTTP %d: %w", method, path, res.StatusCode, err)
	}
	if !env.OK {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, res.StatusCode, env.Error)
	}
	if out != nil {
		return json.Unmarshal(env.Data, out)
	}
	return nil
}

// parallel runs fn(i) for i in [0, n) on c.clients goroutines and returns
// the first error.
func (c *client) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range c.clients {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
loop:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break loop
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}
