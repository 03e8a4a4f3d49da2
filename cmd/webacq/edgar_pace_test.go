package main_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// Two nodes check 25 edgar_8k monitors at once against a local EDGAR: the
// requests that reach it, from both nodes together, are at most about 10 in
// any second (SEC fair access), because `serve` and `worker` wire the EDGAR
// client's wait to slots kept in the shared database. Without that wiring,
// or with a pace per node, the 25 first checks send their requests within
// a few hundred milliseconds and the test fails.
func TestEdgarPaceIsSharedByAllNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("two nodes and 25 EDGAR checks: about 15 s")
	}
	const monitors = 25
	var mu sync.Mutex
	var times []time.Time
	// EDGAR answers no request until every monitor is registered: a check
	// holds its worker until then, so the first node's 16 workers are all
	// taken and the second node takes the rest, however slowly a loaded
	// machine registers the monitors. (Answering at once, the first node
	// kept up with a slow registration and took every check.) The pace is
	// measured as the requests arrive, gate or not.
	gate := make(chan struct{})
	var openGate sync.Once
	defer openGate.Do(func() { close(gate) })
	sec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(60 * time.Second):
		}
		if !strings.HasPrefix(r.URL.Path, "/submissions/CIK") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"cik":"1234567","name":"ACME CORP","filings":{"recent":{"accessionNumber":["0001234567-26-000031"],`+
			`"filingDate":["2026-11-20"],"acceptanceDateTime":["2026-11-20T16:30:00.000Z"],"form":["8-K"],"items":["2.02"],`+
			`"primaryDocument":["acme-8k.htm"],"primaryDocDescription":["8-K"]},"files":[]}}`)
	}))
	defer sec.Close()

	dbURL := storetest.URL(t, store.Postgres)
	nodeURL := dbURL + "&pool_max_conns=12"
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	mustRun(t, nodeURL, "workspace", "create", "pace", "--credits", "1000", "--monitoring")
	key := strings.TrimSpace(mustRun(t, nodeURL, "key", "create", "--workspace", "pace", "--name", "pace"))
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0", "WEBACQ_JOB_WORKERS=16",
		"WEBACQ_SEC_USER_AGENT=webacq tests ops@example.com", "WEBACQ_EDGAR_DATA_URL=" + sec.URL, "WEBACQ_EDGAR_WWW_URL=" + sec.URL}
	api := startServer(t, nodeURL, env...)
	startWorker(t, nodeURL, env...)

	// Registered all at once, the monitors' first checks are due together.
	parallelDo(t, monitors, func(i int) error {
		body := map[string]any{"url": fmt.Sprintf("https://ir.example.com/%d", i), "channels": []string{"edgar_8k"},
			"company": map[string]any{"cik": "1234567"}}
		var out map[string]any
		return apiCall(ctx, api.url, key, "POST", "/api/v1/monitor/register", body, &out)
	})
	openGate.Do(func() { close(gate) })
	waitCount(ctx, t, db, `SELECT count(*) FROM monitor_runs WHERE channel = 'edgar_8k'`, monitors, 60*time.Second,
		"the edgar_8k runs")

	var nodes int
	if err := db.QueryRowContext(ctx, `SELECT count(DISTINCT attempted_by[1]) FROM river_job
		WHERE kind = 'monitor_check'`).Scan(&nodes); err != nil {
		t.Fatal(err)
	}
	var outcomes string
	if err := db.QueryRowContext(ctx, `SELECT string_agg(DISTINCT outcome || ' ' || coalesce(error, ''), '; ')
		FROM monitor_runs`).Scan(&outcomes); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	// The most requests in any one second.
	most := 0
	for i := range times {
		j := sort.Search(len(times), func(j int) bool { return times[j].Sub(times[i]) >= time.Second })
		most = max(most, j-i)
	}
	t.Logf("%d EDGAR requests in %v from %d nodes, at most %d in one second; runs: %s", len(times),
		times[len(times)-1].Sub(times[0]).Round(time.Millisecond), nodes, most, outcomes)
	if len(times) < monitors {
		t.Fatalf("%d EDGAR requests for %d monitors", len(times), monitors)
	}
	if outcomes != "anchored " {
		t.Errorf("runs: %s, want every one anchored", outcomes)
	}
	// Slots are 100 ms apart; a request may reach the server a little after
	// its slot, so two may land closer than that: 12, not 10, is the bound.
	if most > 12 {
		t.Errorf("%d EDGAR requests in one second, want at most about 10 from all nodes together", most)
	}
	// Each node works 16 checks at once, and the 25 wait for slots: the
	// second node takes the rest.
	if nodes < 2 {
		t.Errorf("only %d node took checks: the test shows no pace shared between nodes", nodes)
	}
}
