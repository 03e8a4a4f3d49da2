package main_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// A node killed in the middle of a billed call keeps no credits: its
// reservation expires and the next node to start refunds it.
func TestCrashMidCallLosesNoCredits(t *testing.T) {
	db := storetest.URL(t, store.SQLite)
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
	}))
	defer site.Close()
	defer close(release)
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_RESERVATION_TTL=1s"}
	s := startServer(t, db, env...)

	go func() {
		req, _ := http.NewRequest("POST", s.url+"/api/v1/fetch", strings.NewReader(`{"url":"`+site.URL+`/slow","tier":"http"}`))
		req.Header.Set("Authorization", "Bearer "+s.key)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the fetch never reached the site")
	}
	balance := func() string {
		out := mustRun(t, db, "workspace", "list")
		return regexp.MustCompile(`default\s+(\d+)`).FindStringSubmatch(out)[1]
	}
	if b := balance(); b != "9999" {
		t.Fatalf("balance during the call %s, want 9999 (1 credit held)", b)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()

	time.Sleep(1200 * time.Millisecond) // past the reservation's TTL
	startServer(t, db, env...)          // any node refunds expired holds as it starts
	deadline := time.Now().Add(10 * time.Second)
	for balance() != "10000" {
		if time.Now().After(deadline) {
			t.Fatalf("balance %s after restart, want 10000: the held credit was lost", balance())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
