package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"golang.org/x/text/encoding/japanese"

	"webacq/internal/model"
	"webacq/internal/porttest"
)

// countingServer starts a loopback server that counts the requests it sees.
func countingServer(t testing.TB, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if h != nil {
			h(w, r)
			return
		}
		fmt.Fprint(w, "hello")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want code %q", code)
	}
	if got := model.ErrorCode(err); got != code {
		t.Fatalf("code = %q, want %q (err: %v)", got, code, err)
	}
}

func serverPort(t testing.TB, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func serverAddr(t testing.TB, srv *httptest.Server) netip.AddrPort {
	t.Helper()
	return netip.MustParseAddrPort(srv.Listener.Addr().String())
}

// hostsLoopbackNames returns the names in /etc/hosts that map to 127.0.0.0/8.
func hostsLoopbackNames() []string {
	f, err := os.Open("/etc/hosts")
	if err != nil {
		return nil
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.SplitN(sc.Text(), "#", 2)[0])
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "127.") {
			continue
		}
		names = append(names, fields[1:]...)
	}
	return names
}

func TestGuardRefusesPrivateAddresses(t *testing.T) {
	srv, hits := countingServer(t, nil)
	port := serverPort(t, srv)
	c := New(Config{Timeout: 5 * time.Second})

	urls := []string{
		"http://127.0.0.1:" + port + "/",
		"http://127.0.0.2:" + port + "/",
		"http://localhost:" + port + "/",
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://[::ffff:7f00:1]:" + port + "/",
		"http://0.0.0.0:" + port + "/",
		"http://[::]:" + port + "/",
		"http://2130706433:" + port + "/",
		"http://0177.0.0.1:" + port + "/",
		"http://0x7f.0.0.1:" + port + "/",
		"http://0x7f000001:" + port + "/",
		"http://127.1:" + port + "/",
		"http://10.0.0.1/",
		"http://172.16.0.1/",
		"http://192.168.1.1/",
		"http://169.254.169.254/latest/meta-data/",
		"http://100.64.0.1/",
		"http://[fc00::1]/",
		"http://[fe80::1]/",
		"http://224.0.0.1/",
		"http://[ff02::1]/",
		"https://127.0.0.1:" + port + "/",
	}
	for _, name := range hostsLoopbackNames() {
		urls = append(urls, "http://"+name+":"+port+"/")
	}
	for _, u := range urls {
		t.Run(u, func(t *testing.T) {
			_, err := c.Get(context.Background(), Request{URL: u})
			wantCode(t, err, model.CodeForbiddenURL)
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("server saw %d requests, want 0", n)
	}
}

func TestGuardRefusesRedirectToPrivate(t *testing.T) {
	private, privateHits := countingServer(t, nil)
	port := serverPort(t, private)
	targets := map[string]string{
		"/plain":   private.URL + "/secret",
		"/name":    "http://localhost:" + port + "/secret",
		"/numeric": "http://2130706433:" + port + "/secret",
		"/meta":    "http://169.254.169.254/latest/meta-data/",
		"/scheme":  "file:///etc/passwd",
	}
	public, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if to, ok := targets[r.URL.Path]; ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		fmt.Fprint(w, "public page")
	})
	// Only the "public" server's exact address passes the guard.
	c := New(Config{Timeout: 5 * time.Second, allowAddrs: []netip.AddrPort{serverAddr(t, public)}})

	resp, err := c.Get(context.Background(), Request{URL: public.URL + "/ok"})
	if err != nil {
		t.Fatalf("allowed server: %v", err)
	}
	if string(resp.Body) != "public page" {
		t.Fatalf("body = %q", resp.Body)
	}
	for path := range targets {
		t.Run(path, func(t *testing.T) {
			_, err := c.Get(context.Background(), Request{URL: public.URL + path})
			want := model.CodeForbiddenURL
			if path == "/scheme" {
				want = model.CodeUpstreamError // a redirect to a non-http URL is the site's fault
			}
			wantCode(t, err, want)
		})
	}
	if n := privateHits.Load(); n != 0 {
		t.Fatalf("private server saw %d requests, want 0", n)
	}
}

