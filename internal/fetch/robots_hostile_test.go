package fetch

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveRobots starts a site whose robots.txt is body and returns a client
// allowed to reach it and the site's URL.
func serveRobots(t *testing.T, body string) (*Client, string) {
	t.Helper()
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	})
	return New(Config{AllowPrivate: true}), srv.URL
}

// allowedWithin asks Allowed and fails if the answer takes longer than a
// generous bound: before the parsing budget these files took tens of
// seconds.
func allowedWithin(t *testing.T, c *Client, rawURL string) bool {
	t.Helper()
	start := time.Now()
	ok := c.Robots().Allowed(context.Background(), rawURL, "")
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Allowed took %v", d)
	}
	return ok
}

func TestRobotsAgentsTimesRulesBudget(t *testing.T) {
	// Each rule is copied into the group of every agent above it: 1,000
	// agents over 200 rules are 200,000 copies, twice robotsMaxRules.
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "User-agent: bot%d\n", i)
	}
	b.WriteString("User-agent: *\n")
	for i := range 200 {
		fmt.Fprintf(&b, "Disallow: /r%d/\n", i)
	}
	c, base := serveRobots(t, b.String())
	if allowedWithin(t, c, base+"/r10/page") {
		t.Error("/r10/ is allowed, want disallowed: rules within the budget apply")
	}
	// Rule 99 is the last whose copies fit (100 × 1,001 agents > 100,000).
	if allowedWithin(t, c, base+"/r98/page") {
		t.Error("/r98/ is allowed, want disallowed")
	}
	if !allowedWithin(t, c, base+"/r150/page") {
		t.Error("/r150/ is disallowed, want allowed: the file is cut at the budget")
	}

	// The file that took 35 s and 2 GB to parse: 17,000 agents over 25,000
	// rules in 500 KiB.
	b.Reset()
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < 250<<10; i++ {
		fmt.Fprintf(&b, "User-agent: a%d\n", i)
	}
	for i := 0; b.Len() < robotsMaxBytes; i++ {
		fmt.Fprintf(&b, "Disallow: /%d\n", i)
	}
	c, base = serveRobots(t, b.String())
	if allowedWithin(t, c, base+"/0") {
		t.Error("/0 is allowed, want disallowed")
	}
}

func TestRobotsPatternBudget(t *testing.T) {
	t.Run("many patterns", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		n := 0
		for ; b.Len() < robotsMaxBytes; n++ {
			fmt.Fprintf(&b, "Disallow: /*p%d$\n", n)
		}
		c, base := serveRobots(t, b.String())
		if allowedWithin(t, c, base+"/x/p1") {
			t.Error("/x/p1 is allowed, want disallowed: patterns within the budget apply")
		}
		if !allowedWithin(t, c, base+fmt.Sprintf("/x/p%d", n-1)) {
			t.Error("the last pattern applies, want the file cut at robotsMaxPatternBytes")
		}
	})
	t.Run("one long line", func(t *testing.T) {
		body := "User-agent: *\nDisallow: /private\nDisallow: /" + strings.Repeat("a*", 400<<10) + "\n"
		c, base := serveRobots(t, body)
		if allowedWithin(t, c, base+"/private") {
			t.Error("/private is allowed, want disallowed")
		}
		if !allowedWithin(t, c, base+"/"+strings.Repeat("a", 100)) {
			t.Error("the 800 KiB pattern applies, want it beyond the budget")
		}
	})
}

func TestRobotsLimitOneDirectivePerLine(t *testing.T) {
	// The parser reads further words of a line as more directives; the
	// budget counts lines, so only the first directive of a line is kept.
	body := "\ufeffUser-agent: *  # all\nDisallow: /a Disallow /b\nDisallow:/c:d\nDisallow /e:f\n" +
		"  # comment\n\nSitemap: http://h/s.xml extra\nAllow: #x\n: odd\n"
	got, _ := robotsLimit([]byte(body))
	want := "User-agent: *\nDisallow: /a\nDisallow:/c:d\nDisallow /e\nSitemap: http://h/s.xml\nAllow\n: odd\n"
	if string(got) != want {
		t.Errorf("robotsLimit =\n%q\nwant\n%q", got, want)
	}
}

func TestRobotsCacheWeight(t *testing.T) {
	// Each host's robots.txt weighs about 10 MB once parsed: seven exceed
	// robotsMaxCacheBytes.
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < robotsMaxBytes; i++ {
		fmt.Fprintf(&b, "Disallow: /*p%d$\n", i)
	}
	body := b.String()
	c := New(Config{AllowPrivate: true})
	rb := c.Robots()
	const hosts = 10
	for range hosts {
		srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })
		if rb.Allowed(context.Background(), srv.URL+"/x/p1", "") {
			t.Fatal("/x/p1 is allowed, want disallowed")
		}
		rb.mu.Lock()
		w, n := rb.weight, len(rb.entries)
		rb.mu.Unlock()
		if w > robotsMaxCacheBytes {
			t.Fatalf("cache weighs %d bytes with %d hosts, want at most %d", w, n, robotsMaxCacheBytes)
		}
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if len(rb.entries) >= hosts {
		t.Errorf("%d hosts cached, want some evicted", len(rb.entries))
	}
	var sum int64
	for _, e := range rb.entries {
		sum += e.weight
	}
	if sum != rb.weight {
		t.Errorf("entries weigh %d, cache counts %d", sum, rb.weight)
	}
}
