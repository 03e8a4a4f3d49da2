package monitor_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// webhookOf returns the webhook payload of a run, or nil when the run
// wrote none, after its delivery settled.
func webhookOf(t *testing.T, e *env, run *model.Run) map[string]any {
	t.Helper()
	ctx := context.Background()
	hooks, err := e.st.RunWebhooks(ctx, []string{run.ID})
	if err != nil {
		t.Fatal(err)
	}
	h := hooks[run.ID]
	if h == nil {
		return nil
	}
	d, err := e.st.Delivery(ctx, h.DeliveryID)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(d.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEveryOutcomeFiresByTheRules: anchored, changed, relocation_failed,
// payload_too_large, blocked and error alert; unchanged and an unpaid run
// do not (spec 3.2, DECISIONS.md Monitors).
func TestEveryOutcomeFiresByTheRules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		rcv := &receiver{}
		hook := httptest.NewServer(rcv)
		defer hook.Close()
		withWebhook(t, e, hook.URL, "0123456789abcdef0123")
		site := newSite(t)

		site.set("/ir", press("x", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir")})
		runs := []*model.Run{e.runs(t, id, 1)[0], e.check(t, id)}
		site.set("/ir", press("x", strings.Replace(releasesList, `<ul class="releases">`,
			`<ul class="releases"><li><a href="/pr/q3.pdf">Acme reports third quarter results</a></li>`, 1), "1"))
		runs = append(runs, e.check(t, id))
		site.set("/ir", press("x", `<main><h1>We moved</h1><p>Our site is being rebuilt. Come back soon.</p></main>`, "1"))
		runs = append(runs, e.check(t, id))

		site.mu.Lock()
		site.sizes["/annual.pdf"] = 30 << 20
		site.mu.Unlock()
		big := e.register(t, monitor.RegisterRequest{URL: site.url("/annual.pdf"), Channels: []string{model.ChannelDirectPDF}})
		site.set("/wall", `<html><head><title>Just a moment...</title></head><body><div id="cf-challenge">Checking</div></body></html>`)
		wall := e.register(t, monitor.RegisterRequest{URL: site.url("/wall")})
		site.set("/nokw", press("x", releasesList, "1"))
		nokw := e.register(t, monitor.RegisterRequest{URL: site.url("/nokw"), DiscoveryKeywords: []string{"dividend"}})
		for _, m := range []string{big, wall, nokw} {
			runs = append(runs, e.runs(t, m, 1)[0])
		}
		poor, _ := e.st.CreateWorkspace(ctx, "poor", 0, true)
		if err := e.st.SetWebhook(ctx, poor.ID, store.WebhookConfig{URL: hook.URL}); err != nil {
			t.Fatal(err)
		}
		unpaid, err := e.svc.Register(ctx, &model.Principal{WorkspaceID: poor.ID, Monitoring: true},
			monitor.RegisterRequest{URL: site.url("/ir")})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, e.runs(t, unpaid.ID, 1)[0])

		want := []string{"anchored", "", "changed", "relocation_failed", "payload_too_large", "blocked", "error", ""}
		for i, r := range runs {
			p := webhookOf(t, e, r)
			if want[i] == "" {
				if p != nil {
					t.Errorf("run %d (%s %s) alerted: %v", i, r.Outcome, r.Error, p)
				}
				continue
			}
			if p == nil || p["outcome"] != want[i] || r.Outcome != want[i] {
				t.Errorf("run %d: outcome %s, payload %v; want a %s alert", i, r.Outcome, p, want[i])
				continue
			}
			_, sized := p["size_bytes"]
			if sized != (want[i] == "payload_too_large") {
				t.Errorf("%s: size_bytes present = %v", want[i], sized)
			}
			for _, field := range []string{"delivery_id", "monitor_id", "caller_id", "label", "url", "detected_at", "top_score",
				"channel", "change_signal", "pdf_links", "content_preview"} {
				if _, ok := p[field]; !ok {
					t.Errorf("%s: payload lacks %s", want[i], field)
				}
			}
		}
		if p := webhookOf(t, e, runs[4]); p != nil && (p["size_bytes"] != float64(30<<20) || len(p["pdf_links"].([]any)) != 1) {
			t.Errorf("payload_too_large payload %v", p)
		}
		if p := webhookOf(t, e, runs[2]); p != nil && !strings.Contains(p["content_preview"].(string), "third quarter") {
			t.Errorf("changed payload preview %q", p["content_preview"])
		}
	})
}
