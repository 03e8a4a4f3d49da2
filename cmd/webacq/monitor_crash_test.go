package main_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// Two workers check 500 monitors of one slow site on PostgreSQL while two
// API-only nodes take the requests; one worker is killed in the middle of
// its checks and a replacement starts. Every due time gets exactly one
// run, no triggered check is lost, and every credit drawn belongs to
// exactly one run. While the worker dies, a workspace limited to 60
// requests a minute sends 200 over both API nodes (limitedBurst).
func TestMonitorWorkerKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a worker among 500 monitors: about a minute")
	}
	const monitors = 500
	const credits = 10 * monitors
	dbURL := storetest.URL(t, store.Postgres)
	// The four nodes share PostgreSQL with the other packages' tests: small
	// pools keep them all under its max_connections.
	nodeURL := dbURL + "&pool_max_conns=12"
	site := slowSite(t, monitors)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	mustRun(t, nodeURL, "workspace", "create", "crash", "--credits", fmt.Sprint(credits), "--monitoring")
	// The test checks and polls hundreds of monitors a minute.
	mustRun(t, nodeURL, "workspace", "update", "crash", "--rpm", "1000000")
	key := strings.TrimSpace(mustRun(t, nodeURL, "key", "create", "--workspace", "crash", "--name", "crash"))
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0"}
	api := startServer(t, nodeURL, append(env, "WEBACQ_JOB_WORKERS=0")...)
	// A second API-only node (2 API nodes + 2 workers, issue 21).
	api2 := startServer(t, dbURL+"&pool_max_conns=6", append(env, "WEBACQ_JOB_WORKERS=0")...)
	// River's leader rescues a dead worker's jobs with its own setting, so
	// every worker gets the short one; it also waits out the check's own
	// timeout (4 × WEBACQ_MONITOR_TIMEOUT + 30 s: fetches and a locked
	// extraction), kept short here too.
	// Eight checks at once per worker keep the four nodes' pools (up to 32
	// connections each) within PostgreSQL's default 100 connections.
	workerEnv := append(env, "WEBACQ_JOB_RESCUE_AFTER=10s", "WEBACQ_MONITOR_TIMEOUT=1s", "WEBACQ_JOB_WORKERS=8")
	victim := startWorker(t, nodeURL, workerEnv...)
	victimID := waitLeader(ctx, t, db) // the only client yet: the victim's River id
	startWorker(t, nodeURL, workerEnv...)

	ids := registerMonitors(ctx, t, api.url, key, site.URL, monitors)
	waitCount(ctx, t, db, `SELECT count(*) FROM monitor_runs`, monitors, 40*time.Second, "anchor runs")

	// Check every monitor now; each answer names the due time of its check.
	due := make([]time.Time, monitors)
	parallelDo(t, monitors, func(i int) error {
		var out struct {
			NextCheckAt time.Time `json:"next_check_at"`
		}
		if err := apiCall(ctx, api.url, key, "POST", "/api/v1/monitor/"+ids[i]+"/check", nil, &out); err != nil {
			return err
		}
		due[i] = out.NextCheckAt
		return nil
	})
	waitCount(ctx, t, db, `SELECT count(*) FROM monitor_runs`, monitors+monitors/5, 30*time.Second, "a fifth of the triggered runs")
	victim.kill()
	// Meanwhile another workspace at 60 requests a minute sends 200
	// fetches over both API nodes (issue 21): the limit holds across them.
	limitedBurst(ctx, t, db, nodeURL, []string{api.url, api2.url}, site.URL)
	orphans := jobIDs(ctx, t, db, `SELECT id FROM river_job WHERE kind = 'monitor_check' AND state = 'running'
		AND attempted_by[array_upper(attempted_by, 1)] = $1`, victimID)
	if len(orphans) == 0 {
		t.Fatal("the killed worker had no check in flight: the test killed nothing mid-run")
	}
	t.Logf("killed the worker with %d checks in flight", len(orphans))
	startWorker(t, nodeURL, workerEnv...)
	waitCount(ctx, t, db, `SELECT count(*) FROM monitor_runs`, 2*monitors, 75*time.Second, "every triggered run")

	assertOneRunPerDueTime(ctx, t, db, ids, due)
	// A monitor's job lives on: the killed worker's jobs were rescued, ran
	// their checks (the runs above) and now wait for the next due time.
	// (A job that has just run stays "running" until River's completer
	// snoozes it: give that a few seconds.)
	var rescued []int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		rescued = jobIDs(ctx, t, db, `SELECT j.id FROM river_job j JOIN monitors m ON m.job_id = j.id
			WHERE j.id = ANY($1) AND j.state = 'scheduled' AND m.next_check_at > now() + interval '1 hour'`, orphans)
		if len(rescued) == len(orphans) || time.Now().After(deadline) {
			break
		}
	}
	if len(rescued) != len(orphans) {
		t.Errorf("%d of the killed worker's %d checks were retried and scheduled again, want all", len(rescued), len(orphans))
		rows, _ := db.QueryContext(ctx, `SELECT j.id, j.state, j.attempt, j.scheduled_at, m.next_check_at, m.job_id FROM river_job j
			LEFT JOIN monitors m ON m.id = j.args->>'monitor_id' WHERE j.id = ANY($1)`, orphans)
		for rows != nil && rows.Next() {
			var id, attempt int64
			var state string
			var sched, next time.Time
			var job sql.NullInt64
			rows.Scan(&id, &state, &attempt, &sched, &next, &job)
			t.Logf("job %d: %s attempt %d scheduled %s; monitor next %s job %v", id, state, attempt, sched, next, job)
		}
	}
	assertBilledOnce(ctx, t, db, credits, 2*monitors)
	// Each monitor is left with exactly one queued check (its next one).
	var queued, distinct int
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT args->>'monitor_id') FROM river_job
		WHERE kind = 'monitor_check' AND state IN ('scheduled', 'available', 'retryable', 'running')`).Scan(&queued, &distinct); err != nil {
		t.Fatal(err)
	}
	if queued != monitors || distinct != monitors {
		t.Errorf("%d queued checks for %d monitors, want one each for %d", queued, distinct, monitors)
	}
}

// slowSite serves n small press lists at /m/{i}, each after 50-200 ms.
func slowSite(t *testing.T, n int) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/m/%d", &i); err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		select {
		case <-time.After(time.Duration(50+rand.IntN(151)) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Press %d</title></head><body><nav><a href="/">Home</a></nav>
<main><h1>Press releases of company %d</h1><ul>
<li><a href="/m/%d/q3.pdf">Company %d reports third-quarter results: revenue up %d%%</a></li>
<li><a href="/m/%d/agm.pdf">Notice of the annual general meeting of company %d</a></li>
</ul><p>Company %d designs and sells industrial sensors in %d countries.</p></main>
<footer>© 2026 company %d</footer></body></html>`, i, i, i, i, 3+i%17, i, i, i, 10+i%40, i)
	}))
	t.Cleanup(s.Close)
	return s
}

