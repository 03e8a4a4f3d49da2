package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/config"
	"webacq/internal/content/contenttest"
	"webacq/internal/porttest"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

const article = `<!doctype html><html lang="en"><head><title>Quarterly results</title>
<meta name="description" content="Acme reports its third quarter.">
<link rel="canonical" href="/results"></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Acme reports record third quarter</h1>
<p>Revenue grew to 12.4 million dollars, up 18 percent from a year earlier, the company said on Tuesday in its quarterly report to shareholders.</p>
<p>Operating margin improved to 21 percent as the company reduced costs across its manufacturing plants and renegotiated supplier contracts.</p>
<h2>Outlook</h2><ul><li>Guidance raised for the full year</li><li>New plant opens in <a href="/plants/ohio">Ohio</a></li></ul>
<table><tr><th>Quarter</th><th>Revenue</th></tr><tr><td>Q3</td><td>12.4</td></tr></table>
</article><footer>Copyright Acme</footer></body></html>`

// site is a real HTTP server on 127.0.0.1 that counts what it serves.
type site struct {
	*httptest.Server
	hits atomic.Int64
}

func newSite(t *testing.T, routes map[string]http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func page(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

func (e *env) post(path, body string) answer {
	e.t.Helper()
	return e.do("POST", path, strings.NewReader(body), "Authorization", "Bearer "+e.key, "Content-Type", "application/json")
}

func (e *env) balance() int64 {
	e.t.Helper()
	w, err := e.store.Workspace(ctx, e.ws.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return w.Credits
}

func decodeFetch(t *testing.T, a answer) primitive.FetchResult {
	t.Helper()
	var r primitive.FetchResult
	if err := json.Unmarshal(a.Data, &r); err != nil {
		t.Fatalf("fetch data: %v: %s", err, a.Data)
	}
	return r
}

func TestFetchPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 10)
		s := newSite(t, map[string]http.HandlerFunc{"/q3": page(article)})
		a := e.post("/api/v1/fetch", `{"url":"`+s.URL+`/q3","formats":["markdown","links","text"],"tier":"http"}`)
		if a.status != 200 {
			t.Fatalf("fetch: %d %s", a.status, a.Error)
		}
		r := decodeFetch(t, a)
		md := *r.Markdown
		for _, want := range []string{"# Acme reports record third quarter", "Revenue grew to 12.4 million", "## Outlook",
			"- Guidance raised", "[Ohio](" + s.URL + "/plants/ohio)", "| Quarter | Revenue |"} {
			if !strings.Contains(md, want) {
				t.Errorf("markdown lacks %q:\n%s", want, md)
			}
		}
		if strings.Contains(md, "Copyright Acme") {
			t.Errorf("main content kept the footer:\n%s", md)
		}
		if r.Title != "Quarterly results" || r.Description != "Acme reports its third quarter." || r.Language != "en" ||
			r.StatusCode != 200 || r.Tier != "http" || r.Verdict != "ok" || r.ContentType != "text/html" ||
			r.Metadata.Canonical != s.URL+"/results" || len(r.Trace) != 1 || r.Text == nil || len(r.Links) < 3 {
			t.Errorf("result fields: %+v", r)
		}
		if got := e.balance(); got != 9 {
			t.Fatalf("balance %d, want 9 (one HTTP fetch)", got)
		}
		us := e.usageRows()
		if len(us) != 1 || us[0].Credits != 1 || us[0].Tier != "http" || us[0].Endpoint != "/api/v1/fetch" {
			t.Fatalf("usage %+v", us)
		}
		as := e.activity()
		if as[0].Target != s.URL+"/q3" || as[0].Via != "http" || as[0].Credits != 1 {
			t.Fatalf("activity %+v", as[0])
		}
	})
}

func TestFetchFailuresAreRefunded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 5)
		deadURL := "http://" + porttest.Refusing(t)
		s := newSite(t, map[string]http.HandlerFunc{
			"/boom": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", 500) },
			"/slow": func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			"/challenge": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(403)
				fmt.Fprint(w, `<html><head><title>Just a moment...</title></head><body><div id="cf-chl-widget">Checking your browser before accessing the site.</div><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>`)
			},
			"/broken.pdf": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/pdf")
				w.Write([]byte("%PDF-1.4\nthis is not a pdf\n%%EOF\n"))
			},
		})
		cases := []struct {
			name, body string
			status     int
			code       string
		}{
			{"connection refused", `{"url":"` + deadURL + `/x"}`, 502, "upstream_error"},
			{"server error", `{"url":"` + s.URL + `/boom"}`, 502, "upstream_error"},
			{"timeout", `{"url":"` + s.URL + `/slow","timeout":300}`, 504, "timeout"},
			{"bot challenge", `{"url":"` + s.URL + `/challenge","tier":"http"}`, 502, "upstream_error"},
			{"broken pdf", `{"url":"` + s.URL + `/broken.pdf"}`, 502, "upstream_error"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantError(t, e.post("/api/v1/fetch", c.body), c.status, c.code)
			})
		}
		if got := e.balance(); got != 5 {
			t.Fatalf("balance %d after failed fetches, want 5", got)
		}
		for _, u := range e.usageRows() {
			if u.Credits != 0 || u.Status < 400 {
				t.Fatalf("failed fetch on the ledger as %+v", u)
			}
		}
	})
}

