package main_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/porttest"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// killPoint is where a cycle of TestDeliveriesSurviveKills kills the node.
type killPoint int

const (
	// killInFlight: the receiver holds the delivery's request open, so the
	// node dies with the delivery job running; River's rescuer retries it.
	killInFlight killPoint = iota
	// killCommitted: the node dies the moment the run is visible (its
	// delivery row commits with it), before or while the job sending it is
	// picked up.
	killCommitted
	// killQueued: the receiver refuses (503) a first delivery, a second one
	// of the same monitor waits behind it, and the node dies between
	// attempts, with none of its jobs running. The receiver keeps the first
	// delivery's attempts waiting (rcv.gate) while the second is detected,
	// and refuses one only once it is: the refused delivery's seven
	// attempts, 2 s apart, are not spent on how long the cycle takes.
	killQueued
)

func (k killPoint) String() string {
	return [...]string{"in flight", "committed", "queued"}[k]
}

// crashCycles is how many times the node is killed and restarted.
const crashCycles = 20

// killPointOf spreads the kill points over the cycles. A job a dead node
// left running is rescued only once its own timeout has passed since it
// started (30 s for a delivery, 34 s for a check here), so the kills that
// leave such jobs come first: the last node, started when all can be
// rescued, is then not long in coming.
func killPointOf(cycle int) killPoint {
	if cycle < crashCycles/2 {
		return killPoint(cycle % 2)
	}
	return killQueued
}

// The real binary is killed with SIGKILL between detection and delivery,
// 20 times, and restarted each time: every delivery row reaches the
// receiver (at least once, deduplicated by delivery_id) and ends
// delivered, every run that alerts has its delivery, and each monitor's
// deliveries first arrive, and are first acknowledged, in detection order.
func TestDeliveriesSurviveKills(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("kills the binary 20 times on each store: about a minute")
	}
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			testDeliveriesSurviveKills(t, dialect)
		})
	}
}

