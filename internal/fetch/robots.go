package fetch

import (
	"bytes"
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

	// robotsMaxRules bounds the rules a robots.txt keeps, counted once per
	// user agent of their group: the parser copies each rule into the group
	// of every agent listed above it, so 17,000 User-agent lines over 25,000
	// Disallow lines (500 KiB) made 425 million copies, 2 GB and 35 s of
	// parsing. 100,000 is twice what 500 KiB of one-agent rules can hold.
	robotsMaxRules = 100_000
	// robotsMaxPatternBytes bounds the bytes of Allow and Disallow values
	// with wildcards ("*", "$"): each becomes a regular expression of about
	// 1 KiB of heap plus 128 bytes per byte of pattern, tried on every path
	// checked (500 KiB of them kept 31 MB and cost 16 ms per check; one line
	// of them kept 64 MB and took 1.3 s to compile). 32 KiB holds some 2,000
	// patterns, more than large sites write.
	robotsMaxPatternBytes = 32 << 10
	// robotsMaxCacheBytes bounds the estimated heap of all cached robots.txt
	// files together (see robotsWeight), so that many large files cannot
	// fill the node for an hour even within robotsMaxHosts.
	robotsMaxCacheBytes = 64 << 20
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
// failures are cached for five minutes only. A body over 500 KiB is truncated,
// and so is one whose rules would cost more than robotsMaxRules or
// robotsMaxPatternBytes: RFC 9309 lets a crawler stop parsing at a limit, and
// the lines after it are ignored. The cache keeps at most robotsMaxCacheBytes
// of parsed files, evicting those closest to expiry.
type Robots struct {
	c *Client

	mu      sync.Mutex
	entries map[string]*robotsEntry
	weight  int64 // sum of the weights of ready entries
	now     func() time.Time
}

type robotsEntry struct {
	ready   chan struct{} // closed once data, expires and weight are set
	data    *robotstxt.RobotsData
	expires time.Time
	weight  int64 // estimated heap of data
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
	data, ttl, weight := robotsAllowAll, robotsErrorTTL, int64(0)
	resp, err := r.c.get(ctx, Request{URL: key + "/robots.txt", Timeout: robotsTimeout}, robotsMaxBytes, true)
	if err == nil {
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			ttl = robotsTTL
			body, w := robotsLimit(resp.Body)
			if d, err := robotstxt.FromBytes(body); err == nil {
				data, weight = d, w
			}
		case resp.StatusCode >= 400 && resp.StatusCode < 500:
			ttl = robotsTTL
		}
	}
	r.mu.Lock()
	e.data, e.expires, e.weight = data, r.now().Add(ttl), weight
	r.weight += weight
	close(e.ready)
	r.shrinkLocked(e)
	r.mu.Unlock()
}

// evictLocked makes room for one entry.
func (r *Robots) evictLocked() {
	for len(r.entries) >= robotsMaxHosts && r.evictOneLocked(nil) {
	}
}

// shrinkLocked evicts entries other than keep until the cache weighs at
// most robotsMaxCacheBytes.
func (r *Robots) shrinkLocked(keep *robotsEntry) {
	for r.weight > robotsMaxCacheBytes && r.evictOneLocked(keep) {
	}
}

// evictOneLocked drops the expired entries, or else the one closest to
// expiry, and reports whether it dropped any. Entries still being fetched
// and keep stay.
func (r *Robots) evictOneLocked(keep *robotsEntry) bool {
	now := r.now()
	var oldestKey string
	var oldest time.Time
	dropped := false
	for k, e := range r.entries {
		select {
		case <-e.ready:
		default:
			continue
		}
		if e == keep {
			continue
		}
		if now.After(e.expires) {
			r.dropLocked(k, e)
			dropped = true
			continue
		}
		if oldestKey == "" || e.expires.Before(oldest) {
			oldestKey, oldest = k, e.expires
		}
	}
	if !dropped && oldestKey != "" {
		r.dropLocked(oldestKey, r.entries[oldestKey])
		dropped = true
	}
	return dropped
}