func TestFetchPDF(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 5)
	s := newSite(t, map[string]http.HandlerFunc{"/report.pdf": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(contenttest.PDF("Annual Report", [][]string{{"Net income rose sharply."}, {"Dividend maintained."}}))
	}})
	a := e.post("/api/v1/fetch", `{"url":"`+s.URL+`/report.pdf"}`)
	if a.status != 200 {
		t.Fatalf("pdf: %d %s", a.status, a.Error)
	}
	r := decodeFetch(t, a)
	if !strings.Contains(*r.Markdown, "Net income rose sharply.") || r.Title != "Annual Report" || r.ContentType != "application/pdf" {
		t.Fatalf("pdf result %+v", r)
	}
}

func TestFetchValidation(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 5)
	for name, body := range map[string]string{
		"no url":          `{}`,
		"empty url":       `{"url":""}`,
		"relative url":    `{"url":"/path"}`,
		"ftp":             `{"url":"ftp://example.com/x"}`,
		"javascript":      `{"url":"javascript:alert(1)"}`,
		"no host":         `{"url":"http:///x"}`,
		"url not string":  `{"url":42}`,
		"formats string":  `{"url":"http://example.com","formats":"markdown"}`,
		"unknown format":  `{"url":"http://example.com","formats":["pdf"]}`,
		"bad tier":        `{"url":"http://example.com","tier":"fast"}`,
		"negative wait":   `{"url":"http://example.com","waitFor":-1}`,
		"huge timeout":    `{"url":"http://example.com","timeout":99999999}`,
		"negative maxAge": `{"url":"http://example.com","maxAge":-5}`,
		"header newline":  `{"url":"http://example.com","headers":{"X-A":"b\r\nHost: evil"}}`,
		"host header":     `{"url":"http://example.com","headers":{"Host":"evil"}}`,
		"long url":        `{"url":"http://example.com/` + strings.Repeat("a", 9000) + `"}`,
		"unknown field":   `{"url":"http://example.com","onlyMain":true}`,
		"userinfo":        `{"url":"http://user:pass@example.com/"}`,
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, e.post("/api/v1/fetch", body), 400, "bad_request")
		})
	}
	if got := e.balance(); got != 5 {
		t.Fatalf("balance %d, want 5", got)
	}
}

// With the guard on (the default), every private or special address is
// refused at connect time and the target never sees a request.
func TestFetchSSRFGuard(t *testing.T) {
	e := newEnv(t, store.SQLite, func(c *config.Config) { c.AllowPrivate = false })
	e.store.AddCredits(ctx, e.ws.ID, 100)
	s := newSite(t, map[string]http.HandlerFunc{"/": page(article)})
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	urls := []string{
		s.URL + "/", "http://localhost:" + port + "/", "http://[::1]:" + port + "/",
		"http://10.0.0.1/", "http://172.16.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/",
		"http://100.64.0.1/", "http://[fc00::1]/", "http://[::ffff:127.0.0.1]:" + port + "/", "http://0.0.0.0:" + port + "/",
		"http://2130706433:" + port + "/", "http://0177.0.0.1:" + port + "/", "http://0x7f.0.0.1:" + port + "/",
		"http://127.1:" + port + "/",
	}
	for _, u := range urls {
		t.Run(u, func(t *testing.T) {
			wantError(t, e.post("/api/v1/fetch", `{"url":"`+u+`","tier":"http"}`), 403, "forbidden_url")
		})
	}
	if n := s.hits.Load(); n != 0 {
		t.Fatalf("the private site saw %d requests", n)
	}
	if got := e.balance(); got != 100 {
		t.Fatalf("balance %d, want 100", got)
	}
}

func TestFetchCreditsExhausted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect) // 0 credits
		s := newSite(t, map[string]http.HandlerFunc{"/": page(article)})
		wantError(t, e.post("/api/v1/fetch", `{"url":"`+s.URL+`/","tier":"http"}`), 402, "credits_exhausted")
		if n := s.hits.Load(); n != 0 {
			t.Fatalf("an unpaid fetch reached the site (%d requests)", n)
		}
		if as := e.activity(); len(as) != 1 || as[0].ErrorCode != "credits_exhausted" {
			t.Fatalf("activity %+v", as)
		}
	})
}

func TestFetchMaxAgeAnswersFromStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 10)
		s := newSite(t, map[string]http.HandlerFunc{"/q3": page(article)})
		body := `{"url":"` + s.URL + `/q3","tier":"http","maxAge":3600}`
		first := decodeFetch(t, e.post("/api/v1/fetch", body))
		second := decodeFetch(t, e.post("/api/v1/fetch", body))
		if first.Cached || !second.Cached || *second.Markdown != *first.Markdown || !second.FetchedAt.Equal(first.FetchedAt) {
			t.Fatalf("first cached=%v, second cached=%v", first.Cached, second.Cached)
		}
		if n := s.hits.Load(); n != 1 {
			t.Fatalf("site saw %d requests, want 1", n)
		}
		// Other options are another variant: fetched afresh.
		decodeFetch(t, e.post("/api/v1/fetch", `{"url":"`+s.URL+`/q3","tier":"http","maxAge":3600,"onlyMainContent":false}`))
		if n := s.hits.Load(); n != 2 {
			t.Fatalf("site saw %d requests, want 2", n)
		}
		// Another workspace never sees this workspace's copy.
		w2, _ := e.store.CreateWorkspace(ctx, "other", 5, false)
		k2, _, _ := e.store.CreateKey(ctx, w2.ID, "k")
		a := e.do("POST", "/api/v1/fetch", strings.NewReader(body), "Authorization", "Bearer "+k2)
		if r := decodeFetch(t, a); r.Cached {
			t.Fatal("another workspace was answered from this workspace's store")
		}
		if got := e.balance(); got != 7 {
			t.Fatalf("balance %d, want 7 (a stored answer costs the same)", got)
		}
	})
}
