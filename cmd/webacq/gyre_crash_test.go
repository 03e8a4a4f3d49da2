package main_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// An asynchronous crawl of a slow site runs on a worker that is killed
// mid-crawl, on PostgreSQL; a worker started afterwards resumes it from the
// pages saved and finishes it. Every page of the result is distinct and
// billed once, the credits drawn equal the credits of the usage rows, and
// the pages saved before the kill are not fetched again.
func TestGyreJobWorkerKilledMidCrawl(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("kills a worker in the middle of a crawl: about 30 s")
	}
	const pages = 24
	const credits = 100
	dbURL := storetest.URL(t, store.Postgres)
	nodeURL := dbURL + "&pool_max_conns=8"
	site, hits := slowCrawlSite(t, pages)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	mustRun(t, nodeURL, "workspace", "create", "crash", "--credits", fmt.Sprint(credits))
	mustRun(t, nodeURL, "workspace", "update", "crash", "--rpm", "1000000")
	key := strings.TrimSpace(mustRun(t, nodeURL, "key", "create", "--workspace", "crash", "--name", "crash"))
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0"}
	api := startServer(t, nodeURL, append(env, "WEBACQ_JOB_WORKERS=0")...)
	// One page at a time on the site: the crawl takes several seconds.
	workerEnv := append(env, "WEBACQ_JOB_RESCUE_AFTER=10s", "WEBACQ_JOB_WORKERS=2", "WEBACQ_CRAWL_PER_HOST=1")
	victim := startWorker(t, nodeURL, workerEnv...)

	var q struct {
		JobID  string `json:"job_id"`
		Status string `json:"status"`
	}
	body := map[string]any{"url": site.URL + "/p0", "maxPages": pages, "maxDepth": 100, "tier": "http", "async": true, "ignoreSitemap": true,
		// River rescues a job whose worker died once its timeout and the
		// rescue delay have passed: a short crawl timeout keeps that short.
		"timeout": 15000}
	if err := apiCall(ctx, api.url, key, "POST", "/api/v1/gyre", body, &q); err != nil || q.Status != "queued" {
		t.Fatalf("queue: %v %+v", err, q)
	}
	waitCount(ctx, t, db, `SELECT count(*) FROM gyre_job_pages`, 5, 30*time.Second, "five pages saved")
	victim.kill()
	// The victim is dead: the pages saved now are the pages the resumed
	// crawl must not fetch again.
	savedPaths := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT url_key FROM gyre_job_pages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(key)
		if err != nil {
			t.Fatalf("saved page key %q: %v", key, err)
		}
		savedPaths[u.Path] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	saved := len(savedPaths)
	if saved >= pages {
		t.Fatalf("the crawl ended before the kill (%d pages)", saved)
	}
	t.Logf("killed the worker with %d of %d pages saved", saved, pages)
	startWorker(t, nodeURL, workerEnv...)

	var st struct {
		Status      string `json:"status"`
		TotalPages  int    `json:"totalPages"`
		CreditsUsed int64  `json:"creditsUsed"`
		Pages       []struct {
			URL string `json:"url"`
		} `json:"pages"`
		Next *string `json:"next"`
	}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if err := apiCall(ctx, api.url, key, "GET", "/api/v1/gyre/"+q.JobID, nil, &st); err != nil {
			t.Fatal(err)
		}
		if st.Status != "queued" && st.Status != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s with %d pages", st.Status, st.TotalPages)
		}
	}
	if st.Status != "completed" || st.TotalPages != pages || st.CreditsUsed != pages {
		t.Fatalf("job ended %s with %d pages, %d credits; want completed, %d and %d", st.Status, st.TotalPages, st.CreditsUsed, pages, pages)
	}
	// Every page once, read 10 at a time.
	seen := map[string]bool{}
	next := ""
	for range pages {
		path := "/api/v1/gyre/" + q.JobID + "?limit=10"
		if next != "" {
			path += "&next=" + next
		}
		if err := apiCall(ctx, api.url, key, "GET", path, nil, &st); err != nil {
			t.Fatal(err)
		}
		for _, p := range st.Pages {
			if seen[p.URL] {
				t.Errorf("page %s returned twice", p.URL)
			}
			seen[p.URL] = true
		}
		if st.Next == nil {
			break
		}
		next = *st.Next
	}
	if len(seen) != pages {
		t.Errorf("%d distinct pages, want %d", len(seen), pages)
	}
	// The job ran twice: on the victim, then resumed elsewhere.
	var attempts int
	if err := db.QueryRowContext(ctx, `SELECT attempt FROM river_job WHERE kind = 'gyre'`).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	if attempts < 2 {
		t.Errorf("the crawl job ran %d times, want a second run after the kill", attempts)
	}
	// Each page billed once; the balance and the usage rows agree.
	var balance, usageCredits, holds int64
	if err := db.QueryRowContext(ctx, `SELECT
		(SELECT credits FROM workspaces WHERE name = 'crash'),
		(SELECT coalesce(sum(credits), 0) FROM usage_log),
		(SELECT count(*) FROM reservations)`).Scan(&balance, &usageCredits, &holds); err != nil {
		t.Fatal(err)
	}
	if balance != credits-pages || usageCredits != pages || holds != 0 {
		t.Errorf("balance %d, usage credits %d, holds %d; want %d, %d, 0", balance, usageCredits, holds, credits-pages, pages)
	}
	hits.mu.Lock()
	defer hits.mu.Unlock()
	refetched := 0
	for path, n := range hits.n {
		if n < 2 {
			continue
		}
		refetched++
		// The resumed crawl starts from the saved pages: only pages that
		// were fetched but not yet saved when the worker died (in flight,
		// or waiting for their save behind a slow database) are fetched
		// again.
		if savedPaths[path] {
			t.Errorf("%s was saved before the kill and fetched again: the crawl started over instead of resuming", path)
		}
	}
	t.Logf("%d pages fetched again after the kill", refetched)
}

type pageHits struct {
	mu sync.Mutex
	n  map[string]int
}

// slowCrawlSite serves n pages /p{i}, each linking to the next three,
// each after 150 ms.
func slowCrawlSite(t *testing.T, n int) (*httptest.Server, *pageHits) {
	t.Helper()
	hits := &pageHits{n: map[string]int{}}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		select {
		case <-time.After(150 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		hits.mu.Lock()
		hits.n[r.URL.Path]++
		hits.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Page %d</title></head><body><main><h1>Chapter %d</h1>
<p>Chapter %d of the manual explains one part of the machine in enough words to be kept as content by the crawl.</p>
<p><a href="/p%d">next</a> <a href="/p%d">skip</a> <a href="/p%d">further</a></p></main></body></html>`,
			i, i, i, (i+1)%n, (i+2)%n, (i+3)%n)
	}))
	t.Cleanup(s.Close)
	return s, hits
}