func testDeliveriesSurviveKills(t *testing.T, dialect string) {
	// The plain binary: a race-instrumented one takes 1.5-2 s to start,
	// which 20 restarts on two stores cannot afford. Its build (from
	// TestMain, beside the race one's and the other packages') is not the
	// test's: the 4 minutes start once it is there.
	waited := time.Now()
	bin := plainBinary(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dbURL := storetest.URL(t, dialect)
	nodeURL := dbURL
	if dialect == store.Postgres {
		nodeURL += "&pool_max_conns=8" // both stores' nodes share PostgreSQL with the other packages' tests
	}
	db := openCrashDB(t, dialect, dbURL)
	site := newChangingSite(t)
	const secret = "crash-test-webhook-secret-0123456789"
	rcv := newHookReceiver(t, secret)

	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("webacq %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	cli("workspace", "create", "crash", "--credits", "1000", "--monitoring")
	key := cli("key", "create", "--workspace", "crash", "--name", "crash")
	// River rescues a dead node's jobs after 10 s (at least the job's own
	// timeout: 30 s for a delivery, 2 × 1 s fetch + 2 × 1 s extraction +
	// 30 s for a check); delivery retries wait 2 s (seven attempts in 12 s:
	// a queued cycle that took longer between its refusal and its kill
	// would leave the delivery failed, which nothing retries, so the
	// receiver refuses one attempt per queued cycle and keeps the others
	// waiting: a wait costs an attempt only per 12 s, the attempt's 10 s
	// timeout and then the 2 s wait).
	// Four workers, fewer than the pool's connections: a check that
	// alerts reads the webhook settings outside its run's transaction, so
	// on PostgreSQL as many such checks at once as the pool has connections
	// wait for each other until their timeout.
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0",
		"WEBACQ_SECRET_KEY=crash-test-operator-key-0123456789", "WEBACQ_JOB_POLL_INTERVAL=20ms",
		"WEBACQ_JOB_RESCUE_AFTER=10s", "WEBACQ_MONITOR_TIMEOUT=1s", "WEBACQ_DELIVERY_RETRY_WAIT=2s",
		"WEBACQ_JOB_WORKERS=4", "WEBACQ_CHECK_NOW_INTERVAL=0s"}
	// Each node's connections carry a name of their own, so that a kill can
	// wait until the server has ended them (db.killed).
	nodes := 0
	launch := func() *crashNode {
		t.Helper()
		nodes++
		url, app := nodeURL, ""
		if dialect == store.Postgres {
			app = fmt.Sprintf("webacq-crash-%d", nodes)
			url += "&application_name=" + app
		}
		n := startCrashNode(t, bin, url, env)
		n.app = app
		return n
	}
	// since is when the running node's jobs began: every job attempted
	// after it is that node's (the one before it is dead and gone).
	since := time.Now()
	node := launch()

	var hook struct {
		WebhookURL string `json:"webhook_url"`
	}
	if err := apiCall(ctx, node.url, key, "POST", "/api/v1/monitor/webhook",
		map[string]any{"webhook_url": rcv.url + "/hook", "webhook_secret": secret}, &hook); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, crashCycles)
	for i := range ids {
		var out struct {
			MonitorID string `json:"monitor_id"`
		}
		body := map[string]any{"url": site.url(i), "label": fmt.Sprintf("company %d", i), "check_interval_hours": 24}
		if err := apiCall(ctx, node.url, key, "POST", "/api/v1/monitor/register", body, &out); err != nil {
			t.Fatal(err)
		}
		ids[i] = out.MonitorID
	}
	// Each monitor's anchor alerts too: all are delivered, and River has
	// recorded every job's end, before the first kill. (A check job the
	// kill left running would absorb the monitor's next check-now until
	// River rescued it.)
	eventually(ctx, t, 30*time.Second, "the anchors' deliveries", func() (bool, string) {
		n := db.count(ctx, t, `SELECT count(*) FROM deliveries WHERE kind = 'webhook' AND status = 'delivered'`)
		running := db.count(ctx, t, `SELECT count(*) FROM river_job WHERE state = 'running'`)
		return n == crashCycles && running == 0, fmt.Sprintf("%d of %d delivered, %d jobs running", n, crashCycles, running)
	})

	changeAndCheck := func(i int) {
		t.Helper()
		site.change(i)
		var out struct {
			NextCheckAt time.Time `json:"next_check_at"`
		}
		if err := apiCall(ctx, node.url, key, "POST", "/api/v1/monitor/"+ids[i]+"/check", nil, &out); err != nil {
			t.Fatal(err)
		}
	}
	wantAlerts := map[string]int{} // alerting runs per monitor: its anchor, and one per change
	for _, id := range ids {
		wantAlerts[id] = 1
	}
	var atKill []string          // what the committed kills found
	var refused []string         // the refused deliveries at the queued kills
	written := map[string]bool{} // delivery rows present at a kill
	cycles := time.Now()
	for cycle := range crashCycles {
		i, point, id := cycle, killPointOf(cycle), ids[cycle]
		before := db.webhookCount(ctx, t, id)
		switch point {
		case killInFlight:
			rcv.holdNext(id)
			changeAndCheck(i)
			eventually(ctx, t, 30*time.Second, "the held request", func() (bool, string) {
				return rcv.holding(id) != "", "none yet"
			})
		case killCommitted:
			runs := db.runCount(ctx, t, id)
			changeAndCheck(i)
			for deadline := time.Now().Add(30 * time.Second); db.runCount(ctx, t, id) == runs; {
				if time.Now().After(deadline) {
					t.Fatalf("cycle %d: no run after 30 s", cycle)
				}
				time.Sleep(time.Millisecond)
			}
		case killQueued:
			rcv.gate(id)
			changeAndCheck(i)
			// The second check once the first has ended: a check-now that
			// finds the job still running waits for the schedule repair
			// (every 2 s).
			eventually(ctx, t, 30*time.Second, "the first delivery at the receiver", func() (bool, string) {
				return rcv.waiting(id) > 0 && !db.checkRunning(ctx, t, id), "none yet"
			})
			changeAndCheck(i)
			wantAlerts[id]++
			eventually(ctx, t, 30*time.Second, "the second delivery", func() (bool, string) {
				n := db.webhookCount(ctx, t, id)
				return n == before+2, fmt.Sprintf("%d deliveries", n-before)
			})
			// The first delivery's attempt is refused now, and its next one
			// waits at the receiver again: the kill lands between
			// attempts, when no job of the node's is running (jobs of dead
			// nodes are, until rescued).
			rcv.refuseOne(id)
			eventually(ctx, t, 30*time.Second, "a refused attempt, the node idle", func() (bool, string) {
				n, running := db.refusedAttempts(ctx, t, id), 0
				for _, at := range db.runningSince(ctx, t) {
					if at.After(since) {
						running++
					}
				}
				return n > 0 && running == 0, fmt.Sprintf("%d refused attempts, %d jobs running\n%s\n%s", n, running,
					db.jobReport(ctx, t, id), node.log.String())
			})
		}
		since = db.killed(ctx, t, node)
		if point == killQueued {
			// Still pending (queued for its next attempt), or the cycle
			// tested nothing and the drain would wait for it in vain.
			status, attempts := db.refusedDelivery(ctx, t, id)
			if status != "pending" {
				t.Fatalf("cycle %d: the refused delivery was %s after %d attempts at the kill", cycle, status, attempts)
			}
			refused = append(refused, strconv.Itoa(attempts))
			rcv.ungate(id)
		}
		wantAlerts[id]++
		for _, r := range db.webhooks(ctx, t) {
			written[r.id] = true
		}
		if point == killCommitted {
			atKill = append(atKill, db.lastDeliveryState(ctx, t, id, rcv))
		}
		if cycle < crashCycles-1 {
			node = launch()
		}
	}
	lastKill := time.Now()
	t.Logf("%s: the plain binary after %.1f s, set up in %.1f s, %d kills in %.1f s; the committed kills found the "+
		"delivery %s; the queued kills found the refused one pending after %s attempts", dialect,
		start.Sub(waited).Seconds(), cycles.Sub(start).Seconds(), crashCycles, lastKill.Sub(cycles).Seconds(),
		strings.Join(atKill, ", "), strings.Join(refused, ", "))
	// The last node starts once River can rescue every job the kills left
	// running (each job's timeout after it started: at most 34 s). River's
	// leader looks for such jobs when it is elected, then every 30 s, so a
	// node started any earlier would add up to 30 s; a node down for half a
	// minute after a crash is as real a case as any.
	orphans := db.runningSince(ctx, t)
	var horizon time.Time
	for _, at := range orphans {
		horizon = later(horizon, at.Add(36*time.Second))
	}
	time.Sleep(time.Until(horizon))
	node = launch()
	t.Logf("%s: the kills left %d jobs running; the last node started %.1f s after the last kill", dialect,
		len(orphans), time.Since(lastKill).Seconds())
	drain := time.Now()
	// A change of every page on the last node: each new delivery goes out
	// only after the one a kill interrupted. (Made here rather than after
	// each restart, so that no kill interrupts these checks.)
	for i, id := range ids {
		changeAndCheck(i)
		wantAlerts[id]++
	}

	want := 0
	for _, n := range wantAlerts {
		want += n
	}
	eventually(ctx, t, 150*time.Second, "every delivery delivered and acknowledged", func() (bool, string) {
		rows := db.webhooks(ctx, t)
		delivered, acked := 0, 0
		for _, r := range rows {
			if r.status == "delivered" {
				delivered++
			}
			if rcv.acked(r.id) {
				acked++
			}
		}
		return len(rows) == want && delivered == want && acked == want,
			fmt.Sprintf("%d rows of %d, %d delivered, %d acknowledged\n%s", len(rows), want, delivered, acked,
				db.pendingReport(ctx, t))
	})

	drained := time.Since(drain)
	rows := db.webhooks(ctx, t)
	seen := map[string]bool{}
	byMonitor := map[string][]webhookRow{}
	for _, r := range rows {
		seen[r.id] = true
		byMonitor[r.monitor] = append(byMonitor[r.monitor], r)
	}
	for _, id := range rcv.ids() {
		if !seen[id] {
			t.Errorf("the receiver got delivery %s, which no row holds", id)
		}
	}
	for id := range written {
		if !seen[id] {
			t.Errorf("delivery %s, written before a kill, is gone", id)
		}
	}
	for _, id := range ids {
		ds := byMonitor[id]
		if len(ds) != wantAlerts[id] {
			t.Errorf("monitor %s: %d deliveries, want %d", id, len(ds), wantAlerts[id])
		}
		sort.Slice(ds, func(a, b int) bool { return ds[a].created.Before(ds[b].created) })
		for k := 1; k < len(ds); k++ {
			p, d := rcv.get(ds[k-1].id), rcv.get(ds[k].id)
			if p.firstArrival > d.firstArrival || p.firstAck > d.firstAck {
				t.Errorf("monitor %s: delivery %s (detected %s) arrived #%d, acknowledged #%d; the one detected before it, "+
					"%s (%s), #%d and #%d", id, ds[k].id, ds[k].created.Format(time.StampMicro), d.firstArrival, d.firstAck,
					ds[k-1].id, ds[k-1].created.Format(time.StampMicro), p.firstArrival, p.firstAck)
			}
		}
	}
	if n := db.alertsWithoutDelivery(ctx, t); n != 0 {
		t.Errorf("%d alerting runs have no webhook delivery, or more than one", n)
	}
	requests, repeated, bad := rcv.stats()
	if bad != 0 {
		t.Errorf("%d requests without a valid X-Svc-Signature", bad)
	}
	if !t.Failed() {
		t.Logf("%s: %d deliveries in %d requests (%d arrived more than once), all delivered, in order, %.1f s after the "+
			"last restart; %.1f s in all", dialect, len(rows), requests, repeated, drained.Seconds(), time.Since(start).Seconds())
	}
}

