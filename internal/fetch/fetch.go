// Package fetch performs the service's outbound requests: an HTTP tier on one
// shared, SSRF-guarded transport, robots.txt rules, and a headless Chromium
// tier whose every connection passes the same guard.
//
// Errors carry model codes: bad_request for an unusable URL, forbidden_url
// when the guard refuses an address, timeout when a deadline passes, and
// upstream_error for DNS, connection, TLS and protocol failures. HTTP error
// statuses are not errors: the Response carries the status and callers decide.
package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"webacq/internal/model"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxBodyBytes = 25 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 10
	DefaultUserAgent    = "Mozilla/5.0 (compatible; webacq/1.0)"
	DefaultBrowserTabs  = 4
)

// Tier names, as reported in Response.Tier and in fetch traces.
const (
	TierHTTP    = "http"
	TierBrowser = "browser"
)

// Config holds the settings of the fetch tiers. Zero fields take defaults.
type Config struct {
	// AllowPrivate lets requests reach loopback addresses (127.0.0.0/8 and
	// ::1): local development and tests. Other private ranges open only
	// through AllowRanges.
	AllowPrivate bool
	// AllowRanges are private ranges requests may reach, as the operator
	// named them. Ranges outside loopback, RFC 1918, CGNAT and unique-local
	// space are ignored (see IsPrivateRange). Cloud metadata and link-local
	// addresses stay refused whatever AllowPrivate and AllowRanges say.
	AllowRanges []netip.Prefix
	// UserAgent is sent unless a request sets its own.
	UserAgent string
	// MaxBodyBytes caps the decoded body; larger responses fail with ErrTooLarge.
	MaxBodyBytes int64
	// Timeout bounds a whole request (connect, TLS, headers and body) when
	// the request sets none.
	Timeout time.Duration
	// MaxRedirects is the number of redirects followed; negative follows none.
	MaxRedirects int
	// ChromiumPath is the browser binary; empty searches the usual names.
	ChromiumPath string
	// BrowserTabs is the number of pages the browser renders at once.
	BrowserTabs int

	// allowAddrs are exact addresses the guard lets through; tests use it to
	// make one loopback server look public while others stay refused.
	allowAddrs []netip.AddrPort
}

func (cfg Config) withDefaults() Config {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.BrowserTabs <= 0 {
		cfg.BrowserTabs = DefaultBrowserTabs
	}
	return cfg
}

// Client is the HTTP tier. It holds one tuned transport for the whole process
// and is safe for concurrent use.
type Client struct {
	cfg       Config
	guard     *guard
	dialer    *net.Dialer
	transport *http.Transport
	http      *http.Client
	robots    *Robots
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	cfg = cfg.withDefaults()
	g := newGuard(cfg)
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   g.control,
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would connect on our behalf, past the guard
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		// Bodies are decoded here (gzip, br, deflate) so that the size cap
		// applies to the decoded bytes.
		DisableCompression: true,
	}
	c := &Client{cfg: cfg, guard: g, dialer: dialer, transport: tr}
	c.http = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	c.robots = newRobots(c)
	return c
}

// Config returns the client's configuration with defaults applied.
func (c *Client) Config() Config { return c.cfg }

// CloseIdleConnections closes the transport's idle connections.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// Request is one GET on the HTTP tier.
type Request struct {
	URL string
	// Headers are added to the request. Hop-by-hop headers, Host and
	// Accept-Encoding are managed by the client and ignored here.
	Headers map[string]string
	// Timeout overrides Config.Timeout for this request.
	Timeout time.Duration
	// IfNoneMatch and IfModifiedSince make the request conditional; a 304
	// answer sets Response.NotModified.
	IfNoneMatch, IfModifiedSince string
	// MaxBytes, when above zero, lowers Config.MaxBodyBytes for this request.
	MaxBytes int64
	// Reserve, when set, is called before a body over FreeReadBytes is read
	// whole: with its declared length, or the cap when the server declared
	// none (or compressed it). The body is read only if it returns no
	// error, which the request then fails with; release is called once the
	// body is read and decoded. The node's memory budget is taken here
	// (internal/acquire), before the bytes are in memory, not after.
	Reserve func(ctx context.Context, n int64) (release func(), err error)
}

