package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"webacq/internal/model"
)

// bombBytes is what every streamed bomb below decodes to, unless the
// reader stops first: far more than any cap, never held whole by the
// server, which compresses as the client reads.
const bombBytes = 1 << 30

// streamBomb writes bombBytes of zeros through the encoders of enc (in
// the order they apply) to w until the client hangs up (ctx ends). It
// returns the bytes it got onto the wire.
func streamBomb(ctx context.Context, w io.Writer, enc []string) int64 {
	cw := &countWriter{w: w}
	var out io.Writer = cw
	type flushWriteCloser interface {
		io.WriteCloser
		Flush() error
	}
	var closers []flushWriteCloser
	for i := len(enc) - 1; i >= 0; i-- {
		var wc flushWriteCloser
		switch enc[i] {
		case "gzip":
			wc, _ = gzip.NewWriterLevel(out, gzip.BestCompression)
		case "br":
			wc = brotli.NewWriterLevel(out, brotli.BestSpeed)
		case "deflate":
			wc, _ = zlib.NewWriterLevel(out, zlib.BestCompression)
		case "raw-deflate":
			wc, _ = flate.NewWriter(out, flate.BestCompression)
		}
		closers = append(closers, wc)
		out = wc
	}
	zeros := make([]byte, 256<<10)
	for n := 0; n < bombBytes; n += len(zeros) {
		if _, err := out.Write(zeros); err != nil || ctx.Err() != nil {
			return cw.n.Load()
		}
		// Each layer passes on what it has: the client decodes as the
		// server writes, and hangs up at its cap.
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i].Flush()
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for i := len(closers) - 1; i >= 0; i-- {
		closers[i].Close()
	}
	return cw.n.Load()
}

type countWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// allocated runs f and returns the bytes the process allocated meanwhile
// (server side included: an upper bound of the client's share).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecompressionBombs: a body of every content coding (and gzip over
// gzip, br over gzip) that decodes to a gigabyte from a few kilobytes on
// the wire is read only up to the cap, fails with ErrTooLarge
// (upstream_error), with and without a reservation, and costs the process
// a few megabytes, not the gigabyte.
func TestDecompressionBombs(t *testing.T) {
	const limit = 1 << 20
	var wire atomic.Int64
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		enc := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), ",")
		header := strings.ReplaceAll(strings.Join(enc, ", "), "raw-deflate", "deflate")
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", header)
		wire.Store(streamBomb(r.Context(), w, enc))
	})
	c := New(Config{AllowPrivate: true, MaxBodyBytes: limit})
	for _, enc := range []string{"gzip", "br", "deflate", "raw-deflate", "gzip,gzip", "gzip,br"} {
		for _, reserve := range []bool{false, true} {
			res := newReserver()
			req := Request{URL: srv.URL + "/" + enc}
			if reserve {
				req.Reserve = res.reserve
			}
			var err error
			alloc := allocated(func() { _, err = c.Get(context.Background(), req) })
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%s: err = %v, want ErrTooLarge", enc, err)
			}
			wantCode(t, err, model.CodeUpstreamError)
			if alloc > 128<<20 {
				t.Errorf("%s (reserve %t): the bomb cost %d MB of allocations", enc, reserve, alloc>>20)
			}
			if reserve && (res.calls.Load() != 1 || res.n.Load() != limit || res.released.Load() != 1) {
				t.Errorf("%s: %d reservations of %d bytes, %d released; want one of the cap, released",
					enc, res.calls.Load(), res.n.Load(), res.released.Load())
			}
		}
	}
	c.CloseIdleConnections()
	t.Logf("last bomb: %d bytes on the wire", wire.Load())
}

// rawServer answers every connection with serve, below net/http: for
// answers no http.ResponseWriter writes (headers without end).
func rawServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// Read the request head before answering.
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				serve(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// endlessHeader writes a response head that never ends, as fast as the
// client reads, until the client hangs up.
func endlessHeader(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"); err != nil {
		return
	}
	line := []byte("X-Filler: " + strings.Repeat("a", 4000) + "\r\n")
	for range 1 << 20 { // 4 GB at most
		if _, err := c.Write(line); err != nil {
			return
		}
	}
}

// TestEndlessResponseHeader: a server whose response head never ends is
// cut at the transport's 1 MB header limit: an upstream_error, for a GET,
// a HEAD (Size) and a webhook POST.
func TestEndlessResponseHeader(t *testing.T) {
	base := rawServer(t, endlessHeader)
	c := New(Config{AllowPrivate: true, Timeout: 30 * time.Second})
	start := time.Now()
	_, err := c.Get(context.Background(), Request{URL: base + "/"})
	wantCode(t, err, model.CodeUpstreamError)
	_, err = c.Size(context.Background(), base+"/")
	wantCode(t, err, model.CodeUpstreamError)
	_, err = c.Post(context.Background(), base+"/hook", nil, []byte(`{}`), 30*time.Second)
	wantCode(t, err, model.CodeUpstreamError)
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("three endless headers took %v: read to a timeout, not to the header limit", d)
	}
}

