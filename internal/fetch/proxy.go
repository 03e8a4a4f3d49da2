package fetch

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// blockedHeader marks the answer the proxy gives in place of a refused plain
// HTTP request, so that a refused navigation can be told from a site's 403.
const blockedHeader = "X-Webacq-Blocked"

// proxy is the forward proxy that Chromium sends all its traffic through
// (--proxy-server, with loopback included). Chromium resolves and connects
// nothing itself; the proxy dials with the SSRF-guarded dialer, so every
// navigation, redirect hop and subresource meets the same guard as the HTTP
// tier. HTTPS and WebSockets arrive as CONNECT tunnels, plain HTTP as
// absolute-form requests.
//
// It listens on 127.0.0.1 without authentication: another local process could
// use it, but only to reach addresses the guard allows.
type proxy struct {
	dialer    *net.Dialer
	transport *http.Transport
	ln        net.Listener
	srv       *http.Server

	mu      sync.Mutex
	refused map[string]time.Time // host:port → last refusal, for error attribution
	tunnels map[net.Conn]struct{}
	closed  bool
}

const (
	maxProxyHeaderWait = 2 * time.Minute
	proxyRefusedTTL    = time.Minute
	proxyRefusedMax    = 1024
)

func startProxy(c *Client) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{
		dialer: c.dialer,
		transport: &http.Transport{
			Proxy:               nil,
			DialContext:         c.dialer.DialContext,
			DisableCompression:  true, // pass encodings through to the browser
			MaxIdleConnsPerHost: 8,
			IdleConnTimeout:     60 * time.Second,
			// A render's own deadline (the request's timeout, up to two
			// minutes) ends its connections; this only stops a header
			// wait that outlives every render.
			ResponseHeaderTimeout: maxProxyHeaderWait,
		},
		ln:      ln,
		refused: make(map[string]time.Time),
		tunnels: make(map[net.Conn]struct{}),
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// url is the proxy's address for --proxy-server.
func (p *proxy) url() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	tunnels := p.tunnels
	p.tunnels = nil
	p.mu.Unlock()
	_ = p.srv.Close()
	for c := range tunnels {
		_ = c.Close()
	}
	p.transport.CloseIdleConnections()
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	p.forward(w, r)
}

func (p *proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || host == "" || port == "" {
		http.Error(w, "bad CONNECT target", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	upstream, err := p.dialer.DialContext(ctx, "tcp", r.Host)
	if err != nil {
		if isGuardError(err) {
			p.noteRefused(r.Host)
			http.Error(w, "destination not allowed", http.StatusForbidden)
			return
		}
		http.Error(w, "cannot reach destination", http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "hijack unsupported", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if !p.track(client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		p.untrack(client, upstream)
		return
	}
	// Bytes the client sent after the CONNECT line may sit in buf.
	var fromClient io.Reader = client
	if n := buf.Reader.Buffered(); n > 0 {
		pending, _ := buf.Reader.Peek(n)
		fromClient = io.MultiReader(strings.NewReader(string(pending)), client)
	}
	go func() {
		done := make(chan struct{}, 2)
		go func() { _, _ = io.Copy(upstream, fromClient); done <- struct{}{} }()
		go func() { _, _ = io.Copy(client, upstream); done <- struct{}{} }()
		<-done // either side ending ends the tunnel
		p.untrack(client, upstream)
		<-done
	}()
}

func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = struct{}{}
	}
	return true
}

func (p *proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	for _, c := range conns {
		delete(p.tunnels, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// hopHeaders are connection-level headers a proxy must not forward.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

func (p *proxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header = r.Header.Clone()
	removeHopHeaders(out.Header)
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		if isGuardError(err) {
			p.noteRefused(authority(r.URL))
			w.Header().Set(blockedHeader, "1")
			http.Error(w, "destination not allowed", http.StatusForbidden)
			return
		}
		http.Error(w, "cannot reach destination", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	removeHopHeaders(resp.Header)
	resp.Header.Del(blockedHeader) // a site must not fake a refusal
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(flushWriter{w}, resp.Body)
}

type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}

// authority returns u's host:port with the scheme's default port filled in.
func authority(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" || u.Scheme == "wss" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

func (p *proxy) noteRefused(hostport string) {
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return
	}
	key := net.JoinHostPort(strings.ToLower(h), port)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.refused) >= proxyRefusedMax {
		now := time.Now()
		for k, t := range p.refused {
			if now.Sub(t) > proxyRefusedTTL || len(p.refused) >= proxyRefusedMax {
				delete(p.refused, k)
			}
		}
	}
	p.refused[key] = time.Now()
}

// wasRefused reports whether the proxy recently refused rawURL's host:port.
func (p *proxy) wasRefused(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.refused[authority(u)]
	return ok && time.Since(t) < proxyRefusedTTL
}
