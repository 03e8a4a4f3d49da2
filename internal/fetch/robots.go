package fetch

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

const (
	robotsTTL      = time.Hour
	robotsErrorTTL = 5 * time.Minute // retry sooner after a failure
	robotsMaxHosts = 4096
	robotsMaxBytes = 500 << 10 // RFC 9309 asks crawlers to read at least 500 KiB
	robotsTimeout  = 10 * time.Second
)

// Robots answers robots.txt questions for crawl and map. Each scheme+host's
// robots.txt is fetched once and cached for an hour, for at most 4096 hosts;
// concurrent callers for the same host share one fetch.
//
// Failures follow RFC 9309 where it is clear and lean towards allowing where
// it is not: a 4xx answer (including 401 and 403) allows everything; a 5xx
// answer or an unreachable robots.txt also allows everything (RFC 9309 would
// disallow), because the page fetch that follows meets the same outage and
// reports it, and a flaky robots.txt should not silently empty a crawl. Such
// failures are cached for five minutes only. A body over 500 KiB is truncated.
type Robots struct {
	c *Client

	mu      sync.Mutex
	entries map[string]*robotsEntry
	now     func() time.Time
}

type robotsEntry struct {
	ready   chan struct{} // closed once data and expires are set
	data    *robotstxt.RobotsData
	expires time.Time
}

var robotsAllowAll, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)

func newRobots(c *Client) *Robots {
	return &Robots{c: c, entries: make(map[string]*robotsEntry), now: time.Now}
}

// Robots returns the client's robots.txt cache.
func (c *Client) Robots() *Robots { return c.robots }

// Allowed reports whether robots.txt lets userAgent fetch rawURL. userAgent
// may be a product token ("webacq") or a full User-Agent string, whose
// product token is used; empty means the client's User-Agent. An invalid
// URL is not allowed.
func (r *Robots) Allowed(ctx context.Context, rawURL, userAgent string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return r.data(ctx, u).TestAgent(path, r.token(userAgent))
}

// Sitemaps returns the sitemap URLs that the robots.txt of rawURL's host lists.
func (r *Robots) Sitemaps(ctx context.Context, rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil
	}
	return append([]string(nil), r.data(ctx, u).Sitemaps...)
}

// CrawlDelay returns the Crawl-delay that robots.txt sets for userAgent on
// rawURL's host, or zero.
func (r *Robots) CrawlDelay(ctx context.Context, rawURL, userAgent string) time.Duration {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return 0
	}
	return r.data(ctx, u).FindGroup(r.token(userAgent)).CrawlDelay
}

// token extracts the product token that robots.txt groups match against:
// "webacq" from "Mozilla/5.0 (compatible; webacq/1.0; +url)" or "webacq/1.0".
func (r *Robots) token(ua string) string {
	if ua == "" {
		ua = r.c.cfg.UserAgent
	}
	if i := strings.Index(ua, "compatible;"); i >= 0 {
		ua = strings.TrimSpace(ua[i+len("compatible;"):])
	}
	if i := strings.IndexAny(ua, "/ ;)"); i > 0 {
		ua = ua[:i]
	}
	return strings.ToLower(ua)
}

// data returns the parsed robots.txt of u's scheme and host, fetching it if
// it is not cached or has expired. If ctx ends first, everything is allowed
// for this call; the fetch goes on and fills the cache.
func (r *Robots) data(ctx context.Context, u *url.URL) *robotstxt.RobotsData {
	key := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
	r.mu.Lock()
	e := r.entries[key]
	if e != nil {
		select {
		case <-e.ready:
			if r.now().After(e.expires) {
				e = nil
			}
		default: // a fetch is under way; wait for it
		}
	}
	if e == nil {
		e = &robotsEntry{ready: make(chan struct{})}
		r.evictLocked()
		r.entries[key] = e
		// The fetch runs detached from ctx so that one caller giving up
		// does not cache a failure for everyone; robotsTimeout bounds it.
		go r.fetch(context.WithoutCancel(ctx), key, e)
	}
	r.mu.Unlock()

	select {
	case <-e.ready:
		return e.data
	case <-ctx.Done():
		return robotsAllowAll
	}
}

func (r *Robots) fetch(ctx context.Context, key string, e *robotsEntry) {
	data, ttl := robotsAllowAll, robotsErrorTTL
	resp, err := r.c.get(ctx, Request{URL: key + "/robots.txt", Timeout: robotsTimeout}, robotsMaxBytes, true)
	if err == nil {
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			ttl = robotsTTL
			if d, err := robotstxt.FromBytes(resp.Body); err == nil {
				data = d
			}
		case resp.StatusCode >= 400 && resp.StatusCode < 500:
			ttl = robotsTTL
		}
	}
	r.mu.Lock()
	e.data, e.expires = data, r.now().Add(ttl)
	r.mu.Unlock()
	close(e.ready)
}

// evictLocked makes room for one entry: expired entries go first, then the
// one closest to expiry. Entries still being fetched stay.
func (r *Robots) evictLocked() {
	if len(r.entries) < robotsMaxHosts {
		return
	}
	now := r.now()
	var oldestKey string
	var oldest time.Time
	for k, e := range r.entries {
		select {
		case <-e.ready:
		default:
			continue
		}
		if now.After(e.expires) {
			delete(r.entries, k)
			continue
		}
		if oldestKey == "" || e.expires.Before(oldest) {
			oldestKey, oldest = k, e.expires
		}
	}
	if len(r.entries) >= robotsMaxHosts && oldestKey != "" {
		delete(r.entries, oldestKey)
	}
}
