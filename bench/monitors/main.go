// Command monitors measures monitor checks per second and the node's peak
// memory: N monitors of unchanged pages on a local site, one `webacq
// serve` on a fresh SQLite or PostgreSQL database. See README.md.
//
//	go run ./bench/monitors [-db sqlite|postgres] [-n 10000] [-drain] [-etag=false] [-volatile] [-cpuprofile FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// defaultPostgres is the local test server (trust authentication).
const defaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

type options struct {
	db, pg           string
	n                int
	etag, volatile   bool
	hosts            int
	workers, perHost int
	poll             time.Duration
	clients          int
	keywords         string
	accessLog        bool
	cpuprofile       string
	profileFor       time.Duration
	timeout          time.Duration
	keep             bool
	extraEnv         string
	drain            bool
}

func main() {
	var o options
	flag.StringVar(&o.db, "db", "sqlite", "sqlite or postgres")
	flag.StringVar(&o.pg, "pg", defaultPostgres, "PostgreSQL server for -db postgres (a fresh schema is made, then dropped)")
	flag.IntVar(&o.n, "n", 10000, "monitors (one page each)")
	flag.BoolVar(&o.etag, "etag", true, "the site sends ETags and answers a matching If-None-Match with 304")
	flag.BoolVar(&o.volatile, "volatile", false,
		"every answer carries a fresh CSRF token and render time and no ETag, so every check parses, relocates and compares")
	flag.IntVar(&o.hosts, "hosts", 1, "the site listens on 127.0.0.1 … 127.0.0.HOSTS; pages are spread over them in turn")
	flag.IntVar(&o.workers, "workers", 0, "WEBACQ_JOB_WORKERS of the node (0: its default)")
	flag.IntVar(&o.perHost, "per-host", 0, "WEBACQ_MONITOR_PER_HOST of the node (0: its default)")
	flag.DurationVar(&o.poll, "poll", 0, "WEBACQ_JOB_POLL_INTERVAL of the node (0: its default)")
	flag.IntVar(&o.clients, "clients", 16, "REST calls at once when registering and triggering")
	flag.StringVar(&o.keywords, "keywords", "", "comma-separated discovery_keywords of every monitor")
	flag.BoolVar(&o.accessLog, "access-log", false, "keep the node's access log on (one line per REST call)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write the node's CPU profile, taken during the unchanged phase, here")
	flag.DurationVar(&o.profileFor, "profile-for", 10*time.Second, "length of the CPU profile")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up on a phase after this long")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (binary, SQLite file, node log)")
	flag.BoolVar(&o.drain, "drain", false,
		"register and trigger on an API-only node while no node works jobs, then time a second node draining the checks")
	flag.StringVar(&o.extraEnv, "env", "", "extra environment of the node, comma-separated NAME=VALUE")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench/monitors:", err)
		os.Exit(1)
	}
}

// result is one row of the table.
type result struct {
	db                        string
	n                         int
	anchorRate, unchangedRate float64
	hwmMB, rssMB              float64
}

// bench is one run's fixtures.
type bench struct {
	o    options
	dir  string
	bin  string
	site *site
	db   *database
	key  string
}

