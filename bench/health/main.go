// Command health measures authenticated GET /api/v1/health throughput and
// latency of a real `webacq serve` process on SQLite and on PostgreSQL, with
// a closed-loop load generator on 127.0.0.1. Every request is authenticated
// and writes its usage and activity rows.
//
// Only 200 answers count: an error answer (any other status, or a failed
// request) is counted apart and is neither in the latency percentiles nor in
// req/s; a run with any error prints a warning and exits with status 1.
//
//	go run ./bench/health [-duration 10s] [-conns 32] [-db sqlite,postgres] [-base PATH] [-rounds N]
//
// With -base, a second webacq binary (built from another commit, e.g. main)
// is measured in the same run, each round alternating the two, so that the
// comparison shares the machine's conditions.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"webacq/bench/internal/benchdb"
)

func main() {
	duration := flag.Duration("duration", 10*time.Second, "measurement time per database")
	warmup := flag.Duration("warmup", 2*time.Second, "warm-up time per database")
	conns := flag.Int("conns", 32, "concurrent keep-alive connections")
	dbs := flag.String("db", "sqlite,postgres", "databases to measure")
	pg := flag.String("postgres", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL server")
	accessLog := flag.Bool("access-log", true, "keep the per-request access log on (as in production)")
	base := flag.String("base", "", "another webacq binary to measure beside this tree's, in the same run")
	rounds := flag.Int("rounds", 1, "rounds; each measures every server once, and the table shows the round of median req/s")
	flag.Parse()

	dir, err := os.MkdirTemp("", "webacq-bench")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "webacq")
	peer := filepath.Join(dir, "peer")
	for pkg, out := range map[string]string{"./cmd/webacq": bin, "./bench/health/peer": peer} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, b)
			os.Exit(1)
		}
	}
	type server struct{ name, bin, db string }
	// The peer (bare net/http, same answer, no auth, database or log) is the
	// ceiling of this machine at this moment; ratios against it travel
	// between machines better than raw figures.
	servers := []server{{"peer", peer, ""}}
	for _, db := range strings.Split(*dbs, ",") {
		if db != "sqlite" && db != "postgres" {
			check(fmt.Errorf("unknown database %q", db))
		}
		if *base != "" {
			servers = append(servers, server{db + " (base)", *base, db})
		}
		servers = append(servers, server{db, bin, db})
	}
	fmt.Printf("GET /api/v1/health, %d connections, %s per server (after %s warm-up), access log %v, %d round(s)\n",
		*conns, *duration, *warmup, *accessLog, *rounds)
	results := make([][]result, len(servers))
	for r := 0; r < *rounds; r++ {
		for i, sv := range servers {
			url := ""
			switch sv.db {
			case "sqlite":
				url = "sqlite:" + filepath.Join(dir, fmt.Sprintf("bench-%d-%d.db", r, i))
			case "postgres":
				var drop func()
				url, drop, err = benchdb.Schema(*pg, "bench")
				check(err)
				defer drop()
			}
			results[i] = append(results[i], measure(sv.bin, url, *conns, *warmup, *duration, *accessLog && sv.db != ""))
		}
	}
	// errors is every round's, not only the median round's.
	fmt.Printf("%-16s %10s %9s %9s %9s %9s %8s %8s\n", "server", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "vs peer")
	peerRPS := median(results[0]).rps
	total := 0
	var kinds []string
	for i, sv := range servers {
		r := median(results[i])
		errs := 0
		for _, x := range results[i] {
			errs += x.errors
			for k, n := range x.kinds {
				kinds = append(kinds, fmt.Sprintf("  %s: %d × %s", sv.name, n, k))
			}
		}
		total += errs
		fmt.Printf("%-16s %10.0f %9.2f %9.2f %9.2f %9.2f %8d %7.0f%%\n", sv.name, r.rps, ms(r.p50), ms(r.p90), ms(r.p99),
			ms(r.max), errs, 100*r.rps/peerRPS)
	}
	if total > 0 {
		fmt.Fprintf(os.Stderr, "\nWARNING: %d error answers, counted apart (in neither req/s nor latency); these figures do not describe a healthy run:\n%s\n",
			total, strings.Join(kinds, "\n"))
		os.Exit(1)
	}
}

// median returns the round of median req/s.
func median(rs []result) result {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b result) int {
		switch {
		case a.rps < b.rps:
			return -1
		case a.rps > b.rps:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}

type result struct {
	rps                float64 // 200 answers per second
	p50, p90, p99, max time.Duration
	errors             int            // other answers and failed requests
	kinds              map[string]int // errors by status or failure
}

func measure(bin, dbURL string, conns int, warmup, duration time.Duration, accessLog bool) result {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	logFlag := "0"
	if accessLog {
		logFlag = "1"
	}
	cmd.Env = append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL, "WEBACQ_ADDR="+addr, "WEBACQ_ACCESS_LOG="+logFlag)
	stderr, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	key := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if k, ok := strings.CutPrefix(sc.Text(), "api key: "); ok {
			key = k
		}
		if strings.Contains(sc.Text(), "msg=listening") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if key == "" {
		check(fmt.Errorf("server printed no key"))
	}

	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	client := &http.Client{Transport: tr}
	url := "http://" + addr + "/api/v1/health"
	run := func(d time.Duration) ([]time.Duration, map[string]int) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var mu sync.Mutex
		var all []time.Duration
		errs := map[string]int{}
		var wg sync.WaitGroup
		for i := 0; i < conns; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lat := make([]time.Duration, 0, 1<<16)
				e := map[string]int{}
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				for ctx.Err() == nil {
					t0 := time.Now()
					res, err := client.Do(req)
					if err != nil {
						e[err.Error()]++
						continue
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					// An error answer is often faster than a real one: in
					// the latencies or the rate it would flatter the run.
					if res.StatusCode != http.StatusOK {
						e[res.Status]++
						continue
					}
					lat = append(lat, time.Since(t0))
				}
				mu.Lock()
				all = append(all, lat...)
				for k, n := range e {
					errs[k] += n
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		return all, errs
	}
	// Errors of the warm-up count too: a server that fails while it warms
	// up is not one to measure.
	_, kinds := run(warmup)
	t0 := time.Now()
	lat, errs := run(duration)
	n := 0
	for k, c := range errs {
		kinds[k] += c
	}
	for _, c := range kinds {
		n += c
	}
	elapsed := time.Since(t0)
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	return result{rps: float64(len(lat)) / elapsed.Seconds(), p50: pct(0.50), p90: pct(0.90), p99: pct(0.99),
		max: pct(1), errors: n, kinds: kinds}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
