package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// reserver records the reservations a Get asks for.
type reserver struct {
	calls    atomic.Int32
	n        atomic.Int64
	released atomic.Int32
	taken    chan struct{} // closed at the first reservation
	err      error
}

func newReserver() *reserver { return &reserver{taken: make(chan struct{})} }

func (r *reserver) reserve(_ context.Context, n int64) (func(), error) {
	if r.calls.Add(1) == 1 {
		close(r.taken)
	}
	r.n.Store(n)
	if r.err != nil {
		return nil, r.err
	}
	return func() { r.released.Add(1) }, nil
}

// A body over FreeReadBytes takes its reservation before it is read: by
// its declared length, else by the cap once the first megabyte is in; a
// small body takes none. The server here sends the rest of the body only
// once the reservation is taken, so a Get that read first would hang.
func TestReserveBeforeTheBodyIsRead(t *testing.T) {
	big := bytes.Repeat([]byte("<p>x</p>"), 3<<20/8)
	var res *reserver
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		body := big
		switch r.URL.Path {
		case "/small":
			w.Write(big[:10<<10])
			return
		case "/declared":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		half := FreeReadBytes + 4096
		w.Write(body[:half])
		w.(http.Flusher).Flush()
		select {
		case <-res.taken:
		case <-time.After(10 * time.Second):
			return // the client read on without a reservation: it gets a short body
		}
		w.Write(body[half:])
	}))
	defer srv.Close()
	c := New(Config{AllowPrivate: true})

	for path, want := range map[string]int64{"/declared": int64(len(big)), "/chunked": DefaultMaxBodyBytes} {
		res = newReserver()
		resp, err := c.Get(context.Background(), Request{URL: srv.URL + path, Reserve: res.reserve})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(resp.Body) != len(big) {
			t.Errorf("%s: body of %d bytes, want %d", path, len(resp.Body), len(big))
		}
		if res.calls.Load() != 1 || res.n.Load() != want || res.released.Load() != 1 {
			t.Errorf("%s: %d reservations of %d bytes, %d released; want one of %d, released", path,
				res.calls.Load(), res.n.Load(), res.released.Load(), want)
		}
	}

	res = newReserver()
	if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/small", Reserve: res.reserve}); err != nil {
		t.Fatal(err)
	}
	if res.calls.Load() != 0 {
		t.Errorf("a 10 KB page took %d reservations, want none", res.calls.Load())
	}

	// A refused reservation fails the Get with its own error.
	res = newReserver()
	res.err = errors.New("budget full")
	if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/declared", Reserve: res.reserve}); !errors.Is(err, res.err) {
		t.Errorf("refused reservation: %v, want its error", err)
	}
}

// MaxBytes lowers the cap for one request.
func TestMaxBytesPerRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 64<<10))
	}))
	defer srv.Close()
	c := New(Config{AllowPrivate: true})
	if _, err := c.Get(context.Background(), Request{URL: srv.URL, MaxBytes: 32 << 10}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("64 KB body under a 32 KB MaxBytes: %v, want ErrTooLarge", err)
	}
	if _, err := c.Get(context.Background(), Request{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
}