func TestAllowPrivate(t *testing.T) {
	srv, hits := countingServer(t, nil)
	c := New(Config{AllowPrivate: true})
	for _, u := range []string{srv.URL, "http://localhost:" + serverPort(t, srv)} {
		resp, err := c.Get(context.Background(), Request{URL: u})
		if err != nil {
			t.Fatalf("Get(%s): %v", u, err)
		}
		if resp.StatusCode != 200 || string(resp.Body) != "hello" || resp.Tier != TierHTTP {
			t.Fatalf("got status %d body %q tier %q", resp.StatusCode, resp.Body, resp.Tier)
		}
	}
	if hits.Load() != 2 {
		t.Fatalf("hits = %d, want 2", hits.Load())
	}
	// Metadata stays refused even in development.
	_, err := c.Get(context.Background(), Request{URL: "http://169.254.169.254/"})
	wantCode(t, err, model.CodeForbiddenURL)
}

func TestCheckURL(t *testing.T) {
	bad := []string{"", "example.com/x", "/relative", "ftp://example.com/", "http://", "http:///x",
		"http://user:pass@example.com/", "http://example.com:99999/", "javascript:alert(1)",
		"http://exa mple.com/", "http://0x7g.0.0.1/", "http://256.0.0.1/", "mailto:a@example.com"}
	for _, raw := range bad {
		_, err := CheckURL(raw)
		wantCode(t, err, model.CodeBadRequest)
	}
	good := map[string]string{
		"HTTP://Example.COM/a?b=c":     "http://example.com/a?b=c",
		"https://example.com:8443/x":   "https://example.com:8443/x",
		"http://0x08.0x08.0x08.0x08/":  "http://8.8.8.8/",
		"http://134744072/":            "http://8.8.8.8/",
		"http://[2606:4700::1111]:81/": "http://[2606:4700::1111]:81/",
	}
	for raw, want := range good {
		u, err := CheckURL(raw)
		if err != nil {
			t.Fatalf("CheckURL(%q): %v", raw, err)
		}
		if u.String() != want {
			t.Fatalf("CheckURL(%q) = %q, want %q", raw, u, want)
		}
	}
}

func TestBodyCap(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 2000)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared":
			w.Header().Set("Content-Length", "2000")
			w.Write(big)
		case "/chunked":
			w.Write(big[:500])
			w.(http.Flusher).Flush()
			w.Write(big[500:])
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(bytes.Repeat([]byte("z"), 4<<20)) // about 4 KB on the wire
			zw.Close()
		case "/fits":
			w.Write(big[:1000])
		}
	})
	c := New(Config{AllowPrivate: true, MaxBodyBytes: 1000})
	bombClient := New(Config{AllowPrivate: true, MaxBodyBytes: 64 << 10})
	for path, size := range map[string]int64{"/declared": 2000, "/chunked": 1001, "/bomb": 64<<10 + 1} {
		c := c
		if path == "/bomb" {
			c = bombClient
		}
		_, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: err = %v, want ErrTooLarge", path, err)
		}
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Size != size || tl.Limit != size-1 && tl.Limit != 1000 {
			t.Fatalf("%s: TooLargeError = %+v, want size %d", path, tl, size)
		}
		wantCode(t, err, model.CodeUpstreamError)
		if strings.Contains(model.ErrorMessage(err), "bytes") {
			t.Fatalf("message leaks detail: %q", model.ErrorMessage(err))
		}
	}
	resp, err := c.Get(context.Background(), Request{URL: srv.URL + "/fits"})
	if err != nil || len(resp.Body) != 1000 {
		t.Fatalf("/fits: err %v", err)
	}
}

func TestContentEncodings(t *testing.T) {
	const text = "<html><body>compressed body ünïcode</body></html>"
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if ae := r.Header.Get("Accept-Encoding"); !strings.Contains(ae, "br") || !strings.Contains(ae, "gzip") {
			http.Error(w, "bad accept-encoding "+ae, 400)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var buf bytes.Buffer
		switch r.URL.Path {
		case "/gzip":
			zw := gzip.NewWriter(&buf)
			zw.Write([]byte(text))
			zw.Close()
		case "/br":
			bw := brotli.NewWriter(&buf)
			bw.Write([]byte(text))
			bw.Close()
		case "/deflate":
			zw := zlib.NewWriter(&buf)
			zw.Write([]byte(text))
			zw.Close()
		case "/rawdeflate":
			fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
			fw.Write([]byte(text))
			fw.Close()
		}
		enc := strings.TrimPrefix(r.URL.Path, "/")
		if enc == "rawdeflate" {
			enc = "deflate"
		}
		w.Header().Set("Content-Encoding", enc)
		w.Write(buf.Bytes())
	})
	c := New(Config{AllowPrivate: true})
	for _, p := range []string{"/gzip", "/br", "/deflate", "/rawdeflate"} {
		resp, err := c.Get(context.Background(), Request{URL: srv.URL + p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if string(resp.Body) != text {
			t.Fatalf("%s: body = %q (status %d)", p, resp.Body, resp.StatusCode)
		}
		if resp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: Content-Encoding kept", p)
		}
	}
}