func (r *Robots) dropLocked(key string, e *robotsEntry) {
	delete(r.entries, key)
	r.weight -= e.weight
}

// Weights of a parsed robots.txt, in bytes of heap, measured on files made
// of one kind of line each: per byte of the file (its tokens and sitemaps),
// per rule copy, per wildcard pattern and per byte of such patterns.
const (
	robotsWeightPerByte        = 3
	robotsWeightPerRule        = 40
	robotsWeightPerPattern     = 1024
	robotsWeightPerPatternByte = 128
)

// robotsLimit returns the part of a robots.txt body that fits the parsing
// budget, robotsMaxRules and robotsMaxPatternBytes, and its estimated heap
// once parsed. It reads lines as the robotstxt parser tokenizes them and
// keeps of each line only the directive and its value, so that every line
// kept is one directive: the parser would otherwise read further words of
// a line as more directives, which the budget could not see. The body is
// cut before the first line over budget; blank and comment lines are left
// out.
func robotsLimit(body []byte) ([]byte, int64) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	out := make([]byte, 0, len(body))
	var rules, patterns, patternBytes int64
	agents, emptyGroup := int64(0), true
	for len(body) > 0 {
		line := body
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		key, value, end := robotsDirective(line)
		if end == 0 {
			continue
		}
		switch strings.ToLower(key) {
		case "user-agent", "useragent":
			if !emptyGroup {
				agents = 0
			}
			if agents == 0 {
				emptyGroup = true
			}
			agents++
		case "allow", "disallow":
			lineRules, linePattern := max(agents, 1), int64(0)
			if v := strings.TrimRight(value, "*"); strings.ContainsAny(v, "*$") {
				linePattern = int64(len(v))
			}
			if rules+lineRules > robotsMaxRules || patternBytes+linePattern > robotsMaxPatternBytes {
				return out, robotsWeight(len(out), rules, patterns, patternBytes)
			}
			rules += lineRules
			if linePattern > 0 {
				patterns++
				patternBytes += linePattern
			}
			if agents > 0 {
				emptyGroup = false
			}
		case "crawl-delay", "crawldelay":
			if agents > 0 {
				emptyGroup = false
			}
		}
		out = append(out, line[:end]...)
		out = append(out, '\n')
	}
	return out, robotsWeight(len(out), rules, patterns, patternBytes)
}

func robotsWeight(size int, rules, patterns, patternBytes int64) int64 {
	return robotsWeightPerByte*int64(size) + robotsWeightPerRule*rules +
		robotsWeightPerPattern*patterns + robotsWeightPerPatternByte*patternBytes
}

// robotsDirective splits a robots.txt line as the robotstxt scanner does:
// words are separated by spaces, tabs and vertical tabs, the first colon of
// a line ends a word too (unless it is the word's first byte), and a word
// starting with "#" starts a comment.
// It returns the first word, the second, and the offset where the second
// (or, without one, the first) ends; 0 for a blank or comment line.
func robotsDirective(line []byte) (key, value string, end int) {
	colon := false
	word := func(i int) (start, stop int) {
		for i < len(line) && isRobotsSpace(line[i]) {
			i++
		}
		if i == len(line) || line[i] == '#' {
			return i, i
		}
		// The first byte of a word is taken as it is, colon or not.
		start = i
		for i++; i < len(line) && !isRobotsSpace(line[i]); i++ {
			if line[i] == ':' && !colon {
				colon = true
				return start, i
			}
		}
		return start, i
	}
	ks, ke := word(0)
	if ks == ke {
		return "", "", 0
	}
	next := ke
	if next < len(line) && line[next] == ':' {
		next++
	}
	vs, ve := word(next)
	if vs == ve {
		return string(line[ks:ke]), "", ke
	}
	return string(line[ks:ke]), string(line[vs:ve]), ve
}

func isRobotsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\v' }
