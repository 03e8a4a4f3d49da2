package main_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// SIGTERM waits for the requests in flight and shutdown writes everything
// queued (README, Configuration and Billing): a fetch whose page is still
// loading when the signal arrives is answered in full, and after the
// process exits the database holds its usage row with credits and a row
// for each of the free calls made just before the signal (written through
// the group commit, so queued at that moment).
func TestSIGTERMFinishesRequestsInFlight(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-release
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>Slow page</title></head><body><h1>Slow page</h1><p>It came after the signal.</p></body></html>")
	}))
	defer site.Close()
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })

	db := storetest.URL(t, store.SQLite)
	s := startServer(t, db, "WEBACQ_ALLOW_PRIVATE=1")
	type answer struct {
		status int
		body   string
		err    error
	}
	fetched := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.url+"/api/v1/fetch", strings.NewReader(`{"url":"`+site.URL+`/slow","tier":"http"}`))
		req.Header.Set("Authorization", "Bearer "+s.key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fetched <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fetched <- answer{status: res.StatusCode, body: string(b)}
	}()
	<-entered
	const free = 20
	for i := range free {
		if code := s.health(t, s.key); code != 200 {
			t.Fatalf("health %d: %d", i, code)
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The server stops listening but waits for the fetch.
	time.Sleep(300 * time.Millisecond)
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("serve exited (%v) with a request in flight", err)
	default:
	}
	releaseOnce.Do(func() { close(release) })
	a := <-fetched
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, "It came after the signal.") {
		t.Fatalf("the fetch in flight at SIGTERM: %d %v %.300s", a.status, a.err, a.body)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after its last request")
	}

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wss, err := st.Workspaces(context.Background())
	if err != nil || len(wss) != 1 {
		t.Fatalf("workspaces: %v %v", wss, err)
	}
	rows, err := st.Usage(context.Background(), wss[0].ID, model.LogFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	health, fetches := 0, 0
	for _, u := range rows {
		switch u.Endpoint {
		case "/api/v1/health":
			health++
		case "/api/v1/fetch":
			if u.Credits > 0 && u.Status == 200 {
				fetches++
			}
		}
	}
	if health != free || fetches != 1 {
		t.Fatalf("after shutdown the usage log holds %d health rows (want %d) and %d billed fetches (want 1)", health, free, fetches)
	}
}