func TestCharsets(t *testing.T) {
	sjis, _ := japanese.ShiftJIS.NewEncoder().String("日本語のページ")
	longUTF8 := strings.Repeat("x", 2000) + "é"
	pages := map[string]struct {
		ct, body string
	}{
		"/latin1-header": {"text/html; charset=ISO-8859-1", "<p>caf\xe9</p>"},
		"/sjis-meta":     {"text/html", `<html><head><meta charset="Shift_JIS"></head><body>` + sjis + `</body></html>`},
		"/sjis-http-equiv": {"text/html", `<meta http-equiv="Content-Type" content="text/html; charset=shift_jis"><p>` +
			sjis + `</p>`},
		"/sjis-header": {"text/plain; charset=shift_jis", sjis},
		"/utf8-late":   {"text/html", "<p>" + longUTF8 + "</p>"},
		"/bom":         {"text/html", "\xef\xbb\xbf<p>é</p>"},
		"/xml":         {"application/xml", `<?xml version="1.0" encoding="ISO-8859-1"?><a>caf` + "\xe9</a>"},
		"/json":        {"application/json", `{"a":"é"}`},
	}
	want := map[string]struct{ body, charset string }{
		"/latin1-header":   {"<p>café</p>", "windows-1252"},
		"/sjis-meta":       {"日本語のページ", "shift_jis"},
		"/sjis-http-equiv": {"日本語のページ", "shift_jis"},
		"/sjis-header":     {"日本語のページ", "shift_jis"},
		"/utf8-late":       {longUTF8, "utf-8"},
		"/bom":             {"<p>é</p>", "utf-8"},
		"/xml":             {"<a>café</a>", "windows-1252"},
		"/json":            {`{"a":"é"}`, "utf-8"},
	}
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		p := pages[r.URL.Path]
		w.Header().Set("Content-Type", p.ct)
		w.Write([]byte(p.body))
	})
	c := New(Config{AllowPrivate: true})
	for path, w := range want {
		resp, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !strings.Contains(string(resp.Body), w.body) {
			t.Errorf("%s: body = %q, want it to contain %q", path, resp.Body, w.body)
		}
		if resp.Charset != w.charset {
			t.Errorf("%s: charset = %q, want %q", path, resp.Charset, w.charset)
		}
	}
}

func TestMediaTypes(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pdf":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte("%PDF-1.4\n\xe2\xe3\xcf\xd3 binary"))
		case "/json":
			w.Header().Set("Content-Type", "application/ld+json")
			w.Write([]byte(`{}`))
		case "/none":
			w.Header()["Content-Type"] = nil
			w.Write([]byte("<!DOCTYPE html><html><body>x</body></html>"))
		case "/missing":
			http.NotFound(w, r)
		}
	})
	c := New(Config{AllowPrivate: true})
	cases := map[string]struct {
		mt   string
		kind Kind
	}{
		"/pdf":     {"application/pdf", KindPDF},
		"/json":    {"application/ld+json", KindJSON},
		"/none":    {"text/html", KindHTML},
		"/missing": {"text/plain", KindText},
	}
	for path, want := range cases {
		resp, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if resp.MediaType != want.mt || resp.Kind != want.kind {
			t.Errorf("%s: media type %q kind %q, want %q %q", path, resp.MediaType, resp.Kind, want.mt, want.kind)
		}
	}
	resp, _ := c.Get(context.Background(), Request{URL: srv.URL + "/pdf"})
	if !bytes.Contains(resp.Body, []byte("\xe2\xe3\xcf\xd3")) || resp.Charset != "" {
		t.Errorf("pdf body was altered or given a charset %q", resp.Charset)
	}
	resp, _ = c.Get(context.Background(), Request{URL: srv.URL + "/missing"})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d, want 404 as a response", resp.StatusCode)
	}
}