func run(o options) error {
	if o.n < 1 || o.clients < 1 || o.hosts < 1 || o.hosts > 254 {
		return fmt.Errorf("-n, -clients and -hosts (at most 254) must be positive")
	}
	dir, err := os.MkdirTemp("", "webacq-bench-monitors")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("keeping", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	b := &bench{o: o, dir: dir}
	if b.bin, err = build(dir); err != nil {
		return err
	}
	b.site = &site{n: o.n, etag: o.etag, volatile: o.volatile}
	if err := b.site.start(o.hosts); err != nil {
		return err
	}
	defer b.site.close()
	if b.db, err = newDatabase(o.db, dir, o.pg); err != nil {
		return err
	}
	defer b.db.close()
	// The workspace pays for two checks of every monitor, with room.
	if _, err := cli(b.bin, b.db.url, "workspace", "create", "bench", "--credits", fmt.Sprint(4*o.n+100), "--monitoring"); err != nil {
		return err
	}
	// The bench's registrations and check-nows are monitor API calls, far
	// more than a workspace's default 600 per minute.
	if _, err := cli(b.bin, b.db.url, "workspace", "update", "bench", "--rpm", "1000000"); err != nil {
		return err
	}
	if b.key, err = cli(b.bin, b.db.url, "key", "create", "--workspace", "bench", "--name", "bench"); err != nil {
		return err
	}
	if err := b.db.open(); err != nil {
		return err
	}
	fmt.Printf("site %s (etag %t, volatile %t), %s, GOMAXPROCS %d, drain %t\n",
		strings.Join(b.site.bases, " "), o.etag, o.volatile, o.db, runtime.GOMAXPROCS(0), o.drain)
	var res result
	if o.drain {
		res, err = b.drained(context.Background())
	} else {
		res, err = b.together(context.Background())
	}
	if err != nil {
		return err
	}
	printTable(res)
	return nil
}

// together is the plain run: one `webacq serve` takes the REST calls and
// runs the checks; each phase is timed from its first REST call to its
// last run.
func (b *bench) together(ctx context.Context) (result, error) {
	o := b.o
	res := result{db: o.db, n: o.n}
	n, err := startNode(b.bin, "serve", b.db.url, b.dir+"/serve.log", nodeEnv(o, o.workers))
	if err != nil {
		return res, err
	}
	defer n.stop()
	mem := sample(n.pid(), 100*time.Millisecond)
	api := newClient(n.url, b.key, o.clients)

	// Phase 1: register every monitor; each is checked (anchored) at once.
	m := b.meter(ctx, n)
	ids, err := api.register(ctx, b.site, o.n, keywords(o.keywords))
	if err != nil {
		return res, err
	}
	regEnd := time.Now()
	fmt.Printf("registered %d monitors in %.1f s (%.0f/s)\n", o.n, regEnd.Sub(m.start).Seconds(),
		float64(o.n)/regEnd.Sub(m.start).Seconds())
	if res.anchorRate, err = b.finish(ctx, m, "anchor", o.n, time.Time{}); err != nil {
		return res, err
	}

	// Phase 2: check every monitor now; nothing has changed.
	profile := b.profile(n)
	m = b.meter(ctx, n)
	if err := api.checkAll(ctx, ids); err != nil {
		return res, err
	}
	trig := time.Since(m.start).Seconds()
	fmt.Printf("triggered %d checks in %.1f s (%.0f/s)\n", o.n, trig, float64(o.n)/trig)
	if res.unchangedRate, err = b.finish(ctx, m, "unchanged", 2*o.n, regEnd); err != nil {
		return res, err
	}
	res.hwmMB, res.rssMB = mem.peak()
	b.awaitProfile(profile)
	return res, nil
}

// drained separates the checks from the REST calls that cause them: an
// API-only `webacq serve` registers the monitors and triggers the checks
// while no node works jobs; then a second node with workers starts and the
// phase is timed from its start to the last run. Memory is that node's.
func (b *bench) drained(ctx context.Context) (result, error) {
	o := b.o
	res := result{db: o.db, n: o.n}
	apiNode, err := startNode(b.bin, "serve", b.db.url, b.dir+"/serve.log", append(nodeEnv(o, 0), "WEBACQ_JOB_WORKERS=0"))
	if err != nil {
		return res, err
	}
	defer apiNode.stop()
	api := newClient(apiNode.url, b.key, o.clients)
	start := time.Now()
	ids, err := api.register(ctx, b.site, o.n, keywords(o.keywords))
	if err != nil {
		return res, err
	}
	regEnd := time.Now()
	fmt.Printf("registered %d monitors in %.1f s (%.0f/s), no worker running\n", o.n, regEnd.Sub(start).Seconds(),
		float64(o.n)/regEnd.Sub(start).Seconds())
	var hwm, rss [2]float64
	for phase, name := range []string{"anchor", "unchanged"} {
		if phase == 1 {
			start := time.Now()
			if err := api.checkAll(ctx, ids); err != nil {
				return res, err
			}
			fmt.Printf("triggered %d checks in %.1f s (%.0f/s), no worker running\n", o.n, time.Since(start).Seconds(),
				float64(o.n)/time.Since(start).Seconds())
		}
		m := b.meter(ctx, nil) // the worker's start-up is part of the drain
		// A serving node with workers runs the same checks as `webacq
		// worker` and has the profiler (WEBACQ_DEBUG_ADDR), which the
		// worker command does not start.
		w, err := startNode(b.bin, "serve", b.db.url, fmt.Sprintf("%s/worker-%s.log", b.dir, name), nodeEnv(o, o.workers))
		if err != nil {
			return res, err
		}
		m.n = w
		mem := sample(w.pid(), 100*time.Millisecond)
		var profile chan error
		if phase == 1 {
			profile = b.profile(w)
		}
		since := time.Time{}
		if phase == 1 {
			since = regEnd
		}
		rate, err := b.finish(ctx, m, name, (phase+1)*o.n, since)
		hwm[phase], rss[phase] = mem.peak()
		w.stop()
		if err != nil {
			return res, err
		}
		b.awaitProfile(profile)
		if phase == 0 {
			res.anchorRate = rate
		} else {
			res.unchangedRate = rate
		}
	}
	res.hwmMB, res.rssMB = max(hwm[0], hwm[1]), max(rss[0], rss[1])
	return res, nil
}

// meter is a phase's starting readings.
type meter struct {
	n                   *node
	waits               *waitSampler
	start               time.Time
	cpu                 float64
	pg                  map[int]float64
	requests, unchanged int64
}

// meter takes the readings; a nil node is one about to start, whose CPU
// time counts from zero.
func (b *bench) meter(ctx context.Context, n *node) *meter {
	m := &meter{n: n, start: time.Now(), pg: b.db.backendCPU(ctx), requests: b.site.requests.Load(),
		unchanged: b.site.notModified.Load(), waits: b.db.sampleWaits(20 * time.Millisecond)}
	if n != nil {
		m.cpu = cpuSeconds(n.pid())
	}
	return m
}

// finish waits until the database holds want runs and reports the phase:
// its runs are those due at or after since.
func (b *bench) finish(ctx context.Context, m *meter, name string, want int, since time.Time) (float64, error) {
	defer m.waits.report(8)
	if err := waitRuns(ctx, b.db, want, b.o.timeout); err != nil {
		return 0, err
	}
	wall := time.Since(m.start).Seconds()
	nodeCPU, pgCPU := cpuSeconds(m.n.pid())-m.cpu, cpuSince(m.pg, b.db.backendCPU(ctx))
	p, err := b.db.phase(ctx, since)
	if err != nil {
		return 0, err
	}
	n := b.o.n
	fmt.Printf("%s phase: %d runs in %.1f s wall = %.0f checks/s (runs' own span %.1f s = %.0f/s, slowest %d ms)\n",
		name, n, wall, float64(n)/wall, p.last.Sub(p.first).Seconds(), p.rate(), p.slowestMillis)
	fmt.Printf("  outcomes %s, HTTP statuses %v, credits %d; site: %d requests, %d answered 304\n",
		outcomes(p.outcomes), p.statusCodes, p.credits, b.site.requests.Load()-m.requests, b.site.notModified.Load()-m.unchanged)
	line := fmt.Sprintf("  CPU: node %.1f s (%.2f ms per check)", nodeCPU, 1000*nodeCPU/float64(n))
	if pgCPU > 0 {
		line += fmt.Sprintf(", its PostgreSQL backends %.1f s (%.2f ms per check)", pgCPU, 1000*pgCPU/float64(n))
	}
	fmt.Println(line, loadAvg())
	return float64(n) / wall, nil
}

// profile starts the node's CPU profile when asked for one.
func (b *bench) profile(n *node) chan error {
	if b.o.cpuprofile == "" {
		return nil
	}
	c := make(chan error, 1)
	go func() { c <- cpuProfile(n.debugAddr, b.o.cpuprofile, b.o.profileFor) }()
	return c
}

func (b *bench) awaitProfile(c chan error) {
	if c == nil {
		return
	}
	if err := <-c; err != nil {
		fmt.Println("cpu profile:", err)
		return
	}
	fmt.Printf("cpu profile: %s (go tool pprof -top %s)\n", b.o.cpuprofile, b.o.cpuprofile)
}

// loadAvg is the machine's load, which other work on it raises.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return "(load " + strings.Join(f[:3], " ") + ")"
}

