package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestSlowClientsAreCutOff: serve closes a connection whose client
// trickles its request head past WEBACQ_READ_HEADER_TIMEOUT, trickles
// its body past WEBACQ_READ_TIMEOUT, or sits idle between requests past
// WEBACQ_IDLE_TIMEOUT; while such clients hold connections open, other
// requests are answered at once.
func TestSlowClientsAreCutOff(t *testing.T) {
	s := startServer(t, storetest.URL(t, store.SQLite),
		"WEBACQ_READ_HEADER_TIMEOUT=1s", "WEBACQ_READ_TIMEOUT=2s", "WEBACQ_IDLE_TIMEOUT=1s")
	addr := strings.TrimPrefix(s.url, "http://")

	// closedAfter dials, writes head, then writes one piece every 100 ms
	// until the server closes the connection; it returns how long the
	// connection lasted and what the server sent, or fails after 8 s.
	closedAfter := func(t *testing.T, head string, piece string) (time.Duration, string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(c) // until the server closes
			done <- string(b)
		}()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(8 * time.Second)
		for {
			select {
			case got := <-done:
				return time.Since(start), got
			case <-tick.C:
				if piece != "" {
					c.Write([]byte(piece)) // fails once the server has closed: the read ends too
				}
			case <-deadline:
				t.Fatalf("the connection was still open after 8 s")
			}
		}
	}
	auth := "Authorization: Bearer " + s.key + "\r\n"

	t.Run("head trickled", func(t *testing.T) {
		took, got := closedAfter(t, "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n", "X-Slow: 1\r\n")
		if took < 800*time.Millisecond || took > 4*time.Second || strings.HasPrefix(got, "HTTP/1.1 200") {
			t.Fatalf("closed after %s with %q, want about 1 s and no answer", took, got)
		}
	})
	t.Run("body trickled", func(t *testing.T) {
		head := "POST /api/v1/fetch HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth +
			"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"url\":\"http://127.0.0.1/"
		took, got := closedAfter(t, head, "aaaaaaaaaa")
		if took < 1800*time.Millisecond || took > 5*time.Second || strings.HasPrefix(got, "HTTP/1.1 200") {
			t.Fatalf("closed after %s with %q, want about 2 s and no 200", took, got)
		}
	})
	t.Run("idle between requests", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", auth)
		r := bufio.NewReader(c)
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Close {
			t.Fatalf("health: %d (close %t), want 200 on a kept-alive connection", res.StatusCode, res.Close)
		}
		start := time.Now()
		c.SetReadDeadline(time.Now().Add(8 * time.Second))
		n, err := r.Read(make([]byte, 1))
		if took := time.Since(start); n != 0 || err == nil || took < 800*time.Millisecond || took > 4*time.Second {
			t.Fatalf("idle connection: read %d bytes, %v after %s; want it closed after about 1 s", n, err, took)
		}
	})
	t.Run("others are served meanwhile", func(t *testing.T) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer c.Close()
				io.WriteString(c, "GET /api/v1/health HTTP/1.1\r\n")
				<-stop
			}()
		}
		defer func() { close(stop); wg.Wait() }()
		time.Sleep(200 * time.Millisecond)
		start := time.Now()
		if code := s.health(t, s.key); code != 200 {
			t.Fatalf("health beside 20 stalled clients: %d", code)
		}
		if took := time.Since(start); took > 500*time.Millisecond {
			t.Fatalf("health beside 20 stalled clients took %s", took)
		}
	})
}