func TestConditionalGet(t *testing.T) {
	const etag = `"v1"`
	lastMod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastMod.Format(http.TimeFormat))
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !lastMod.After(ims) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "content")
	})
	c := New(Config{AllowPrivate: true})
	first, err := c.Get(context.Background(), Request{URL: srv.URL})
	if err != nil || first.NotModified || first.ETag != etag || first.LastModified == "" {
		t.Fatalf("first: %+v %v", first, err)
	}
	second, err := c.Get(context.Background(), Request{URL: srv.URL, IfNoneMatch: first.ETag})
	if err != nil || !second.NotModified || second.StatusCode != 304 || len(second.Body) != 0 {
		t.Fatalf("etag: %+v %v", second, err)
	}
	third, err := c.Get(context.Background(), Request{URL: srv.URL, IfModifiedSince: first.LastModified})
	if err != nil || !third.NotModified {
		t.Fatalf("last-modified: %+v %v", third, err)
	}
}

func TestRedirects(t *testing.T) {
	srv, hits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/r/%d", &n); err == nil {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n+1), http.StatusFound)
			return
		}
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "final")
	})
	c := New(Config{AllowPrivate: true, MaxRedirects: 3})
	resp, err := c.Get(context.Background(), Request{URL: srv.URL + "/hop"})
	if err != nil || resp.FinalURL != srv.URL+"/final" || resp.URL != srv.URL+"/hop" {
		t.Fatalf("hop: %+v %v", resp, err)
	}
	hits.Store(0)
	_, err = c.Get(context.Background(), Request{URL: srv.URL + "/r/0"})
	wantCode(t, err, model.CodeUpstreamError)
	if n := hits.Load(); n != 4 {
		t.Fatalf("server saw %d requests, want 4 (1 + 3 redirects)", n)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slowbody" {
			w.Write([]byte("start"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	c := New(Config{AllowPrivate: true, Timeout: 5 * time.Second})
	for _, p := range []string{"/slowheader", "/slowbody"} {
		start := time.Now()
		_, err := c.Get(context.Background(), Request{URL: srv.URL + p, Timeout: 200 * time.Millisecond})
		wantCode(t, err, model.CodeTimeout)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%s took %v", p, d)
		}
	}
	// A deadline on the caller's context is a timeout too.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Get(ctx, Request{URL: srv.URL + "/slowheader"})
	wantCode(t, err, model.CodeTimeout)
}

func TestUpstreamErrors(t *testing.T) {
	addr := porttest.Refusing(t)
	c := New(Config{AllowPrivate: true, Timeout: 5 * time.Second})
	_, err := c.Get(context.Background(), Request{URL: "http://" + addr + "/"})
	wantCode(t, err, model.CodeUpstreamError)
	if msg := model.ErrorMessage(err); strings.Contains(msg, "127.0.0.1") {
		t.Fatalf("message leaks the address: %q", msg)
	}

	// A name that does not resolve. The test's resolver answers itself,
	// so no lookup leaves this machine.
	var asked atomic.Bool
	c.dialer.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		asked.Store(true)
		return nil, &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}
	}}
	_, err = c.Get(context.Background(), Request{URL: "http://no-such-host.invalid/"})
	wantCode(t, err, model.CodeUpstreamError)
	if !asked.Load() {
		t.Fatal("the lookup did not go through the test's resolver")
	}
	c.dialer.Resolver = nil

	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tlsSrv.Close()
	_, err = c.Get(context.Background(), Request{URL: tlsSrv.URL})
	wantCode(t, err, model.CodeUpstreamError)

	// A server that hangs up mid-response.
	hang, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
		conn.Close()
	})
	_, err = c.Get(context.Background(), Request{URL: hang.URL})
	wantCode(t, err, model.CodeUpstreamError)

	_, err = c.Get(context.Background(), Request{URL: hang.URL, Headers: map[string]string{"Bad\nName": "x"}})
	wantCode(t, err, model.CodeBadRequest)
}

func TestHeaders(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s|%s|%s", r.Header.Get("User-Agent"), r.Header.Get("X-Test"), r.Host)
	})
	c := New(Config{AllowPrivate: true, UserAgent: "webacq-test/1"})
	resp, err := c.Get(context.Background(), Request{URL: srv.URL, Headers: map[string]string{
		"x-test": "yes", "Host": "evil.example",
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := "webacq-test/1|yes|" + strings.TrimPrefix(srv.URL, "http://")
	if string(resp.Body) != want {
		t.Fatalf("body = %q, want %q", resp.Body, want)
	}
}
