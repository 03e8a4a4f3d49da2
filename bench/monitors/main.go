// Command monitors measures monitor checks per second and the node's peak
// memory: N monitors of unchanged pages on a local site, one `webacq
// serve` on a fresh SQLite or PostgreSQL database. See README.md.
//
//	go run ./bench/monitors [-db sqlite|postgres] [-n 10000] [-etag=false] [-volatile] [-cpuprofile FILE]
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
	bin, err := build(dir)
	if err != nil {
		return err
	}
	s := &site{n: o.n, etag: o.etag, volatile: o.volatile}
	if err := s.start(o.hosts); err != nil {
		return err
	}
	defer s.close()
	db, err := newDatabase(o.db, dir, o.pg)
	if err != nil {
		return err
	}
	defer db.close()

	// The workspace pays for two checks of every monitor, with room.
	if _, err := cli(bin, db.url, "workspace", "create", "bench", "--credits", fmt.Sprint(4*o.n+100), "--monitoring"); err != nil {
		return err
	}
	key, err := cli(bin, db.url, "key", "create", "--workspace", "bench", "--name", "bench")
	if err != nil {
		return err
	}
	if err := db.open(); err != nil {
		return err
	}
	n, err := startNode(bin, db.url, dir+"/serve.log", nodeEnv(o))
	if err != nil {
		return err
	}
	defer n.stop()
	pid := n.cmd.Process.Pid
	mem := sample(pid, 100*time.Millisecond)
	fmt.Printf("site %s (%d hosts, etag %t, volatile %t), node pid %d on %s, GOMAXPROCS %d\n",
		strings.Join(s.bases, " "), o.hosts, o.etag, o.volatile, pid, o.db, runtime.GOMAXPROCS(0))

	api := newClient(n.url, key, o.clients)
	res := result{db: o.db, n: o.n}
	ctx := context.Background()

	// Phase 1: register every monitor; each is checked (anchored) at once.
	cpu0, pg0 := cpuSeconds(pid), commCPU("postgres")
	start := time.Now()
	ids, err := api.register(ctx, s, o.n, keywords(o.keywords))
	if err != nil {
		return err
	}
	regEnd := time.Now()
	regSecs := regEnd.Sub(start).Seconds()
	fmt.Printf("registered %d monitors in %.1f s (%.0f/s)\n", o.n, regSecs, float64(o.n)/regSecs)
	if err := waitRuns(ctx, db, o.n, o.timeout); err != nil {
		return err
	}
	wall := time.Since(start).Seconds()
	p1, err := db.phase(ctx, time.Time{})
	if err != nil {
		return err
	}
	res.anchorRate = float64(o.n) / wall
	report("anchor", p1, wall, o.n, cpuSeconds(pid)-cpu0, commCPU("postgres")-pg0, o.db)

	// Phase 2: check every monitor now; nothing has changed.
	reqs0, nm0 := s.requests.Load(), s.notModified.Load()
	var profile chan error
	if o.cpuprofile != "" {
		profile = make(chan error, 1)
		go func() { profile <- cpuProfile(n.debugAddr, o.cpuprofile, o.profileFor) }()
	}
	cpu0, pg0 = cpuSeconds(pid), commCPU("postgres")
	start = time.Now()
	if err := api.checkAll(ctx, ids); err != nil {
		return err
	}
	trigSecs := time.Since(start).Seconds()
	fmt.Printf("triggered %d checks in %.1f s (%.0f/s)\n", o.n, trigSecs, float64(o.n)/trigSecs)
	if err := waitRuns(ctx, db, 2*o.n, o.timeout); err != nil {
		return err
	}
	wall = time.Since(start).Seconds()
	p2, err := db.phase(ctx, regEnd) // anchors were due before registration ended
	if err != nil {
		return err
	}
	res.unchangedRate = float64(o.n) / wall
	report("unchanged", p2, wall, o.n, cpuSeconds(pid)-cpu0, commCPU("postgres")-pg0, o.db)
	fmt.Printf("  site: %d requests, %d answered 304\n", s.requests.Load()-reqs0, s.notModified.Load()-nm0)
	res.hwmMB, res.rssMB = mem.peak()
	if profile != nil {
		if err := <-profile; err != nil {
			fmt.Println("cpu profile:", err)
		} else {
			fmt.Printf("cpu profile: %s (go tool pprof -top %s %s)\n", o.cpuprofile, bin, o.cpuprofile)
		}
	}
	printTable(res)
	return nil
}

// nodeEnv is the node's configuration for the run.
func nodeEnv(o options) []string {
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_BOOTSTRAP_CREDITS=0"}
	if !o.accessLog {
		env = append(env, "WEBACQ_ACCESS_LOG=0")
	}
	if o.workers > 0 {
		env = append(env, fmt.Sprintf("WEBACQ_JOB_WORKERS=%d", o.workers))
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

// report prints what a phase did, from the client's clock and from the
// runs' own times, with the CPU the node and PostgreSQL spent.
func report(name string, p *phase, wall float64, n int, nodeCPU, pgCPU float64, dialect string) {
	fmt.Printf("%s phase: %d runs in %.1f s wall = %.0f checks/s (runs' own span %.1f s = %.0f/s, slowest %d ms)\n",
		name, n, wall, float64(n)/wall, p.last.Sub(p.first).Seconds(), p.rate(), p.slowestMillis)
	fmt.Printf("  outcomes %s, HTTP statuses %v, credits %d\n", outcomes(p.outcomes), p.statusCodes, p.credits)
	line := fmt.Sprintf("  CPU: node %.1f s (%.2f ms per check)", nodeCPU, 1000*nodeCPU/float64(n))
	if dialect == "postgres" {
		line += fmt.Sprintf(", postgres %.1f s (%.2f ms per check)", pgCPU, 1000*pgCPU/float64(n))
	}
	fmt.Println(line)
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
