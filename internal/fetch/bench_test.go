package fetch

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// page100KB is a 100 KB HTML page with non-ASCII text, so charset detection
// and UTF-8 validation do real work.
var page100KB = func() []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>bench</title></head><body>")
	for b.Len() < 100<<10 {
		b.WriteString("<p>Lorem ipsum dolor sit amet, café naïve résumé — 日本語 text.</p>\n")
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}()

func reportPercentiles(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	if len(d) == 0 {
		return
	}
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkGet100KB measures the HTTP tier end to end on a local 100 KB page:
// guarded dial (reused keep-alive), request, body read, cap, media type and
// charset decoding. Compare with BenchmarkBaseline100KB for the overhead.
func BenchmarkGet100KB(b *testing.B) {
	srv, _ := countingServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(page100KB)
	})
	c := New(Config{AllowPrivate: true})
	ctx := context.Background()
	durs := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(page100KB)))
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		resp, err := c.Get(ctx, Request{URL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
		if len(resp.Body) != len(page100KB) {
			b.Fatalf("body %d bytes", len(resp.Body))
		}
	}
	reportPercentiles(b, durs)
}

// BenchmarkBaseline100KB is a bare net/http GET of the same page: the server
// and loopback cost that BenchmarkGet100KB's figures include.
func BenchmarkBaseline100KB(b *testing.B) {
	srv, _ := countingServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(page100KB)
	})
	client := &http.Client{}
	durs := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(page100KB)))
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		resp, err := client.Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		durs = append(durs, time.Since(start))
	}
	reportPercentiles(b, durs)
}
