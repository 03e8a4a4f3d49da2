package monitor_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// The rules of DECISIONS.md, Monitors, "What is watched", checked through
// real runs against a local site on both stores.

// article is a news page: navigation, an article of paragraphs, an aside
// and a footer; paras are the article's paragraphs.
func article(paras ...string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>City news</title></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/city">City</a> <a href="/sport">Sport</a></nav>
<main><article class="story"><h1>Warehouse fire on the river bank</h1>`)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>\n", p)
	}
	b.WriteString(`</article></main>
<aside class="sidebar"><h2>Most read</h2><ul><li><a href="/a">Council votes on the new bridge</a></li></ul></aside>
<footer><p>© 2026 City News · 4,210 readers today</p></footer></body></html>`)
	return b.String()
}

var story = []string{
	"A fire broke out on Tuesday night in a disused warehouse on the east bank of the river.",
	"Firefighters brought the blaze under control after four hours; nobody was hurt.",
	"Investigators are trying to establish whether the fire was started on purpose.",
	"Residents of the nearby streets were asked to keep their windows closed overnight.",
}

// removedSignal tells whether a run's change_signal holds the removal of
// a text holding want (to: null).
func removedSignal(ss []model.Signal, want string) bool {
	for _, s := range ss {
		if s.Field == "text" && s.To == nil && s.From != nil && strings.Contains(*s.From, want) {
			return true
		}
	}
	return false
}

// TestKeywordGoneIsAnAlertingError: the only paragraph with the keyword
// goes, and the keyword with it: the run is an error with the reason,
// compares nothing (top_score null) and alerts.
func TestKeywordGoneIsAnAlertingError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		rcv := &receiver{}
		hook := httptest.NewServer(rcv)
		defer hook.Close()
		withWebhook(t, e, hook.URL, "0123456789abcdef0123")
		site := newSite(t)
		site.set("/news", article(story...))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/news"), DiscoveryKeywords: []string{"investigators"}})
		if r := e.runs(t, id, 1)[0]; r.Outcome != model.OutcomeAnchored || r.TopScore == nil || *r.TopScore != 100 {
			t.Fatalf("first run: %s score %v (%s), want anchored 100", r.Outcome, scoreOf(r), r.Error)
		}
		site.set("/news", article(story[0], story[1], story[3]))
		r := e.check(t, id)
		if r.Outcome != model.OutcomeError || r.Error != monitor.ErrKeywordsMatchedNothing || r.TopScore != nil {
			t.Fatalf("keyword gone: %s %q score %v, want error %q, score null", r.Outcome, r.Error, scoreOf(r),
				monitor.ErrKeywordsMatchedNothing)
		}
		p := webhookOf(t, e, r)
		if p == nil || p["outcome"] != model.OutcomeError || p["error"] != monitor.ErrKeywordsMatchedNothing {
			t.Errorf("keyword gone: alert %v, want an error alert with the reason", p)
		} else if v, ok := p["top_score"]; !ok || v != nil {
			t.Errorf("keyword gone: alert top_score %v (present %v), want null", v, ok)
		}
	})
}

// TestKeywordBlockRemovedIsChanged: the paragraph with the keyword goes
// while the keyword remains in another paragraph: changed, with a removal
// signal (to: null). A paragraph without the keyword going stays quiet.
func TestKeywordBlockRemovedIsChanged(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		site := newSite(t)
		paras := append([]string(nil), story...)
		paras = append(paras, "The fire brigade said the warehouse had no working alarm.")
		site.set("/news", article(paras...))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/news"), DiscoveryKeywords: []string{"fire"}})
		e.runs(t, id, 1)

		site.set("/news", article(paras[0], paras[1], paras[3], paras[4]))
		r := e.check(t, id)
		if r.Outcome != model.OutcomeChanged || !removedSignal(r.ChangeSignal, "started on purpose") {
			t.Fatalf("keyword paragraph removed: %s suppressed %v signals %+v (%s), want changed with a removal",
				r.Outcome, r.Suppressed, r.ChangeSignal, r.Error)
		}
		site.set("/news", article(paras[0], paras[1], paras[4]))
		if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged || !r.Suppressed {
			t.Errorf("paragraph without keyword removed: %s suppressed %v, want unchanged, suppressed", r.Outcome, r.Suppressed)
		}
	})
}

// TestNewKeywordBlockBesideAnother: the keyword occurs in several regions
// (a list of releases and an intro); a new paragraph with it beside the
// intro's is changed.
func TestNewKeywordBlockBesideAnother(t *testing.T) {
	t.Parallel()
	page := func(extra string) string {
		return press("Nov 1, 2026", `<main><section class="intro"><h1>Investors</h1>
<p>Our quarterly results are published here on the day they are released.</p>`+extra+`</section>
<div class="news"><ul class="releases">
<li><a href="/pr/q1.html">Acme reports first quarter results</a> <span>May 1, 2026</span></li>
<li><a href="/pr/q2.html">Acme reports second quarter results</a> <span>Aug 1, 2026</span></li>
<li><a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 1, 2026</span></li>
</ul></div></main>`, "1")
	}
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/ir", page(""))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"}})
		e.runs(t, id, 1)
		site.set("/ir", page(`<p>A conference call on the results follows at 10:00 Eastern.</p>`))
		if r := e.check(t, id); r.Outcome != model.OutcomeChanged || !signalMentions(r.ChangeSignal, "conference call") {
			t.Errorf("new keyword paragraph: %s suppressed %v signals %+v, want changed", r.Outcome, r.Suppressed, r.ChangeSignal)
		}
	})
}

// TestRestructureNeverNarrowsTheWatch is the case: the list of
// releases becomes one card, comes back, and later releases are changed,
// each one.
func TestRestructureNeverNarrowsTheWatch(t *testing.T) {
	t.Parallel()
	releases := []string{
		`<a href="/pr/q1.html">Acme reports first quarter results</a> <span>May 1, 2026</span>`,
		`<a href="/pr/q2.html">Acme reports second quarter results</a> <span>Aug 1, 2026</span>`,
		`<a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 1, 2026</span>`,
	}
	list := func(items ...string) string {
		return press("Nov 1, 2026", `<main><h1>Press releases</h1><ul class="releases"><li>`+
			strings.Join(items, "</li>\n<li>")+`</li></ul></main>`, "1")
	}
	card := press("Nov 1, 2026", `<main><div class="hero"><div class="card"><h2>Latest</h2><p>`+releases[2]+
		`</p><a href="/pr/">All releases</a></div></div></main>`, "1")
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/ir", list(releases...))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"}})
		e.runs(t, id, 1)

		site.set("/ir", card)
		if r := e.check(t, id); r.Outcome == model.OutcomeUnchanged {
			t.Errorf("one-card layout: %s, want an alert", r.Outcome)
		}
		if r := e.check(t, id); r.Outcome == model.OutcomeRelocationFailed {
			// Anchored afresh on the card, as after relocation_failed.
			t.Logf("re-anchored: %s", r.Outcome)
		}
		site.set("/ir", list(releases...))
		if r := e.check(t, id); r.Outcome != model.OutcomeChanged {
			t.Errorf("list restored: %s, want changed", r.Outcome)
		}
		items := append([]string(nil), releases...)
		for i, title := range []string{"Acme reports full year results", "Acme reports first quarter 2027 results"} {
			items = append([]string{fmt.Sprintf(`<a href="/pr/n%d.html">%s</a> <span>Feb %d, 2027</span>`, i, title, i+1)}, items...)
			site.set("/ir", list(items...))
			if r := e.check(t, id); r.Outcome != model.OutcomeChanged || !signalMentions(r.ChangeSignal, strings.ToLower(title)) {
				t.Errorf("new release %q: %s score %v signals %+v, want changed", title, r.Outcome, scoreOf(r), r.ChangeSignal)
			}
		}
	})
}

// TestErrorRunHasNoScore: a run that compared nothing (the site answers
// 404) has top_score null; so has the monitor after it.
func TestErrorRunHasNoScore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir")})
		e.runs(t, id, 1)
		site.mu.Lock()
		delete(site.pages, "/ir")
		site.mu.Unlock()
		r := e.check(t, id)
		if r.Outcome != model.OutcomeError || r.TopScore != nil {
			t.Errorf("404: %s score %v, want error without score", r.Outcome, scoreOf(r))
		}
		m, err := e.st.Monitor(t.Context(), e.ws.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.TopScore != nil {
			t.Errorf("monitor top_score %v after an error run, want null", *m.TopScore)
		}
	})
}

// TestStoredRegionBecomesAScope: a monitor anchored before keyword scopes
// (its anchor one list, as the monitor that watched a single
// release) still relocates and alerts on a change of its list, and from
// that run on watches every keyword block: a new paragraph with the
// keyword outside the list is changed.
func TestStoredRegionBecomesAScope(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := t.Context()
		e := newEnv(t, dialect)
		site := newSite(t)
		page := func(intro, item string) string {
			return press("Nov 1, 2026", `<main><section class="intro"><h1>Investors</h1><p>Welcome to our investor pages.</p>`+intro+
				`</section><ul class="releases">`+item+`
<li><a href="/pr/q1.html">Acme reports first quarter results</a> <span>May 1, 2026</span></li>
<li><a href="/pr/q2.html">Acme reports second quarter results</a> <span>Aug 1, 2026</span></li>
</ul></main>`, "1")
		}
		site.set("/ir", page("", ""))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"}})
		e.runs(t, id, 1)
		legacy := fmt.Sprintf(`{"path":"html>body>main>ul","tag":"ul","classes":["releases"],"blocks":[`+
			`{"text":"Acme reports first quarter results May 1, 2026","href":"%s"},`+
			`{"text":"Acme reports second quarter results Aug 1, 2026","href":"%s"}],"keywords":["results"],"hash":"x"}`,
			site.url("/pr/q1.html"), site.url("/pr/q2.html"))
		if err := e.st.InTx(ctx, func(tx store.Tx) error {
			m, err := e.st.MonitorTx(ctx, tx, id)
			if err != nil {
				return err
			}
			m.Anchor, m.BodyHash, m.ETag = json.RawMessage(legacy), "", ""
			return e.st.UpdateMonitor(ctx, tx, m)
		}); err != nil {
			t.Fatal(err)
		}
		site.set("/ir", page("", `<li><a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 1, 2026</span></li>`))
		if r := e.check(t, id); r.Outcome != model.OutcomeChanged || !signalMentions(r.ChangeSignal, "third quarter") {
			t.Fatalf("stored region, new release: %s signals %+v (%s), want changed", r.Outcome, r.ChangeSignal, r.Error)
		}
		site.set("/ir", page(`<p>Our results calendar for 2027 is online.</p>`,
			`<li><a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 1, 2026</span></li>`))
		if r := e.check(t, id); r.Outcome != model.OutcomeChanged || !signalMentions(r.ChangeSignal, "calendar") {
			t.Errorf("keyword paragraph outside the stored list: %s signals %+v, want changed", r.Outcome, r.ChangeSignal)
		}
	})
}