// changingSite serves /m/{i}: a press list that gains a release at each
// change.
type changingSite struct {
	mu      sync.Mutex
	changes map[int]int
	base    string
}

func newChangingSite(t *testing.T) *changingSite {
	s := &changingSite{changes: map[int]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.base = srv.URL
	return s
}

func (s *changingSite) url(i int) string { return fmt.Sprintf("%s/m/%d", s.base, i) }

func (s *changingSite) change(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes[i]++
}

// releases are words, not numbers: the comparison ignores counters.
var releases = []string{"Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo", "Hazel"}

func (s *changingSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var i int
	if _, err := fmt.Sscanf(r.URL.Path, "/m/%d", &i); err != nil {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	n := s.changes[i]
	s.mu.Unlock()
	var items strings.Builder
	for k := n - 1; k >= 0; k-- {
		fmt.Fprintf(&items, `<li><a href="/m/%d/news/%s">Company %d completes the %s project and raises its outlook</a></li>`,
			i, strings.ToLower(releases[k]), i, releases[k])
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Company %d</title></head><body><nav><a href="/">Home</a></nav>
<main><h1>Press releases of company %d</h1><ul>%s
<li><a href="/m/%d/news/agm">Notice of the annual general meeting of company %d</a></li>
<li><a href="/m/%d/news/q2">Company %d reports second-quarter results</a></li>
<li><a href="/m/%d/news/cfo">Company %d appoints a chief financial officer</a></li>
</ul><p>Company %d designs and sells industrial sensors.</p></main><footer>© 2026 company %d</footer></body></html>`,
		i, i, items.String(), i, i, i, i, i, i, i, i)
}

// hookReceiver is the workspace's webhook endpoint. It checks every
// request's X-Svc-Signature itself (hex HMAC-SHA256 of the raw body, as a
// receiver would), numbers arrivals, and answers 200 unless told to hold a
// monitor's next request until the sender goes away, or to gate a
// monitor's requests: each waits, unanswered, until the sender goes away or
// the test lets one be refused (503).
type hookReceiver struct {
	url    string
	secret []byte

	mu       sync.Mutex
	seq      int
	seen     map[string]*receipt // by delivery_id
	hold     map[string]bool     // monitor ids whose next request is held
	held     map[string]string   // monitor id → delivery_id held
	gates    map[string]*gate
	requests int
	badSig   int
}

// receipt is what the receiver knows of one delivery: how often it came,
// and the sequence numbers of its first arrival and of its first 200 (0:
// none yet). Repeats are the duplicates at-least-once allows.
type receipt struct {
	arrivals               int
	firstArrival, firstAck int
}

// gate holds a monitor's requests. Each token of refuse lets one waiting
// (or the next arriving) request be refused; closed is closed when the
// gate is removed.
type gate struct {
	refuse  chan struct{}
	closed  chan struct{}
	waiting int
}

func newHookReceiver(t *testing.T, secret string) *hookReceiver {
	r := &hookReceiver{secret: []byte(secret), seen: map[string]*receipt{}, hold: map[string]bool{},
		held: map[string]string{}, gates: map[string]*gate{}}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	mac := hmac.New(sha256.New, r.secret)
	mac.Write(body)
	sig, _ := hex.DecodeString(req.Header.Get("X-Svc-Signature"))
	var p struct {
		DeliveryID string `json:"delivery_id"`
		MonitorID  string `json:"monitor_id"`
	}
	r.mu.Lock()
	r.requests++
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) || json.Unmarshal(body, &p) != nil || p.DeliveryID == "" {
		r.badSig++
		r.mu.Unlock()
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	r.seq++
	rc := r.seen[p.DeliveryID]
	if rc == nil {
		rc = &receipt{firstArrival: r.seq}
		r.seen[p.DeliveryID] = rc
	}
	rc.arrivals++
	switch {
	case r.hold[p.MonitorID]:
		delete(r.hold, p.MonitorID)
		r.held[p.MonitorID] = p.DeliveryID
		r.mu.Unlock()
		// Until the node dies (its connection closes); the delivery's own
		// 10 s timeout would end it otherwise.
		select {
		case <-req.Context().Done():
		case <-time.After(20 * time.Second):
		}
		return
	case r.gates[p.MonitorID] != nil:
		g := r.gates[p.MonitorID]
		g.waiting++
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			g.waiting--
			r.mu.Unlock()
		}()
		// Until the test lets it be refused, or the gate goes, or the
		// sender does (the node dies, or the delivery's 10 s timeout ends
		// the attempt; its next comes 2 s later).
		select {
		case <-g.refuse:
		case <-g.closed:
		case <-req.Context().Done():
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if rc.firstAck == 0 {
		rc.firstAck = r.seq
	}
	r.mu.Unlock()
	io.WriteString(w, "ok")
}

func (r *hookReceiver) holdNext(monitor string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold[monitor] = true
}

func (r *hookReceiver) holding(monitor string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[monitor]
}

// gate makes the monitor's requests wait (gate).
func (r *hookReceiver) gate(monitor string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gates[monitor] = &gate{refuse: make(chan struct{}, 1), closed: make(chan struct{})}
}

// waiting tells how many of the monitor's requests wait at its gate.
func (r *hookReceiver) waiting(monitor string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g := r.gates[monitor]; g != nil {
		return g.waiting
	}
	return 0
}

// refuseOne lets one of the gated monitor's requests be refused: the one
// waiting, or else the next to arrive.
func (r *hookReceiver) refuseOne(monitor string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case r.gates[monitor].refuse <- struct{}{}:
	default:
	}
}

// ungate removes the monitor's gate: its requests are answered 200 again
// (any still waiting, which no live sender should have, 503).
func (r *hookReceiver) ungate(monitor string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g := r.gates[monitor]; g != nil {
		close(g.closed)
		delete(r.gates, monitor)
	}
}

func (r *hookReceiver) acked(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id] != nil && r.seen[id].firstAck > 0
}

func (r *hookReceiver) arrived(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id] != nil
}

func (r *hookReceiver) get(id string) receipt {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.seen[id]; rc != nil {
		return *rc
	}
	return receipt{}
}

func (r *hookReceiver) ids() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.seen))
	for id := range r.seen {
		out = append(out, id)
	}
	return out
}

func (r *hookReceiver) stats() (requests, repeated, badSig int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rc := range r.seen {
		if rc.arrivals > 1 {
			repeated++
		}
	}
	return r.requests, repeated, r.badSig
}

// crashNode is a running `webacq serve`.
type crashNode struct {
	cmd    *exec.Cmd
	url    string
	log    *syncBuffer
	exited chan struct{}
	// app is the application_name of the node's PostgreSQL sessions, when
	// its URL gave one.
	app string
}

// startCrashNode starts `webacq serve` and waits until it listens.
func startCrashNode(t *testing.T, bin, dbURL string, env []string) *crashNode {
	t.Helper()
	addr, release := porttest.Reserve(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL, "WEBACQ_ADDR="+addr), env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &crashNode{cmd: cmd, url: "http://" + addr, log: &syncBuffer{}, exited: make(chan struct{})}
	go func() { cmd.Wait(); pw.Close(); close(n.exited) }()
	t.Cleanup(n.kill)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		var once sync.Once
		for sc.Scan() {
			n.log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "msg=listening") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
		release()
	case <-n.exited:
		t.Fatalf("serve exited before listening:\n%s", n.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not listen within 30 s:\n%s", n.log.String())
	}
	return n
}

// kill ends the node with SIGKILL, as a crash would.
func (n *crashNode) kill() {
	n.cmd.Process.Kill()
	<-n.exited
}

// crashDB reads the nodes' database.
type crashDB struct {
	*sql.DB
	dialect string
}

func openCrashDB(t *testing.T, dialect, url string) *crashDB {
	t.Helper()
	driver, dsn := "pgx", url
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		driver, dsn = "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return &crashDB{DB: db, dialect: dialect}
}

// deliveryArg is the SQL of a job's delivery_id.
func (db *crashDB) deliveryArg() string {
	if db.dialect == store.SQLite {
		return "json_extract(args, '$.delivery_id')"
	}
	return "args->>'delivery_id'"
}

func (db *crashDB) count(ctx context.Context, t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (db *crashDB) webhookCount(ctx context.Context, t *testing.T, monitor string) int {
	t.Helper()
	return db.count(ctx, t, `SELECT count(*) FROM deliveries WHERE monitor_id = $1 AND kind = 'webhook'`, monitor)
}

func (db *crashDB) runCount(ctx context.Context, t *testing.T, monitor string) int {
	t.Helper()
	return db.count(ctx, t, `SELECT count(*) FROM monitor_runs WHERE monitor_id = $1`, monitor)
}

// refusedDelivery returns the status and attempts of the monitor's
// delivery that was refused.
func (db *crashDB) refusedDelivery(ctx context.Context, t *testing.T, monitor string) (status string, attempts int) {
	t.Helper()
	if err := db.QueryRowContext(ctx, `SELECT status, attempts FROM deliveries d WHERE monitor_id = $1 AND EXISTS
		(SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.status_code = 503)`, monitor).
		Scan(&status, &attempts); err != nil {
		t.Fatal(err)
	}
	return status, attempts
}

func (db *crashDB) refusedAttempts(ctx context.Context, t *testing.T, monitor string) int {
	t.Helper()
	return db.count(ctx, t, `SELECT count(*) FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
		WHERE d.monitor_id = $1 AND a.status_code = 503`, monitor)
}

// killed kills the node and returns a time after which no job can have
// been attempted by it. The process's death is not that time on
// PostgreSQL: a statement it sent just before, such as River's fetch of
// jobs, may still be waiting for the server, which then runs it, commits
// it and stamps the jobs' attempted_at with its own clock after the kill
// (those jobs stay running until River rescues them, like any a dead node
// leaves). So the node's sessions are first waited out, then the server's
// clock read. On SQLite the statements ran inside the process.
func (db *crashDB) killed(ctx context.Context, t *testing.T, n *crashNode) time.Time {
	t.Helper()
	n.kill()
	if db.dialect != store.Postgres {
		return time.Now()
	}
	if n.app == "" {
		t.Fatal("a PostgreSQL node without an application_name")
	}
	eventually(ctx, t, 30*time.Second, "the killed node's sessions gone", func() (bool, string) {
		left := db.count(ctx, t, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, n.app)
		return left == 0, fmt.Sprintf("%d sessions of %s", left, n.app)
	})
	var now time.Time
	if err := db.QueryRowContext(ctx, `SELECT clock_timestamp()`).Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// runningSince returns when each running job started.
func (db *crashDB) runningSince(ctx context.Context, t *testing.T) []time.Time {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT attempted_at FROM river_job WHERE state = 'running'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at time.Time
		if err := rows.Scan(&at); err != nil {
			t.Fatal(err)
		}
		out = append(out, at)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// checkRunning tells whether the monitor's check job is running.
func (db *crashDB) checkRunning(ctx context.Context, t *testing.T, monitor string) bool {
	t.Helper()
	return db.count(ctx, t, `SELECT count(*) FROM river_job WHERE state = 'running'
		AND id = (SELECT job_id FROM monitors WHERE id = $1)`, monitor) > 0
}

// jobReport lists the monitor's check and delivery jobs and every running job.
func (db *crashDB) jobReport(ctx context.Context, t *testing.T, monitor string) string {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT id, kind, CAST(state AS TEXT), attempt, coalesce(`+db.deliveryArg()+`, ''),
		attempted_at, scheduled_at FROM river_job WHERE id = (SELECT job_id FROM monitors WHERE id = $1)
		OR `+db.deliveryArg()+` IN (SELECT id FROM deliveries WHERE monitor_id = $1)
		OR state = 'running' ORDER BY id`, monitor)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id int64
		var kind, state, delivery string
		var attempt int
		var attempted sql.NullTime
		var scheduled time.Time
		if err := rows.Scan(&id, &kind, &state, &attempt, &delivery, &attempted, &scheduled); err != nil {
			return err.Error()
		}
		lines = append(lines, fmt.Sprintf("  job %d %s %s: %s attempt %d, attempted %s, scheduled %s", id, kind, delivery,
			state, attempt, attempted.Time.Format(time.StampMilli), scheduled.Format(time.StampMilli)))
	}
	return strings.Join(lines, "\n")
}

// lastDeliveryState tells where the monitor's newest delivery was when the
// node died: not yet sent, its job running, or already acknowledged.
func (db *crashDB) lastDeliveryState(ctx context.Context, t *testing.T, monitor string, rcv *hookReceiver) string {
	t.Helper()
	var id, status, job string
	err := db.QueryRowContext(ctx, `SELECT d.id, d.status, coalesce((SELECT CAST(state AS TEXT) FROM river_job
		WHERE kind = 'alert_delivery' AND `+db.deliveryArg()+` = d.id), 'none')
		FROM deliveries d WHERE d.monitor_id = $1 AND d.kind = 'webhook' ORDER BY d.created_at DESC LIMIT 1`, monitor).
		Scan(&id, &status, &job)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case rcv.acked(id):
		return "acknowledged (job " + job + ")"
	case rcv.arrived(id):
		return "arriving (job " + job + ")"
	}
	return "unsent (job " + job + ")"
}