// trickle sends a 200 head, then one byte every 10 ms until the client
// hangs up (or a minute passes).
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for range 6000 {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		if _, err := w.Write([]byte("a")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// TestTrickledBody: a body that comes a byte at a time, never ending and
// never idle long enough for a read timeout, ends at the request's
// timeout with the timeout code.
func TestTrickledBody(t *testing.T) {
	srv, _ := countingServer(t, trickle)
	c := New(Config{AllowPrivate: true})
	start := time.Now()
	_, err := c.Get(context.Background(), Request{URL: srv.URL + "/", Timeout: 500 * time.Millisecond})
	wantCode(t, err, model.CodeTimeout)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the trickled body took %v, want about the 500 ms timeout", d)
	}
}

// TestPostToHostileReceivers: a webhook receiver (a stranger's server)
// that answers a gigabyte, trickles its answer forever, never answers,
// or redirects to the cloud metadata address costs one bounded attempt:
// the answer kept is maxPostAnswer bytes, the attempt ends by its
// timeout, and no redirect is followed.
func TestPostToHostileReceivers(t *testing.T) {
	var sent atomic.Int64
	release := make(chan struct{})
	defer close(release)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/huge":
			sent.Store(streamBomb(r.Context(), w, nil))
		case "/trickle":
			trickle(w, r)
		case "/silent":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		}
	})
	c := New(Config{AllowPrivate: true})
	body := []byte(`{"event":"test"}`)

	var res *PostResult
	var err error
	alloc := allocated(func() { res, err = c.Post(context.Background(), srv.URL+"/huge", nil, body, 10*time.Second) })
	if err != nil || res.StatusCode != 200 || len(res.Body) != maxPostAnswer {
		t.Fatalf("huge answer: %v %+v, want a 200 with %d bytes kept", err, res, maxPostAnswer)
	}
	if alloc > 64<<20 {
		t.Errorf("a gigabyte answer cost %d MB of allocations", alloc>>20)
	}

	start := time.Now()
	res, err = c.Post(context.Background(), srv.URL+"/trickle", nil, body, 500*time.Millisecond)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the trickling receiver held the attempt %v, want about its 500 ms timeout", d)
	}
	if err == nil && len(res.Body) > maxPostAnswer {
		t.Errorf("trickled answer kept %d bytes", len(res.Body))
	}

	start = time.Now()
	_, err = c.Post(context.Background(), srv.URL+"/silent", nil, body, 500*time.Millisecond)
	wantCode(t, err, model.CodeTimeout)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the silent receiver held the attempt %v", d)
	}

	res, err = c.Post(context.Background(), srv.URL+"/metadata", nil, body, 10*time.Second)
	if err != nil || res.StatusCode != http.StatusFound {
		t.Errorf("redirect to the metadata address: %v %+v, want the 302 itself, not followed", err, res)
	}
	c.CloseIdleConnections()
}

// TestCharsetDecodingIsLinear: decoding a body of a declared charset to
// UTF-8 writes at most three bytes per byte (a byte that decodes to
// nothing valid is one U+FFFD), whatever the bytes: no charset's escapes
// or shifts multiply it.
func TestCharsetDecodingIsLinear(t *testing.T) {
	const n = 1 << 20
	var every []byte // every byte value, over and over
	for len(every) < n {
		every = append(every, byte(len(every)))
	}
	bodies := map[string][]byte{
		"every byte": every,
		"high bytes": []byte(strings.Repeat("\xff\xfe\x80\x81", n/4)),
		"escapes":    []byte(strings.Repeat("\x1b$B\x1b(B\x1b$)C\x0e\x0f", n/16)),
		"shifts":     []byte(strings.Repeat("\x8e\x8f\xa1", n/3)),
	}
	for _, cs := range []string{"windows-1252", "utf-16le", "utf-16be", "shift_jis", "euc-jp", "iso-2022-jp",
		"gb18030", "big5", "euc-kr", "koi8-r", "x-user-defined", "utf-8"} {
		for name, body := range bodies {
			for _, mt := range []string{"text/html", "application/xml", "text/plain"} {
				out, _ := ToUTF8(body, mt, mt+"; charset="+cs)
				if len(out) > 3*len(body) {
					t.Errorf("%s %s as %s: %d bytes out of %d", name, mt, cs, len(out), len(body))
				}
			}
		}
	}
}
