package primitive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/porttest"
)

// autoService is a service with both tiers; the browser starts only if a
// fetch escalates. Tests that need one skip when Chromium is missing.
func autoService(t *testing.T) *Service {
	t.Helper()
	path := fetch.FindChromium()
	if path == "" {
		t.Skip("no chromium binary found")
	}
	cfg := fetch.Config{AllowPrivate: true, ChromiumPath: path, BrowserTabs: 1, Timeout: 20 * time.Second}
	b := fetch.NewBrowser(cfg)
	t.Cleanup(func() { b.Close() })
	return &Service{HTTP: fetch.New(cfg), Browser: b, Log: slog.New(slog.DiscardHandler), UserAgent: "webacq"}
}

func autoFetch(t *testing.T, s *Service, u string) (*FetchResult, []TraceStep, error) {
	t.Helper()
	req := FetchRequest{URL: u}
	if err := req.Normalize(s.HTTP.CheckURL, s.Browser != nil); err != nil {
		t.Fatal(err)
	}
	if req.Tier != TierAuto {
		t.Fatalf("tier = %q, want auto", req.Tier)
	}
	return s.fetchPage(context.Background(), req, nil)
}

func traceTiers(trace []TraceStep) string {
	var tiers []string
	for _, st := range trace {
		tiers = append(tiers, st.Tier)
	}
	return strings.Join(tiers, ",")
}

// TestNoEscalationOnNetworkErrors: a refused or dropped connection on the
// HTTP tier is reported in its own words, without a browser step.
func TestNoEscalationOnNetworkErrors(t *testing.T) {
	s := autoService(t)
	closedPort := "http://" + porttest.Refusing(t) + "/"
	dropper := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(dropper.Close)
	for u, words := range map[string]string{
		closedPort:         "the site refused the connection",
		dropper.URL + "/x": "the site closed the connection",
	} {
		_, trace, err := autoFetch(t, s, u)
		if model.ErrorCode(err) != model.CodeUpstreamError || model.ErrorMessage(err) != words {
			t.Errorf("%s: err = %v, want upstream_error %q", u, err, words)
		}
		if got := traceTiers(trace); got != "http" {
			t.Errorf("%s: tiers tried %q, want http only", u, got)
		}
	}
}

// TestRateLimitAndOutageAreNotBlocks: a plain 429 is rate_limited with the
// site's Retry-After, a plain 503 the site's own error; neither goes to
// the browser.
func TestRateLimitAndOutageAreNotBlocks(t *testing.T) {
	s := autoService(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/429":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `<html><head><title>429 Too Many Requests</title></head><body><h1>429 Too Many Requests</h1></body></html>`)
		case "/429-bare":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/503":
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		path, code, words string
		retryAfter        time.Duration
	}{
		{"/429", model.CodeRateLimited, "the site is rate limiting requests (HTTP 429); try again later", 2 * time.Minute},
		{"/429-bare", model.CodeRateLimited, "the site is rate limiting requests (HTTP 429); try again later", defaultSiteRetryAfter},
		{"/503", model.CodeUpstreamError, "the site answered HTTP 503", 0},
	} {
		hits.Store(0)
		_, trace, err := autoFetch(t, s, srv.URL+c.path)
		var me *model.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Message != c.words || me.RetryAfter != c.retryAfter {
			t.Errorf("%s: err = %v (retry after %v), want %s %q, retry after %v", c.path, err, me.RetryAfter, c.code, c.words, c.retryAfter)
		}
		if got := traceTiers(trace); got != "http" || hits.Load() != 1 {
			t.Errorf("%s: tiers tried %q, site asked %d times; want http only, once", c.path, got, hits.Load())
		}
	}
}

// TestChallengeAndShellStillEscalate: a bot challenge and an empty
// JavaScript shell still go to the browser.
func TestChallengeAndShellStillEscalate(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow")
	}
	s := autoService(t)
	words := strings.Repeat("The quarterly report shows steady growth across every region we serve. ", 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/challenge":
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>
<noscript>Enable JavaScript and cookies to continue</noscript>
<script>window._cf_chl_opt={cType:'managed'};</script></body></html>`)
		case "/shell":
			fmt.Fprintf(w, `<html><head><title>App</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<article><p>%s</p></article>';</script></body></html>`, words)
		}
	}))
	t.Cleanup(srv.Close)

	_, trace, err := autoFetch(t, s, srv.URL+"/challenge")
	if model.ErrorCode(err) != model.CodeUpstreamError || !strings.Contains(model.ErrorMessage(err), "blocked the fetch (captcha, HTTP 503)") {
		t.Errorf("challenge: err = %v, want the block reported", err)
	}
	if got := traceTiers(trace); got != "http,browser" {
		t.Errorf("challenge: tiers tried %q, want http,browser", got)
	}

	res, trace, err := autoFetch(t, s, srv.URL+"/shell")
	if err != nil {
		t.Fatalf("shell: %v", err)
	}
	if got := traceTiers(trace); got != "http,browser" || res.Tier != TierBrowser || !strings.Contains(*res.Markdown, "steady growth") {
		t.Errorf("shell: tiers tried %q, result tier %q, markdown %q", got, res.Tier, *res.Markdown)
	}
}

func TestSiteRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		status int
		h      string
		want   time.Duration
	}{
		{429, "120", 2 * time.Minute},
		{429, " 5 ", 5 * time.Second},
		{429, "0", time.Second},
		{429, "-5", time.Second},
		{429, "99999999999999999", time.Hour},
		{429, "", defaultSiteRetryAfter},
		{429, "soon", defaultSiteRetryAfter},
		{429, now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{429, now.Add(-time.Hour).Format(http.TimeFormat), time.Second},
		{429, now.AddDate(10, 0, 0).Format(http.TimeFormat), time.Hour},
		{503, "120", 0},
		{200, "", 0},
	} {
		if got := siteRetryAfter(c.status, c.h, now); got != c.want {
			t.Errorf("siteRetryAfter(%d, %q) = %v, want %v", c.status, c.h, got, c.want)
		}
	}
}
