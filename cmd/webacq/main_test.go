package main_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"webacq/internal/porttest"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var binary string

// parallelTests is how many tests marked t.Parallel run at once unless
// -parallel says otherwise (its default is the number of CPUs). The kill,
// rescue and memory tests spend most of their time waiting on a node they
// started (River's rescue of a killed node's jobs, restarts, a slow site):
// running all of them at once overlaps those waits, and the command-line
// tests fill the idle cores meanwhile. Each has its own database and
// ports. TestMonitorWorkerKilledMidRun (four nodes, the most PostgreSQL
// connections, deadlines on 500 checks), the hostile PDFs (CPU time) and
// the tests with short deadlines (a 1 s reservation TTL, shutdown and
// pace timings) stay sequential, and so do those of a second or two
// (nothing to gain). The limit lets nearly every parallel test and subtest
// start at once: the kill tests' subtests, queued behind the others, are
// the longest (their rescue waits). With 24, too many nodes started at
// once: a race-built serve took more than 30 s to listen.
const parallelTests = 16

// TestMain builds the real binary once; the tests run it as operators do.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(parallelTests))
	}
	dir, err := os.MkdirTemp("", "webacq-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "webacq")
	// The plain binary (plainBinary) builds meanwhile: the tests that do
	// not need it start without waiting for it.
	startPlainBuild(dir)
	args := []string{"build", "-o", binary}
	if raceEnabled {
		args = append(args, "-race")
		// A race-built process sleeps a second as it exits (the race
		// runtime's atexit_sleep_ms, 1000 by default): over the
		// hundreds of commands these tests run, minutes of the CI's
		// time. A race found is still reported and still fails the
		// command (exit 66).
		if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
			os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
		}
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	<-plain.done // its go build writes into dir
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary on a database to completion and returns stdout,
// stderr and the exit code.
func run(t *testing.T, dbURL string, args ...string) (string, string, int) {
	t.Helper()
	return runWith(t, []string{"WEBACQ_DATABASE_URL=" + dbURL}, args...)
}

func mustRun(t *testing.T, dbURL string, args ...string) string {
	t.Helper()
	out, errOut, code := run(t, dbURL, args...)
	if code != 0 {
		t.Fatalf("webacq %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

var (
	uuidRE = regexp.MustCompile(`^[0-9a-f-]{36}\n$`)
	keyRE  = regexp.MustCompile(`^mc_[0-9A-Za-z]{40}\n$`)
)

func TestCommands(t *testing.T) {
	t.Parallel() // see TestMain
	storetest.Each(t, func(t *testing.T, dialect string) {
		db := storetest.URL(t, dialect)
		if _, errOut, code := run(t, db, "migrate"); code != 0 {
			t.Fatalf("migrate: %d %s", code, errOut)
		}
		if out := mustRun(t, db, "workspace", "create", "acme", "--credits", "5", "--monitoring"); !uuidRE.MatchString(out) {
			t.Fatalf("workspace create printed %q, want the id", out)
		}
		if _, errOut, code := run(t, db, "workspace", "create", "acme"); code == 0 || !strings.Contains(errOut, "already exists") {
			t.Fatalf("duplicate workspace: exit %d, %q", code, errOut)
		}
		if out := mustRun(t, db, "workspace", "list"); !regexp.MustCompile(`acme\s+5\s+true`).MatchString(out) {
			t.Fatalf("workspace list:\n%s", out)
		}
		key := mustRun(t, db, "key", "create", "--workspace", "acme", "--name", "ci")
		if !keyRE.MatchString(key) {
			t.Fatalf("key create printed %q, want the key alone", key)
		}
		prefix := key[:12]
		if out := mustRun(t, db, "key", "list", "--workspace", "acme"); !strings.Contains(out, prefix) || strings.Contains(out, key[:len(key)-1]) {
			t.Fatalf("key list shows no prefix, or the whole key:\n%s", out)
		}
		if out := mustRun(t, db, "credits", "add", "--workspace", "acme", "10"); out != "15\n" {
			t.Fatalf("credits add printed %q, want 15", out)
		}
		if _, _, code := run(t, db, "credits", "add", "--workspace", "acme", "--", "-100"); code == 0 {
			t.Fatal("credits add took the balance below zero")
		}
		if _, errOut, code := run(t, db, "key", "create", "--workspace", "nope", "--name", "x"); code == 0 || !strings.Contains(errOut, "not found") {
			t.Fatalf("key for unknown workspace: exit %d %q", code, errOut)
		}
		mustRun(t, db, "key", "revoke", prefix)
		if out := mustRun(t, db, "key", "list", "--workspace", "acme"); !regexp.MustCompile(prefix + `\s+ci\s+\S+\s+-\s+20`).MatchString(out) {
			t.Fatalf("revoked key not shown as revoked:\n%s", out)
		}
		if _, _, code := run(t, db, "key", "revoke", prefix); code == 0 {
			t.Fatal("second revoke succeeded")
		}
		if _, errOut, code := run(t, db, "bogus"); code == 0 || errOut == "" {
			t.Fatal("unknown command accepted")
		}
	})
}

// server is a running `webacq serve`.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	key    string // bootstrap key, if it printed one
}

func startServer(t *testing.T, dbURL string, env ...string) *server {
	t.Helper()
	return startServerWith(t, binary, dbURL, env...)
}

// startServerWith starts `serve` of the binary bin (see plainBinary).
func startServerWith(t *testing.T, bin, dbURL string, env ...string) *server {
	t.Helper()
	addr, release := porttest.Reserve(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL, "WEBACQ_ADDR="+addr), env...)
	s := &server{cmd: cmd, url: "http://" + addr, stderr: &syncBuffer{}}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			line := sc.Text()
			s.stderr.WriteString(line + "\n")
			if k, ok := strings.CutPrefix(line, "api key: "); ok {
				s.key = k
			}
			if strings.Contains(line, "msg=listening") && !once {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
		release()
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start:\n%s", s.stderr.String())
	}
	return s
}

func (s *server) health(t *testing.T, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/api/v1/health", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestServeBootstrapsOnceAndShutsDownGracefully(t *testing.T) {
	db := storetest.URL(t, store.SQLite)
	s := startServer(t, db)
	if !keyRE.MatchString(s.key + "\n") {
		t.Fatalf("no bootstrap key on stderr:\n%s", s.stderr.String())
	}
	if code := s.health(t, s.key); code != 200 {
		t.Fatalf("health with bootstrap key: %d", code)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after SIGTERM")
	}
	if !strings.Contains(s.stderr.String(), "shutting down") {
		t.Fatalf("no shutdown log:\n%s", s.stderr.String())
	}
	s2 := startServer(t, db)
	if s2.key != "" {
		t.Fatal("second start printed another bootstrap key")
	}
	if code := s2.health(t, s.key); code != 200 {
		t.Fatalf("bootstrap key after restart: %d", code)
	}
	out := mustRun(t, db, "workspace", "list")
	if !regexp.MustCompile(`default\s+10000\s+true`).MatchString(out) {
		t.Fatalf("default workspace:\n%s", out)
	}
}

// A key revoked through one node is refused by another on its next request.
func TestTwoServersShareRevocation(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startServer(t, db)
	b := startServer(t, db)
	if a.key == "" || b.key != "" {
		t.Fatalf("want exactly one bootstrap key: a=%q b=%q", a.key, b.key)
	}
	key := strings.TrimSpace(mustRun(t, db, "key", "create", "--workspace", "default", "--name", "agent"))
	if a.health(t, key) != 200 || b.health(t, key) != 200 {
		t.Fatal("new key refused")
	}
	req, _ := http.NewRequest("DELETE", a.url+"/api/v1/keys/"+key[:12], nil)
	req.Header.Set("Authorization", "Bearer "+a.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("revoke through server a: %v %v", res, err)
	}
	res.Body.Close()
	if code := b.health(t, key); code != 401 {
		t.Fatalf("server b answered %d for the revoked key, want 401", code)
	}
	if code := a.health(t, key); code != 401 {
		t.Fatalf("server a answered %d for the revoked key, want 401", code)
	}
}