type webhookRow struct {
	id, monitor, status string
	created             time.Time
}

func (db *crashDB) webhooks(ctx context.Context, t *testing.T) []webhookRow {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT id, monitor_id, status, created_at FROM deliveries WHERE kind = 'webhook'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []webhookRow
	for rows.Next() {
		var r webhookRow
		if err := rows.Scan(&r.id, &r.monitor, &r.status, &r.created); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// alertsWithoutDelivery counts the paid runs that alert (any outcome but
// unchanged) without exactly one webhook delivery.
func (db *crashDB) alertsWithoutDelivery(ctx context.Context, t *testing.T) int {
	t.Helper()
	return db.count(ctx, t, `SELECT count(*) FROM monitor_runs r WHERE r.outcome <> 'unchanged'
		AND r.error <> 'credits_exhausted'
		AND (SELECT count(*) FROM deliveries d WHERE d.run_id = r.id AND d.kind = 'webhook') <> 1`)
}

// pendingReport lists the deliveries not yet delivered, with their jobs.
func (db *crashDB) pendingReport(ctx context.Context, t *testing.T) string {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT d.id, d.monitor_id, d.status, d.attempts, d.last_status, d.last_error,
		coalesce((SELECT CAST(state AS TEXT) || ' attempt ' || attempt FROM river_job WHERE kind = 'alert_delivery'
		AND `+db.deliveryArg()+` = d.id), 'no job')
		FROM deliveries d WHERE d.kind = 'webhook' AND d.status <> 'delivered' ORDER BY d.created_at`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, monitor, status, lastError, job string
		var attempts, lastStatus int
		if err := rows.Scan(&id, &monitor, &status, &attempts, &lastStatus, &lastError, &job); err != nil {
			return err.Error()
		}
		lines = append(lines, fmt.Sprintf("  %s of %s: %s after %d attempts (last %d %s), job %s", id, monitor, status,
			attempts, lastStatus, lastError, job))
	}
	return strings.Join(lines, "\n")
}

// eventually polls cond until it holds, for at most limit, and ends a
// little before ctx does, so that cond's last state is reported rather than
// the error of its query.
func eventually(ctx context.Context, t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	if end, ok := ctx.Deadline(); ok && end.Add(-2*time.Second).Before(deadline) {
		deadline = end.Add(-2 * time.Second)
		limit = time.Until(deadline).Round(time.Second)
	}
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("%s: not after %s: %s", what, limit, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
