package fetch

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"webacq/internal/model"
)

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func brotlied(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	bw := brotli.NewWriter(&buf)
	if _, err := bw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestContentEncodingLayers: one or two codings decode, more are refused
// before any decoder is built, however long the header.
func TestContentEncodingLayers(t *testing.T) {
	const text = "<html><body>layered body</body></html>"
	many := func(tok string) string { return strings.TrimSuffix(strings.Repeat(tok+", ", 20000), ", ") }
	type page struct {
		encoding string
		body     []byte
	}
	pages := map[string]page{
		"/gzip-gzip":     {"gzip, gzip", gzipped(t, gzipped(t, []byte(text)))},
		"/gzip-br":       {"gzip, br", brotlied(t, gzipped(t, []byte(text)))},
		"/identity":      {"identity, gzip, identity, identity", gzipped(t, []byte(text))},
		"/three-gzip":    {"gzip, gzip, gzip", gzipped(t, gzipped(t, gzipped(t, []byte(text))))},
		"/many-gzip":     {many("gzip"), gzipped(t, gzipped(t, gzipped(t, []byte(text))))},
		"/many-deflate":  {many("deflate"), []byte("not compressed")},
		"/many-br":       {many("br"), []byte("not compressed")},
		"/many-x-gzip":   {"x-gzip," + many("GZIP"), []byte("not compressed")},
		"/three-unknown": {"gzip, br, zstd", []byte("not compressed")},
	}
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		p := pages[r.URL.Path]
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", p.encoding)
		w.Write(p.body)
	})
	c := New(Config{AllowPrivate: true})
	for path := range pages {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			resp, err := c.Get(context.Background(), Request{URL: srv.URL + path})
			if strings.HasPrefix(path, "/gzip-") || path == "/identity" {
				if err != nil {
					t.Fatalf("err = %v, want the decoded body", err)
				}
				if string(resp.Body) != text {
					t.Fatalf("body = %q, want %q", resp.Body, text)
				}
				return
			}
			wantCode(t, err, model.CodeUpstreamError)
			if msg := model.ErrorMessage(err); !strings.Contains(msg, "more than 2 content encodings") {
				t.Fatalf("message = %q, want it to say there are too many content encodings", msg)
			}
		})
	}
}

// TestDecodeContentRefusesLayersCheaply: 20,000 codings cost no decoders.
// Building them cost 780 MB (br) and 897 MB (deflate) before the limit.
func TestDecodeContentRefusesLayersCheaply(t *testing.T) {
	for _, tok := range []string{"gzip", "deflate", "br"} {
		header := strings.TrimSuffix(strings.Repeat(tok+", ", 20000), ", ")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, release, err := decodeContent(strings.NewReader("not compressed"), header)
		runtime.ReadMemStats(&after)
		release()
		if err == nil || r != nil {
			t.Fatalf("%s: decodeContent accepted 20,000 codings", tok)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
			t.Fatalf("%s: refusing 20,000 codings allocated %d MB, want under 32 MB", tok, got>>20)
		}
	}
}

// countCodings counts the codings of a header the plain way, for the fuzz
// target to check decodeContent against.
func countCodings(header string) int {
	n := 0
	for _, c := range strings.Split(header, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
			n++
		}
	}
	return n
}

// FuzzDecodeContent: any Content-Encoding header and body; never panics,
// refuses more than two codings and unknown ones with upstream_error, and
// a capped read of what it accepts ends.
func FuzzDecodeContent(f *testing.F) {
	const text = "<p>fuzzed body</p>"
	var zl bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write([]byte(text))
	zw.Close()
	gz := gzipped(f, []byte(text))
	for _, seed := range []struct {
		header string
		body   []byte
	}{
		{"", []byte(text)}, {"gzip", gz}, {"x-gzip", gz}, {"br", brotlied(f, []byte(text))},
		{"deflate", zl.Bytes()}, {"deflate", []byte(text)}, {"gzip, gzip", gzipped(f, gz)},
		{"gzip, br", brotlied(f, gz)}, {"gzip, gzip, gzip", gzipped(f, gzipped(f, gz))},
		{"identity, ,GZIP", gz}, {"zstd", []byte(text)}, {"gzip", gz[:len(gz)/2]}, {"br, br, br, br", nil},
	} {
		f.Add(seed.header, seed.body)
	}
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		r, release, err := decodeContent(bytes.NewReader(body), header)
		defer release()
		n := countCodings(header)
		if err != nil {
			var me *model.Error
			if !errors.As(err, &me) || me.Code != model.CodeUpstreamError {
				t.Fatalf("header %q: err = %v, want an upstream_error", header, err)
			}
			return
		}
		if n > maxCodings {
			t.Fatalf("header %q: %d codings accepted, want at most %d", header, n, maxCodings)
		}
		// The capped read is how Client.get reads: it must end (a bomb is
		// cut at the cap), and a body without codings passes unchanged.
		out, _ := io.ReadAll(io.LimitReader(r, limit+1))
		if n == 0 && !bytes.Equal(out, body[:min(len(body), limit+1)]) {
			t.Fatalf("header %q: identity body changed", header)
		}
	})
}
