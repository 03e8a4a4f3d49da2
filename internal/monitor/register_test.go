package monitor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store/storetest"
)

// TestOnePageOneMonitor: the spellings of one page that the page store
// takes for one (fragment, dot segments, escaped unreserved characters,
// scheme and host case, default port, numeric IPv4) register one monitor;
// the others answer conflict, and the stored URL is the cleaned one.
func TestOnePageOneMonitor(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
		port := site.srv.URL[strings.LastIndex(site.srv.URL, ":")+1:]
		first, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "HTTP://127.0.0.1:" + port + "/a/../ir#top"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "http://127.0.0.1:" + port + "/ir"; first.URL != want {
			t.Errorf("stored url %q, want %q", first.URL, want)
		}
		for _, u := range []string{
			site.url("/ir"), site.url("/ir#frag"), site.url("/./ir"), site.url("/%69%72"),
			"http://2130706433:" + port + "/ir", "http://0x7f.1:" + port + "/ir",
		} {
			if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: u}); model.ErrorCode(err) != model.CodeConflict {
				t.Errorf("register %s: %v, want conflict (the page is registered)", u, err)
			}
		}
		// Default ports: one page either way.
		if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://127.0.0.1:80/x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://127.0.0.1/x"}); model.ErrorCode(err) != model.CodeConflict {
			t.Errorf("the default port spelled out and left out: %v, want conflict", err)
		}
		// Query strings and trailing slashes name other resources: kept.
		for _, u := range []string{site.url("/ir?a=1"), site.url("/ir/")} {
			if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: u}); err != nil {
				t.Errorf("register %s: %v, want a monitor of its own", u, err)
			}
		}
		ms, err := e.st.Monitors(ctx, e.ws.ID, time.Time{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 4 {
			t.Errorf("%d monitors, want 4", len(ms))
		}
	})
}

// TestLocalhostRefused: names that are loopback by definition are refused
// at registration, with the SSRF guard's error, as loopback addresses are;
// a node that allows loopback (WEBACQ_ALLOW_PRIVATE) allows them too.
func TestLocalhostRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		guarded := &monitor.Service{Store: e.st, Queue: e.svc.Queue, HTTP: fetch.New(fetch.Config{})}
		for _, u := range []string{"http://localhost/", "http://LOCALHOST:80/", "https://app.localhost:8443/x",
			"http://localhost./", "http://127.0.0.1/"} {
			_, err := guarded.Register(ctx, e.p, monitor.RegisterRequest{URL: u})
			if model.ErrorCode(err) != model.CodeForbiddenURL {
				t.Errorf("register %s: %v, want forbidden_url", u, err)
			}
		}
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
		port := site.srv.URL[strings.LastIndex(site.srv.URL, ":")+1:]
		m, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://LocalHost:" + port + "/ir"})
		if err != nil {
			t.Fatalf("localhost on a node that allows loopback: %v", err)
		}
		if m.URL != "http://localhost:"+port+"/ir" {
			t.Errorf("stored %q", m.URL)
		}
	})
}

// TestIntentNeedsModel: an extract_intent on a node without a language
// model is refused at registration, naming the settings, and nothing is
// stored.
func TestIntentNeedsModel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		intent := "the quarters"
		_, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://127.0.0.1:1/ir", ExtractIntent: &intent})
		if model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(model.ErrorMessage(err), "WEBACQ_LLM_PROVIDER") {
			t.Fatalf("register: %v, want bad_request naming WEBACQ_LLM_PROVIDER", err)
		}
		if ms, err := e.st.Monitors(ctx, e.ws.ID, time.Time{}, 10); err != nil || len(ms) != 0 {
			t.Errorf("monitors after the refusal: %d, %v", len(ms), err)
		}
	})
}
