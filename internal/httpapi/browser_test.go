package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"webacq/internal/model"
	"webacq/internal/store"
)

const jsShell = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
document.getElementById('root').innerHTML = '<article><h1>Rendered by script</h1>' +
  '<p>This paragraph exists only after JavaScript runs in a real browser, which the HTTP tier cannot do. ' +
  'It carries enough words to count as real content for the verdict, so the fetch is judged usable.</p>' +
  '<p>A second paragraph adds more text about the quarterly figures that the agent wanted to read.</p></article>';
</script></body></html>`

// cookieWall shows its content only after the terms are accepted, as many
// investor-relations sites do.
const cookieWall = `<!doctype html><html><head><title>Terms</title></head><body>
<div id="banner"><p>Please accept our terms of use to continue.</p><button id="accept" onclick="accept()">Accept all</button></div>
<div id="content"></div>
<script>
function accept() {
  document.getElementById('banner').remove();
  document.getElementById('content').innerHTML = '<article><h1>Press release</h1><p>The board approved a special dividend of two dollars per share, ' +
    'payable next month to shareholders of record, the company announced today.</p>' +
    '<p>The dividend reflects strong cash generation during the year and confidence in the outlook for the business.</p></article>';
}
</script></body></html>`

func TestFetchAutoEscalatesToBrowser(t *testing.T) {
	e := newEnv(t, store.SQLite, withChromium(t))
	e.store.AddCredits(ctx, e.ws.ID, 10)
	s := newSite(t, map[string]http.HandlerFunc{"/app": page(jsShell)})
	a := e.post("/api/v1/fetch", `{"url":"`+s.URL+`/app"}`)
	if a.status != 200 {
		t.Fatalf("fetch: %d %s", a.status, a.Error)
	}
	r := decodeFetch(t, a)
	if !strings.Contains(*r.Markdown, "exists only after JavaScript runs") || r.Tier != "browser" {
		t.Fatalf("tier %s markdown:\n%s", r.Tier, *r.Markdown)
	}
	if len(r.Trace) != 2 || r.Trace[0].Tier != "http" || r.Trace[0].Verdict != "js_required" || r.Trace[1].Tier != "browser" {
		t.Fatalf("trace %+v", r.Trace)
	}
	if got := e.balance(); got != 7 {
		t.Fatalf("balance %d, want 7 (one browser fetch)", got)
	}
	if us := e.usageRows(); us[0].Tier != model.TierBrowser || us[0].Credits != 3 {
		t.Fatalf("usage %+v", us[0])
	}
	// The same page on the HTTP tier alone is an empty shell, billed 1.
	a = e.post("/api/v1/fetch", `{"url":"`+s.URL+`/app","tier":"http"}`)
	if r := decodeFetch(t, a); r.Verdict != "js_required" || strings.Contains(*r.Markdown, "exists only after") {
		t.Fatalf("http tier: verdict %s", r.Verdict)
	}
	if got := e.balance(); got != 6 {
		t.Fatalf("balance %d, want 6", got)
	}
}

func TestFetchBrowserAcceptSelectors(t *testing.T) {
	e := newEnv(t, store.SQLite, withChromium(t))
	e.store.AddCredits(ctx, e.ws.ID, 10)
	s := newSite(t, map[string]http.HandlerFunc{"/pr": page(cookieWall)})
	a := e.post("/api/v1/fetch", `{"url":"`+s.URL+`/pr","tier":"browser"}`)
	if r := decodeFetch(t, a); strings.Contains(*r.Markdown, "special dividend") {
		t.Fatalf("content visible before the banner was accepted:\n%s", *r.Markdown)
	}
	a = e.post("/api/v1/fetch", `{"url":"`+s.URL+`/pr","tier":"browser","accept_selectors":["#accept"]}`)
	r := decodeFetch(t, a)
	if a.status != 200 || !strings.Contains(*r.Markdown, "special dividend of two dollars") || r.Tier != "browser" {
		t.Fatalf("after accept: %d %s\n%v", a.status, a.Error, r.Markdown)
	}
	if got := e.balance(); got != 4 {
		t.Fatalf("balance %d, want 4 (two browser fetches)", got)
	}
}
