// Command load sends mixed traffic from many concurrent clients to real
// `webacq serve` processes on 127.0.0.1 for a bounded time and reports
// throughput, latency and errors per kind of request, then checks the
// credit ledger (issue 21): one node on SQLite, then two nodes on one
// PostgreSQL.
//
//	go run ./bench/load [-duration 60s] [-clients 200] [-setup sqlite,postgres]
//
// The mix (by weight): authenticated health 30, fetch of a local page 25,
// MCP tools/call svc_fetch 15, map of the local site 10, monitor status 20.
// Every page it fetches is served by this process on 127.0.0.1; nothing
// leaves the machine. A 429 (rate_limited, or an MCP result of that code)
// is counted apart from errors: the target is no other error.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"webacq/bench/internal/benchdb"
)

// kinds of request, with their weights in the mix.
var kinds = []struct {
	name   string
	weight int
}{{"health", 30}, {"fetch", 25}, {"mcp", 15}, {"map", 10}, {"monitor", 20}}

const (
	startCredits = 1_000_000_000
	sitePages    = 200
	monitors     = 20
)

func main() {
	duration := flag.Duration("duration", 60*time.Second, "load time per setup (at most 5m)")
	clients := flag.Int("clients", 200, "concurrent clients (each a closed loop, at most 1000)")
	setups := flag.String("setup", "sqlite,postgres", "setups to run: sqlite (one node), postgres (two nodes)")
	pg := flag.String("postgres", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL server")
	prebuilt := flag.String("bin", "", "a webacq binary to run instead of building ./cmd/webacq (to compare commits)")
	mix := flag.String("mix", "", "the mix as kind=weight pairs, comma-separated (default health=30,fetch=25,mcp=15,map=10,monitor=20)")
	extraEnv := flag.String("env", "", "extra settings for the nodes, comma-separated KEY=VALUE pairs")
	rpm := flag.Int("rpm", 1_000_000, "the workspace's requests per minute (the default keeps 429s out of the throughput figure)")
	flag.Parse()
	if *duration <= 0 || *duration > 5*time.Minute || *clients < 1 || *clients > 1000 {
		check(fmt.Errorf("-duration must be in (0, 5m] and -clients in [1, 1000]"))
	}

	dir, err := os.MkdirTemp("", "webacq-load")
	check(err)
	defer os.RemoveAll(dir)
	bin := *prebuilt
	if bin == "" {
		bin = filepath.Join(dir, "webacq")
		if b, err := exec.Command("go", "build", "-o", bin, "./cmd/webacq").CombinedOutput(); err != nil {
			check(fmt.Errorf("build: %v\n%s", err, b))
		}
	}
	if *mix != "" {
		check(setMix(*mix))
	}
	site := httptest.NewServer(http.HandlerFunc(serveSite))
	defer site.Close()

	fmt.Printf("mixed load: %d clients for %s per setup; mix %v\n", *clients, *duration, mixString())
	ok := true
	for _, setup := range strings.Split(*setups, ",") {
		var dbURL, driver, dsn string
		nodes := 1
		switch setup {
		case "sqlite":
			path := filepath.Join(dir, "load.db")
			dbURL, driver, dsn = "sqlite:"+path, "sqlite", path
		case "postgres":
			var drop func()
			dsn, drop, err = benchdb.Schema(*pg, "load")
			check(err)
			defer drop()
			// Two nodes of up to 1,000 clients share PostgreSQL's default
			// 100 connections with whatever else runs: 40 each.
			dbURL, driver, nodes = dsn+"&pool_max_conns=40", "pgx", 2
		default:
			check(fmt.Errorf("unknown setup %q", setup))
		}
		var extra []string
		if *extraEnv != "" {
			extra = strings.Split(*extraEnv, ",")
		}
		if !runSetup(bin, setup, dbURL, driver, dsn, nodes, site.URL, *clients, *rpm, *duration, extra) {
			ok = false
		}
	}
	if !ok {
		os.Exit(1)
	}
}

// runSetup starts the nodes, loads them, stops them and checks the ledger;
// false when any check failed.
func runSetup(bin, setup, dbURL, driver, dsn string, nodes int, site string, clients, rpm int, duration time.Duration, extra []string) bool {
	env := append([]string{"WEBACQ_DATABASE_URL=" + dbURL, "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none"}, extra...)
	cliErr := func(args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	cli := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			check(fmt.Errorf("webacq %s: %v\n%s", strings.Join(args, " "), err, stderr))
		}
		return strings.TrimSpace(string(out))
	}
	cli("workspace", "create", "load", "--credits", fmt.Sprint(startCredits), "--monitoring")
	if err := cliErr("workspace", "update", "load", "--rpm", fmt.Sprint(rpm), "--concurrent", "1000"); err != nil {
		// A binary from before the rate limits (-bin) has no such flags.
		fmt.Printf("note: no rate limits set (%v)\n", err)
	}
	key := cli("key", "create", "--workspace", "load", "--name", "load")

	var urls []string
	var procs []*exec.Cmd
	for range nodes {
		u, cmd := startNode(bin, env)
		urls = append(urls, u)
		procs = append(procs, cmd)
	}
	stop := func() {
		for _, cmd := range procs {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		for _, cmd := range procs {
			cmd.Wait()
		}
	}

	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	ids := make([]string, monitors)
	for i := range monitors {
		var out struct {
			MonitorID string `json:"monitor_id"`
		}
		body := fmt.Sprintf(`{"url":"%s/p/%d","check_interval_hours":24}`, site, i)
		status, data := call(client, "POST", urls[i%len(urls)]+"/api/v1/monitor/register", key, body)
		if status != 200 || json.Unmarshal(data, &struct {
			Data any `json:"data"`
		}{&out}) != nil || out.MonitorID == "" {
			stop()
			check(fmt.Errorf("register monitor: %d %s", status, data))
		}
		ids[i] = out.MonitorID
	}

	stats := load(client, urls, key, site, ids, clients, duration)
	stop()
	fmt.Printf("\n%s: %d node(s), %s, %d clients\n", setup, nodes, duration, clients)
	fmt.Printf("%-8s %9s %8s %8s %8s %8s %6s %6s\n", "kind", "requests", "req/s", "p50 ms", "p99 ms", "max ms", "429", "errors")
	ok := true
	var all kindStats
	for _, k := range kinds {
		s := stats[k.name]
		all.merge(s)
		s.row(k.name, duration)
	}
	all.row("all", duration)
	if all.errors > 0 {
		ok = false
		fmt.Printf("FAIL: %d errors other than 429, e.g. %s\n", all.errors, all.firstErr)
	}

	db, err := sql.Open(driver, dsn)
	check(err)
	defer db.Close()
	var balance, used, held, rows int64
	check(db.QueryRow(`SELECT w.credits,
		(SELECT coalesce(sum(credits), 0) FROM usage_log u WHERE u.workspace_id = w.id),
		(SELECT count(*) FROM reservations r WHERE r.workspace_id = w.id),
		(SELECT count(*) FROM usage_log u WHERE u.workspace_id = w.id)
		FROM workspaces w WHERE w.name = 'load'`).Scan(&balance, &used, &held, &rows))
	verdict := "ok"
	if startCredits-balance != used || held != 0 {
		verdict, ok = "FAIL", false
	}
	fmt.Printf("ledger: %d credits drawn, %d in %d usage rows, %d holds left: %s\n", startCredits-balance, used, rows, held, verdict)
	return ok
}

// startNode starts `webacq serve` and returns its base URL.
func startNode(bin string, env []string) (string, *exec.Cmd) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), env...), "WEBACQ_ADDR="+addr)
	stderr, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "msg=listening") {
			break
		}
	}
	go func() {
		for sc.Scan() {
			if line := sc.Text(); strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
				logMu.Lock()
				if logged < 20 {
					fmt.Fprintln(os.Stderr, "node:", line)
				}
				logged++
				logMu.Unlock()
			}
		}
	}()
	return "http://" + addr, cmd
}

