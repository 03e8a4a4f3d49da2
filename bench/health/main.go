// Command health measures authenticated GET /api/v1/health throughput and
// latency of a real `webacq serve` process on SQLite and on PostgreSQL, with
// a closed-loop load generator on 127.0.0.1. Every request is authenticated
// against the database and writes its usage and activity rows.
//
//	go run ./bench/health [-duration 10s] [-conns 32] [-db sqlite,postgres]
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
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
)

func main() {
	duration := flag.Duration("duration", 10*time.Second, "measurement time per database")
	warmup := flag.Duration("warmup", 2*time.Second, "warm-up time per database")
	conns := flag.Int("conns", 32, "concurrent keep-alive connections")
	dbs := flag.String("db", "sqlite,postgres", "databases to measure")
	pg := flag.String("postgres", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL server")
	accessLog := flag.Bool("access-log", true, "keep the per-request access log on (as in production)")
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
	fmt.Printf("GET /api/v1/health, %d connections, %s per database (after %s warm-up), access log %v\n",
		*conns, *duration, *warmup, *accessLog)
	fmt.Printf("%-10s %10s %9s %9s %9s %9s %8s %8s\n", "server", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "vs peer")
	// The peer (bare net/http, same answer, no auth, database or log) is the
	// ceiling of this machine at this moment; ratios against it travel
	// between machines better than raw figures.
	p := measure(peer, "", *conns, *warmup, *duration, false)
	row("peer", p, p.rps)
	for _, db := range strings.Split(*dbs, ",") {
		var url string
		switch db {
		case "sqlite":
			url = "sqlite:" + filepath.Join(dir, "bench.db")
		case "postgres":
			var drop func()
			url, drop = pgSchema(*pg)
			defer drop()
		default:
			check(fmt.Errorf("unknown database %q", db))
		}
		row(db, measure(bin, url, *conns, *warmup, *duration, *accessLog), p.rps)
	}
}

func row(name string, r result, peer float64) {
	fmt.Printf("%-10s %10.0f %9.2f %9.2f %9.2f %9.2f %8d %7.0f%%\n", name, r.rps, ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max), r.errors, 100*r.rps/peer)
}

type result struct {
	rps                float64
	p50, p90, p99, max time.Duration
	errors             int
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
	run := func(d time.Duration, record bool) ([]time.Duration, int) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var mu sync.Mutex
		var all []time.Duration
		errs := 0
		var wg sync.WaitGroup
		for i := 0; i < conns; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lat := make([]time.Duration, 0, 1<<16)
				e := 0
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				for ctx.Err() == nil {
					t0 := time.Now()
					res, err := client.Do(req)
					if err != nil {
						e++
						continue
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						e++
					}
					lat = append(lat, time.Since(t0))
				}
				mu.Lock()
				all = append(all, lat...)
				errs += e
				mu.Unlock()
			}()
		}
		wg.Wait()
		return all, errs
	}
	run(warmup, false)
	t0 := time.Now()
	lat, errs := run(duration, true)
	elapsed := time.Since(t0)
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	return result{rps: float64(len(lat)) / elapsed.Seconds(), p50: pct(0.50), p90: pct(0.90), p99: pct(0.99),
		max: pct(1), errors: errs}
}

func pgSchema(base string) (string, func()) {
	db, err := sql.Open("pgx", base)
	check(err)
	var b [6]byte
	rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	_, err = db.Exec(`CREATE SCHEMA ` + schema)
	check(err)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema, func() {
		db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		db.Close()
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
