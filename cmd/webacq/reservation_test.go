package main_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// A call that outlives WEBACQ_RESERVATION_TTL on a live node keeps its
// hold, even from a node that starts meanwhile and expires holds: the one
// credit it holds cannot be spent by another call, and it is billed when it
// ends (finding 6 of issue 8: a short TTL made a crawl free).
func TestCallOutlivingTheTTLIsNotFree(t *testing.T) {
	db := storetest.URL(t, store.SQLite)
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case arrived <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>t</title></head><body><p>A page with a few words on it.</p></body></html>")
	}))
	defer site.Close()
	const ttl = time.Second
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_RESERVATION_TTL=" + ttl.String()}
	a := startServer(t, db, append(env, "WEBACQ_BOOTSTRAP_CREDITS=1")...)

	fetch := func(s *server, path string) int {
		req, _ := http.NewRequest("POST", s.url+"/api/v1/fetch", strings.NewReader(`{"url":"`+site.URL+path+`","tier":"http"}`))
		req.Header.Set("Authorization", "Bearer "+a.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	long := make(chan int, 1)
	go func() { long <- fetch(a, "/slow") }()
	var once sync.Once
	finish := func() { once.Do(func() { close(release) }) }
	defer finish()
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the fetch never reached the site")
	}
	balance := func() string {
		out := mustRun(t, db, "workspace", "list")
		return regexp.MustCompile(`default\s+(\d+)`).FindStringSubmatch(out)[1]
	}
	// Past the TTL, a second node starts; it expires holds as it starts and
	// then every quarter of the TTL.
	time.Sleep(ttl + ttl/2)
	b := startServer(t, db, env...)
	for end := time.Now().Add(2 * ttl); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if got := balance(); got != "0" {
			t.Fatalf("balance %s while the long call holds the only credit, want 0", got)
		}
		if code := fetch(b, "/fast"); code != http.StatusPaymentRequired {
			t.Fatalf("another call while the only credit is held: status %d, want 402", code)
		}
	}
	finish()
	if code := <-long; code != http.StatusOK {
		t.Fatalf("the long call answered %d, want 200", code)
	}
	if got := balance(); got != "0" {
		t.Fatalf("balance after the long call %s, want 0: it was not billed", got)
	}
}