// nodeEnv is the node's configuration for the run.
func nodeEnv(o options, workers int) []string {
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_BOOTSTRAP_CREDITS=0"}
	if !o.accessLog {
		env = append(env, "WEBACQ_ACCESS_LOG=0")
	}
	if workers > 0 {
		env = append(env, fmt.Sprintf("WEBACQ_JOB_WORKERS=%d", workers))
	}
	if o.perHost > 0 {
		env = append(env, fmt.Sprintf("WEBACQ_MONITOR_PER_HOST=%d", o.perHost))
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

func keywords(s string) []string {
	var out []string
	for k := range strings.SplitSeq(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// waitRuns polls the database until it holds want runs, printing progress.
func waitRuns(ctx context.Context, db *database, want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := time.Now()
	for {
		got, err := db.runs(ctx)
		if err != nil {
			return fmt.Errorf("count runs: %w", err)
		}
		if got >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d runs after %s, want %d", got, timeout, want)
		}
		if time.Since(last) > 5*time.Second {
			fmt.Printf("  … %d of %d runs\n", got, want)
			last = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func outcomes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func printTable(r result) {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "db\tN\tanchor checks/s\tunchanged checks/s\tpeak RSS MB (VmHWM)\tmax sampled RSS MB")
	fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\n", r.db, r.n, r.anchorRate, r.unchangedRate, r.hwmMB, r.rssMB)
	tw.Flush()
}

// cpuProfile saves the node's CPU profile over d.
func cpuProfile(debugAddr, path string, d time.Duration) error {
	c := &http.Client{Timeout: d + 30*time.Second}
	res, err := c.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", debugAddr, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("pprof: HTTP %d", res.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