// FreeReadBytes is how much of a body is read without a reservation: the
// pages of most sites, whose bytes cost the node nothing worth queueing for.
const FreeReadBytes = 1 << 20

// Response is the outcome of a fetch on either tier.
type Response struct {
	URL        string // the URL as requested (normalised)
	FinalURL   string // the URL after redirects
	StatusCode int
	// Header is the response header of the final hop. Content-Encoding and
	// Content-Length are removed because Body is decoded.
	Header    http.Header
	MediaType string // e.g. "text/html", from Content-Type or sniffed
	Kind      Kind   // dispatch class of MediaType
	// Charset is the body's original character set; Body holds UTF-8 for
	// text kinds and the raw bytes otherwise. The browser tier reports
	// "utf-8": its Body is the DOM serialised as UTF-8.
	Charset      string
	Body         []byte
	ETag         string
	LastModified string
	NotModified  bool // the server answered 304 to a conditional request
	FetchedAt    time.Time
	Duration     time.Duration
	Tier         string // TierHTTP or TierBrowser
}

// ErrTooLarge is matched (errors.Is) by errors for bodies over the size cap.
// Use errors.As with *TooLargeError for the sizes.
var ErrTooLarge = errors.New("response body too large")

// TooLargeError reports a body over the cap.
type TooLargeError struct {
	Limit int64
	// Size is the declared Content-Length, or Limit+1 when the server
	// declared none and reading stopped at the cap.
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response body of %d bytes exceeds the limit of %d", e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

func tooLarge(limit, size int64) error {
	return model.Wrap(model.CodeUpstreamError, &TooLargeError{Limit: limit, Size: size},
		fmt.Sprintf("the response is larger than the %d MB limit", limit>>20))
}

// Get fetches r.URL with GET on the HTTP tier, following redirects. The
// returned error carries a model code; HTTP error statuses are returned as a
// Response, not as an error.
func (c *Client) Get(ctx context.Context, r Request) (*Response, error) {
	return c.get(ctx, r, c.cfg.MaxBodyBytes, false)
}

// get is Get with a size limit; truncate keeps the first limit bytes instead
// of failing (robots.txt).
func (c *Client) get(ctx context.Context, r Request, limit int64, truncate bool) (*Response, error) {
	u, err := c.CheckURL(r.URL)
	if err != nil {
		return nil, err
	}
	timeout := c.cfg.Timeout
	if r.Timeout > 0 {
		timeout = r.Timeout
	}
	if r.MaxBytes > 0 && r.MaxBytes < limit {
		limit = r.MaxBytes
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	if err := c.setHeaders(req, r); err != nil {
		return nil, err
	}

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer resp.Body.Close()

	out := &Response{
		URL:          u.String(),
		FinalURL:     resp.Request.URL.String(),
		StatusCode:   resp.StatusCode,
		Header:       resp.Header,
		ETag:         resp.Header.Get("ETag"),
		LastModified: resp.Header.Get("Last-Modified"),
		FetchedAt:    start.UTC(),
		Tier:         TierHTTP,
	}
	if resp.StatusCode == http.StatusNotModified {
		out.NotModified = true
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		out.Duration = time.Since(start)
		return out, nil
	}
	if !truncate && resp.ContentLength > limit {
		return nil, tooLarge(limit, resp.ContentLength)
	}

	enc := resp.Header.Get("Content-Encoding")
	rd, closeDec, err := decodeContent(resp.Body, enc)
	if err != nil {
		return nil, err
	}
	defer closeDec()
	declared := resp.ContentLength
	if enc != "" && !strings.EqualFold(enc, "identity") {
		declared = -1 // the decoded body may be far larger
	}
	body, release, err := readBody(ctx, rd, limit, declared, r.Reserve)
	if err != nil {
		return nil, err
	}
	defer release()
	if int64(len(body)) > limit {
		if !truncate {
			return nil, tooLarge(limit, limit+1)
		}
		body = body[:limit]
	}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")

	ct := resp.Header.Get("Content-Type")
	out.MediaType = mediaType(ct, body)
	out.Kind = KindOf(out.MediaType)
	out.Body, out.Charset = ToUTF8(body, out.MediaType, ct)
	out.Duration = time.Since(start)
	return out, nil
}

// readBody reads at most limit+1 bytes of rd. A body declared (or found)
// to be over FreeReadBytes waits for reserve first: for its declared
// length, else for limit once the first FreeReadBytes are read and more
// follow.
func readBody(ctx context.Context, rd io.Reader, limit, declared int64, reserve func(context.Context, int64) (func(), error)) (
	[]byte, func(), error) {
	release := func() {}
	if reserve == nil {
		body, err := io.ReadAll(io.LimitReader(rd, limit+1))
		if err != nil {
			return nil, release, classifyBody(ctx, err)
		}
		return body, release, nil
	}
	var head []byte
	if declared < 0 || declared > FreeReadBytes {
		if declared < 0 {
			var err error
			head, err = io.ReadAll(io.LimitReader(rd, min(FreeReadBytes, limit+1)))
			if err != nil {
				return nil, release, classifyBody(ctx, err)
			}
			if int64(len(head)) < min(FreeReadBytes, limit+1) {
				return head, release, nil // ended within the free part
			}
		}
		n := limit
		if declared >= 0 {
			n = min(declared, limit)
		}
		rel, err := reserve(ctx, n)
		if err != nil {
			return nil, release, err
		}
		release = rel
	}
	buf := bytes.NewBuffer(make([]byte, 0, max(int64(len(head)), min(declared, limit)+1)))
	buf.Write(head)
	if _, err := buf.ReadFrom(io.LimitReader(rd, limit+1-int64(len(head)))); err != nil {
		release()
		return nil, func() {}, classifyBody(ctx, err)
	}
	return buf.Bytes(), release, nil
}

// skipHeaders are managed by the client or the transport.
var skipHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Upgrade": true, "Te": true,
	"Trailer": true, "Proxy-Authorization": true, "Proxy-Connection": true,
	"Accept-Encoding": true,
}

func (c *Client) setHeaders(req *http.Request, r Request) error {
	h := req.Header
	h.Set("User-Agent", c.cfg.UserAgent)
	h.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.9,*/*;q=0.8")
	h.Set("Accept-Language", "en;q=0.9,*;q=0.5")
	for k, v := range r.Headers {
		if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
			return model.Errorf(model.CodeBadRequest, "header %q is not valid", k)
		}
		k = http.CanonicalHeaderKey(k)
		if skipHeaders[k] {
			continue
		}
		h.Set(k, v)
	}
	h.Set("Accept-Encoding", "gzip, deflate, br")
	if r.IfNoneMatch != "" {
		h.Set("If-None-Match", r.IfNoneMatch)
	}
	if r.IfModifiedSince != "" {
		h.Set("If-Modified-Since", r.IfModifiedSince)
	}
	return nil
}

// checkRedirect applies the URL policy and the redirect limit to each hop.
// The dialer checks the address of every hop as well.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if c.cfg.MaxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > c.cfg.MaxRedirects {
		return model.Errorf(model.CodeUpstreamError, "the site redirected more than %d times", c.cfg.MaxRedirects)
	}
	u, err := c.CheckURL(req.URL.String())
	if err != nil {
		var me *model.Error
		if errors.As(err, &me) && me.Code == model.CodeBadRequest {
			return model.Wrap(model.CodeUpstreamError, err, "the site redirected to an invalid url")
		}
		return err
	}
	req.URL = u
	req.Host = u.Host
	return nil
}