// The first errors and warnings the nodes log go to stderr.
var (
	logMu  sync.Mutex
	logged int
)

// kindStats are one kind's outcomes.
type kindStats struct {
	lat      []time.Duration
	limited  int
	errors   int
	firstErr string
}

func (s *kindStats) merge(o *kindStats) {
	s.lat = append(s.lat, o.lat...)
	s.limited += o.limited
	s.errors += o.errors
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
}

func (s *kindStats) row(name string, d time.Duration) {
	slices.Sort(s.lat)
	pct := func(p float64) float64 {
		if len(s.lat) == 0 {
			return 0
		}
		return float64(s.lat[min(len(s.lat)-1, int(p*float64(len(s.lat))))].Microseconds()) / 1000
	}
	n := len(s.lat) + s.limited + s.errors
	fmt.Printf("%-8s %9d %8.0f %8.2f %8.2f %8.2f %6d %6d\n", name, n, float64(len(s.lat))/d.Seconds(), pct(0.5), pct(0.99), pct(1), s.limited, s.errors)
}

// load runs the clients for d. Latencies are of successful answers only;
// 429s and errors are counted apart.
func load(client *http.Client, urls []string, key, site string, ids []string, clients int, d time.Duration) map[string]*kindStats {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	var mu sync.Mutex
	stats := map[string]*kindStats{}
	for _, k := range kinds {
		stats[k.name] = &kindStats{}
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[string]*kindStats{}
			for _, k := range kinds {
				local[k.name] = &kindStats{}
			}
			r := rand.New(rand.NewPCG(uint64(c), 7))
			for ctx.Err() == nil {
				node := urls[r.IntN(len(urls))]
				pick := r.IntN(total)
				kind := kinds[0].name
				for _, k := range kinds {
					if pick < k.weight {
						kind = k.name
						break
					}
					pick -= k.weight
				}
				method, path, body := "GET", "/api/v1/health", ""
				switch kind {
				case "fetch":
					method, path, body = "POST", "/api/v1/fetch", fmt.Sprintf(`{"url":"%s/p/%d","tier":"http"}`, site, r.IntN(sitePages))
				case "mcp":
					method, path = "POST", "/api/mcp"
					body = fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_fetch","arguments":{"url":"%s/p/%d","tier":"http"}}}`, site, r.IntN(sitePages))
				case "map":
					method, path, body = "POST", "/api/v1/map", fmt.Sprintf(`{"url":"%s/","limit":100}`, site)
				case "monitor":
					path = "/api/v1/monitor/" + ids[r.IntN(len(ids))]
				}
				t0 := time.Now()
				status, data := call(client, method, node+path, key, body)
				el := time.Since(t0)
				if ctx.Err() != nil && status == 0 {
					break // the end of the run cut the request
				}
				s := local[kind]
				switch {
				case status == http.StatusTooManyRequests || (kind == "mcp" && strings.Contains(string(data), `"text":"rate_limited:`)):
					s.limited++
				case status != http.StatusOK || (kind == "mcp" && strings.Contains(string(data), `"isError":true`)):
					s.errors++
					if s.firstErr == "" {
						s.firstErr = fmt.Sprintf("%s %d %.200s", kind, status, data)
					}
				default:
					s.lat = append(s.lat, el)
				}
			}
			mu.Lock()
			for name, s := range local {
				stats[name].merge(s)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return stats
}

// call sends one request; status 0 when it failed to get an answer.
func call(client *http.Client, method, url, key, body string) (int, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, []byte(err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, b
}

// serveSite serves sitePages small pages that link to each other, and a
// sitemap of them.
func serveSite(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/sitemap.xml" {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range sitePages {
			fmt.Fprintf(w, "<url><loc>http://%s/p/%d</loc></url>", r.Host, i)
		}
		fmt.Fprint(w, "</urlset>")
		return
	}
	var i int
	if r.URL.Path != "/" {
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i < 0 || i >= sitePages {
			http.NotFound(w, r)
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Page %d</title></head><body>
<nav><a href="/">Home</a> <a href="/p/%d">Next</a> <a href="/p/%d">Previous</a></nav>
<main><h1>Quarterly report %d</h1>
<p>Company %d reported revenue of %d million for the quarter, up %d percent from a year earlier, on demand for its sensors.</p>
<p>The board declared a dividend of <b>0.%02d</b> <i>per share</i>, payable next month to holders of record.</p>
<table><tr><th>Item</th><th>Q3</th><th>Q2</th></tr><tr><td>Revenue</td><td>%d</td><td>%d</td></tr></table>
</main><footer>© 2026</footer></body></html>`, i, (i+1)%sitePages, (i+sitePages-1)%sitePages, i, i, 100+i, 3+i%17, i%100, 100+i, 95+i)
}

// setMix sets the kinds' weights from kind=weight pairs; kinds not named
// get weight 0.
func setMix(spec string) error {
	w := map[string]int{}
	for _, part := range strings.Split(spec, ",") {
		name, v, ok := strings.Cut(part, "=")
		var n int
		if _, err := fmt.Sscanf(v, "%d", &n); !ok || err != nil || n < 0 {
			return fmt.Errorf("-mix: %q is not kind=weight", part)
		}
		w[name] = n
	}
	total := 0
	for i := range kinds {
		n, ok := w[kinds[i].name]
		delete(w, kinds[i].name)
		kinds[i].weight = n
		if ok {
			total += n
		}
	}
	for name := range w {
		return fmt.Errorf("-mix: unknown kind %q", name)
	}
	if total == 0 {
		return fmt.Errorf("-mix: every weight is 0")
	}
	return nil
}

func mixString() string {
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k.name, k.weight))
	}
	return strings.Join(parts, ", ")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}