// workerProc is a running `webacq worker`.
type workerProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    *syncBuffer
}

// kill ends the worker with SIGKILL, as a crash would.
func (w *workerProc) kill() {
	w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.exited
}

// startWorker starts `webacq worker` and waits until it works.
func startWorker(t *testing.T, dbURL string, env ...string) *workerProc {
	t.Helper()
	cmd := exec.Command(binary, "worker")
	cmd.Env = append(append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL), env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, exited: make(chan struct{}), log: &syncBuffer{}}
	go func() { cmd.Wait(); pw.Close(); close(w.exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-w.exited })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		var once sync.Once
		for sc.Scan() {
			w.log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), `msg="worker started"`) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-w.exited:
		t.Fatalf("worker exited before starting:\n%s", w.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("worker did not start:\n%s", w.log.String())
	}
	return w
}

// waitLeader waits for River's leader and returns its client id.
func waitLeader(ctx context.Context, t *testing.T, db *sql.DB) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var id string
		err := db.QueryRowContext(ctx, `SELECT leader_id FROM river_leader`).Scan(&id)
		if err == nil {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("no River leader after 20 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitCount polls query until it counts at least want, for at most limit.
func waitCount(ctx context.Context, t *testing.T, db *sql.DB, query string, want int, limit time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var got int
		if err := db.QueryRowContext(ctx, query).Scan(&got); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d after %s", what, got, want, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func jobIDs(ctx context.Context, t *testing.T, db *sql.DB, query string, args ...any) []int64 {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertOneRunPerDueTime checks that every monitor has exactly its anchor
// run and the run of the due time its check answered, once each.
func assertOneRunPerDueTime(ctx context.Context, t *testing.T, db *sql.DB, ids []string, due []time.Time) {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT monitor_id, due_at FROM monitor_runs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	runs := map[string][]time.Time{}
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		runs[id] = append(runs[id], at)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, id := range ids {
		got := runs[id]
		seen := map[int64]int{}
		found := false
		for _, at := range got {
			seen[at.UnixMicro()]++
			found = found || at.Equal(due[i])
		}
		if len(got) != 2 || len(seen) != 2 || !found {
			if bad++; bad <= 5 {
				t.Errorf("monitor %s: runs due at %v, want its anchor and %v once each", id, got, due[i].UTC())
			}
		}
	}
	if bad > 5 {
		t.Errorf("… and %d more monitors", bad-5)
	}
}

// assertBilledOnce checks that the credits drawn, the runs' credits and
// the usage log agree, and that every run was billed once.
func assertBilledOnce(ctx context.Context, t *testing.T, db *sql.DB, start int64, runs int) {
	t.Helper()
	var balance, runCredits, billed, usageCredits, usageRows int64
	err := db.QueryRowContext(ctx, `SELECT
		(SELECT credits FROM workspaces WHERE name = 'crash'),
		(SELECT coalesce(sum(credits), 0) FROM monitor_runs),
		(SELECT count(*) FROM monitor_runs WHERE credits > 0),
		(SELECT coalesce(sum(credits), 0) FROM usage_log WHERE endpoint = '/api/v1/monitor/run'),
		(SELECT count(*) FROM usage_log WHERE endpoint = '/api/v1/monitor/run')`).
		Scan(&balance, &runCredits, &billed, &usageCredits, &usageRows)
	if err != nil {
		t.Fatal(err)
	}
	drawn := start - balance
	if drawn != runCredits || runCredits != billed || billed != int64(runs) {
		t.Errorf("credits drawn %d, runs' credits %d, billed runs %d: want all %d", drawn, runCredits, billed, runs)
		// Name what the unbilled runs ended as (a check that failed is
		// not billed), so that a failure tells a lost charge from a
		// check that timed out.
		rows, err := db.QueryContext(ctx, `SELECT outcome, error, count(*) FROM monitor_runs WHERE credits = 0
			GROUP BY outcome, error ORDER BY count(*) DESC LIMIT 10`)
		if err == nil {
			for rows.Next() {
				var outcome, msg string
				var n int
				if rows.Scan(&outcome, &msg, &n) == nil {
					t.Logf("unbilled runs: %d with outcome %q, error %.200q", n, outcome, msg)
				}
			}
			rows.Close()
		}
	}
	if usageCredits != drawn || usageRows != int64(runs) {
		t.Errorf("usage log: %d rows, %d credits; want %d rows, %d credits", usageRows, usageCredits, runs, drawn)
	}
}

// registerMonitors registers a monitor of /m/{i} for i < n, 8 at a time,
// and returns their ids.
func registerMonitors(ctx context.Context, t *testing.T, api, key, site string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	parallelDo(t, n, func(i int) error {
		var out struct {
			MonitorID string `json:"monitor_id"`
		}
		body := map[string]any{"url": fmt.Sprintf("%s/m/%d", site, i), "check_interval_hours": 24}
		if err := apiCall(ctx, api, key, "POST", "/api/v1/monitor/register", body, &out); err != nil {
			return err
		}
		ids[i] = out.MonitorID
		return nil
	})
	return ids
}

// parallelDo runs fn(i) for every i < n on 8 goroutines; the first error
// fails the test.
func parallelDo(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// apiCall sends one REST call and decodes its data into out.
func apiCall(ctx context.Context, base, key, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var env struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error string          `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: HTTP %d: %w", method, path, res.StatusCode, err)
	}
	if !env.OK {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, res.StatusCode, env.Error)
	}
	return json.Unmarshal(env.Data, out)
}

// limitedBurst creates a workspace limited to 60 primitive requests a
// minute and sends 200 fetches of the site's pages, 8 at a time, spread
// over the API nodes: exactly 60 get through when the burst stays within
// one minute (at most 120 when it spans two), the rest answer 429
// rate_limited with Retry-After, and the workspace's credits drawn equal
// the credits of its usage rows.
func limitedBurst(ctx context.Context, t *testing.T, db *sql.DB, nodeURL string, apis []string, site string) {
	t.Helper()
	const start, rpm, requests = 10000, 60, 200
	mustRun(t, nodeURL, "workspace", "create", "limited", "--credits", fmt.Sprint(start))
	mustRun(t, nodeURL, "workspace", "update", "limited", "--rpm", fmt.Sprint(rpm))
	key := strings.TrimSpace(mustRun(t, nodeURL, "key", "create", "--workspace", "limited", "--name", "burst"))
	if now := time.Now(); now.Second() >= 45 { // keep the burst in one minute when we can
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute).Sub(now))
	}
	first := time.Now().Truncate(time.Minute)
	var passed, limited atomic.Int64
	parallelDo(t, requests, func(i int) error {
		body := fmt.Sprintf(`{"url":"%s/m/%d","tier":"http"}`, site, i%50)
		req, err := http.NewRequestWithContext(ctx, "POST", apis[i%len(apis)]+"/api/v1/fetch", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusOK:
			passed.Add(1)
		case http.StatusTooManyRequests:
			if res.Header.Get("Retry-After") == "" || res.Header.Get("RateLimit-Remaining") != "0" {
				return fmt.Errorf("429 without Retry-After or RateLimit-Remaining 0: %v", res.Header)
			}
			limited.Add(1)
		default:
			return fmt.Errorf("fetch %d: status %d", i, res.StatusCode)
		}
		return nil
	})
	minutes := int64(time.Now().Truncate(time.Minute).Sub(first)/time.Minute) + 1
	t.Logf("%d requests at %d rpm over %d nodes in %d minute(s): %d passed, %d limited", requests, rpm, len(apis), minutes, passed.Load(), limited.Load())
	if p := passed.Load(); p > rpm*minutes || (minutes == 1 && p != rpm) || p+limited.Load() != requests {
		t.Errorf("%d requests at %d rpm over %d minute(s): %d passed, %d limited", requests, rpm, minutes, p, limited.Load())
	}
	var balance, used, usageRows, held int64
	if err := db.QueryRowContext(ctx, `SELECT w.credits,
		(SELECT coalesce(sum(credits), 0) FROM usage_log u WHERE u.workspace_id = w.id),
		(SELECT count(*) FROM usage_log u WHERE u.workspace_id = w.id AND u.endpoint = '/api/v1/fetch' AND u.status = 200),
		(SELECT count(*) FROM reservations r WHERE r.workspace_id = w.id)
		FROM workspaces w WHERE w.name = 'limited'`).Scan(&balance, &used, &usageRows, &held); err != nil {
		t.Fatal(err)
	}
	if start-balance != used || used == 0 || held != 0 {
		t.Errorf("limited workspace: drew %d credits, its usage rows say %d, %d holds left", start-balance, used, held)
	}
	if usageRows != passed.Load() {
		t.Errorf("limited workspace: %d fetch usage rows for %d fetches answered", usageRows, passed.Load())
	}
}
