package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// restCall sends one REST call with the key and decodes the envelope.
func restCall(t *testing.T, s *server, key, method, path, body string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env map[string]any
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		t.Fatalf("%s %s: not JSON: %v", method, path, err)
	}
	return res.StatusCode, env
}

// TestMonitorOverTheBinary watches a local investor-relations page through
// the real binary: register, anchor, a footer change that must not alert,
// a new press release that must, and the run's diff over REST.
func TestMonitorOverTheBinary(t *testing.T) {
	t.Parallel() // see TestMain
	var mu sync.Mutex
	page := ""
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer site.Close()
	set := func(items []string, footer string) {
		mu.Lock()
		defer mu.Unlock()
		page = `<html><head><title>Acme IR</title></head><body><nav><a href="/">Home</a></nav><main><h1>News</h1><ul>` +
			strings.Join(items, "") + `</ul></main><footer>` + footer + `</footer></body></html>`
	}
	items := []string{`<li><a href="/q1">Acme reports first quarter results</a></li>`,
		`<li><a href="/q2">Acme reports second quarter results</a></li>`, `<li><a href="/cfo">Acme names a CFO</a></li>`}
	set(items, "© 2026 Acme · 10 visitors")

	s := startServer(t, storetest.URL(t, store.SQLite), "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none",
		"WEBACQ_JOB_POLL_INTERVAL=20ms", "WEBACQ_CHECK_NOW_INTERVAL=0s")
	code, env := restCall(t, s, s.key, "POST", "/api/v1/monitor/register",
		`{"url":"`+site.URL+`/ir","label":"Acme","discovery_keywords":["results"],"check_interval_hours":24}`)
	if code != 200 {
		t.Fatalf("register: %d %v", code, env)
	}
	id := env["data"].(map[string]any)["monitor_id"].(string)

	runs := func(n int) []any {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, env := restCall(t, s, s.key, "GET", "/api/v1/monitor/"+id+"/runs", "")
			rs := env["data"].(map[string]any)["runs"].([]any)
			if len(rs) >= n {
				return rs
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d runs after 30 s, want %d:\n%s", len(rs), n, s.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	outcome := func(r any) string { return r.(map[string]any)["outcome"].(string) }
	check := func(n int) map[string]any {
		t.Helper()
		if code, env := restCall(t, s, s.key, "POST", "/api/v1/monitor/"+id+"/check", ""); code != 200 {
			t.Fatalf("check: %d %v", code, env)
		}
		return runs(n)[0].(map[string]any)
	}

	if o := outcome(runs(1)[0]); o != "anchored" {
		t.Fatalf("first run: %s", o)
	}
	set(items, "© 2026 Acme · 11 visitors")
	if r := check(2); r["outcome"] != "unchanged" {
		t.Errorf("footer change: %v", r)
	}
	set(append([]string{`<li><a href="/q3">Acme reports third quarter results</a> <a href="/q3.pdf">PDF</a></li>`}, items...),
		"© 2026 Acme · 12 visitors")
	r := check(3)
	if r["outcome"] != "changed" || !strings.Contains(fmt.Sprint(r["change_signal"]), "third quarter") ||
		!strings.Contains(fmt.Sprint(r["pdf_links"]), "/q3.pdf") {
		t.Fatalf("new release: %v", r)
	}
	_, env = restCall(t, s, s.key, "GET", "/api/v1/monitor/"+id+"/runs/"+r["run_id"].(string), "")
	one := env["data"].(map[string]any)
	if diff, _ := one["diff"].(string); !strings.Contains(diff, "+") || !strings.Contains(diff, "third quarter") {
		t.Errorf("run diff = %q", one["diff"])
	}
	_, env = restCall(t, s, s.key, "GET", "/api/v1/monitor/"+id, "")
	st := env["data"].(map[string]any)
	if st["last_outcome"] != "changed" || st["anchor_set"] != true || st["last_changed"] == nil || st["status"] != "active" {
		t.Errorf("status: %v", st)
	}
	// The change is searchable in the workspace's index (written just after
	// the run's commit).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, env = restCall(t, s, s.key, "POST", "/api/v1/search", `{"query":"third quarter results"}`)
		if strings.Contains(fmt.Sprint(env["data"]), site.URL+"/ir") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("search does not find the changed page: %v", env)
			break
		}
	}
	// Runs are in the usage log, billed one credit each.
	_, env = restCall(t, s, s.key, "GET", "/api/v1/usage?endpoint=/api/v1/monitor/run", "")
	if rows := env["data"].(map[string]any)["usage"].([]any); len(rows) != 3 {
		t.Errorf("usage rows of runs = %d, want 3", len(rows))
	}
}
