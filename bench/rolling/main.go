// Command rolling restarts two `webacq serve` nodes on PostgreSQL one after
// the other, behind Caddy configured by deploy/Caddyfile, while clients
// call health through the load balancer, and reports every answer that was
// not 200. Before each SIGTERM a slow fetch (a local page that takes 3 s)
// is sent straight to the node about to stop: it must still answer 200.
//
//	go run ./bench/rolling    # needs caddy on PATH and PostgreSQL on 127.0.0.1:5432 (database test)
//
// Loopback only: the nodes fetch a page served by this program.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"webacq/bench/internal/benchdb"
)

func main() {
	pg := flag.String("pg", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL to use (a schema of its own is created and dropped)")
	clients := flag.Int("clients", 8, "concurrent health callers through the load balancer")
	caddyfile := flag.String("caddyfile", "deploy/Caddyfile", "the load balancer's configuration")
	flag.Parse()
	if err := run(*pg, *clients, *caddyfile); err != nil {
		fmt.Fprintln(os.Stderr, "rolling:", err)
		os.Exit(1)
	}
}

func run(pg string, clients int, caddyfile string) error {
	tmp, err := os.MkdirTemp("", "webacq-rolling")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "webacq")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/webacq").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	dbURL, drop, err := benchdb.Schema(pg, "rolling")
	if err != nil {
		return err
	}
	defer drop()
	env := append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL, "WEBACQ_JOB_WORKERS=0", "WEBACQ_ALLOW_PRIVATE=1",
		"WEBACQ_CHROMIUM=none", "WEBACQ_SHUTDOWN_TIMEOUT=30s")
	cli := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	if _, err := cli("workspace", "create", "rolling", "--credits", "1000000"); err != nil {
		return fmt.Errorf("workspace create: %w", err)
	}
	key, err := cli("key", "create", "--workspace", "rolling", "--name", "bench")
	if err != nil {
		return fmt.Errorf("key create: %w", err)
	}

	slow := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * time.Second)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Slow</title></head><body><article><h1>Slow page</h1>"+
			strings.Repeat("<p>A paragraph that takes its time to arrive.</p>", 20)+"</article></body></html>")
	})}
	sl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go slow.Serve(sl)
	defer slow.Close()

	addrs := []string{freeAddr(), freeAddr()}
	nodes := make([]*exec.Cmd, 2)
	for i := range nodes {
		if nodes[i], err = startNode(bin, env, addrs[i]); err != nil {
			return err
		}
	}
	defer func() {
		for _, n := range nodes {
			n.Process.Kill()
			n.Wait()
		}
	}()

	// The deployment's Caddyfile, pointed at these nodes and a free port.
	conf, err := os.ReadFile(caddyfile)
	if err != nil {
		return err
	}
	lbAddr := freeAddr()
	c := strings.Replace(string(conf), ":80 {", "{\n\tadmin off\n}\nhttp://"+lbAddr+" {", 1)
	c = strings.Replace(c, "api1:8080 api2:8080", addrs[0]+" "+addrs[1], 1)
	if c == string(conf) || !strings.Contains(c, addrs[0]) {
		return fmt.Errorf("%s: no `:80 {` site or `api1:8080 api2:8080` upstreams to point at the nodes", caddyfile)
	}
	cf := filepath.Join(tmp, "Caddyfile")
	if err := os.WriteFile(cf, []byte(c), 0o600); err != nil {
		return err
	}
	caddy := exec.Command("caddy", "run", "--config", cf, "--adapter", "caddyfile")
	caddy.Stderr = io.Discard
	if err := caddy.Start(); err != nil {
		return fmt.Errorf("caddy: %w", err)
	}
	defer func() { caddy.Process.Kill(); caddy.Wait() }()
	if err := waitUp("http://" + lbAddr); err != nil {
		return fmt.Errorf("caddy: %w", err)
	}

	var total, bad atomic.Int64
	var mu sync.Mutex
	failures := map[string]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 60 * time.Second}
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("GET", "http://"+lbAddr+"/api/v1/health", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := client.Do(req)
				total.Add(1)
				what := ""
				if err != nil {
					what = err.Error()
				} else {
					b, _ := io.ReadAll(io.LimitReader(res.Body, 300))
					res.Body.Close()
					if res.StatusCode != 200 {
						what = res.Status + ": " + strings.TrimSpace(string(b))
					}
				}
				if what != "" {
					bad.Add(1)
					mu.Lock()
					failures[what]++
					mu.Unlock()
				}
			}
		}()
	}

	time.Sleep(3 * time.Second)
	start := time.Now()
	for i := range nodes {
		// A slow call in flight on the node about to stop.
		fetched := make(chan string, 1)
		go func() {
			body := fmt.Sprintf(`{"url":"http://%s/slow","tier":"http"}`, sl.Addr())
			req, _ := http.NewRequest("POST", "http://"+addrs[i]+"/api/v1/fetch", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			res, err := client.Do(req)
			if err != nil {
				fetched <- err.Error()
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			fetched <- res.Status
		}()
		time.Sleep(500 * time.Millisecond)
		t0 := time.Now()
		nodes[i].Process.Signal(syscall.SIGTERM)
		err := nodes[i].Wait()
		fmt.Printf("node %d: exit after SIGTERM: %v in %.1f s; slow fetch in flight: %s\n", i+1, exitOf(err),
			time.Since(t0).Seconds(), <-fetched)
		if nodes[i], err = startNode(bin, env, addrs[i]); err != nil {
			return err
		}
		time.Sleep(2 * time.Second)
	}
	rolled := time.Since(start)
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	fmt.Printf("%d clients, %d health calls through the load balancer (%.1f s of rolling restarts inside), %d not 200\n",
		clients, total.Load(), rolled.Seconds(), bad.Load())
	for what, n := range failures {
		fmt.Printf("  %d × %s\n", n, what)
	}
	return nil
}

func exitOf(err error) string {
	if err == nil {
		return "0"
	}
	return err.Error()
}

// startNode starts `webacq serve` on addr and waits for its "listening".
func startNode(bin string, env []string, addr string) (*exec.Cmd, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(env, "WEBACQ_ADDR="+addr)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			if strings.Contains(sc.Text(), "msg=listening") && !once {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
		return cmd, nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("node on %s did not start", addr)
	}
}

func waitUp(base string) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/api/v1/health"); err == nil {
			res.Body.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer", base)
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}
