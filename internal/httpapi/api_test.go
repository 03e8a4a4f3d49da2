package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/config"
	"webacq/internal/fetch"
	"webacq/internal/httpapi"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var ctx = context.Background()

type env struct {
	t      *testing.T
	url    string
	dbURL  string // of the store
	store  *store.Store
	ws     *model.Workspace
	key    string
	prefix string
	logs   *bytes.Buffer
	biller *billing.Biller
	prims  *primitive.Service
	mon    *monitor.Service // set by newExtractEnv
}

func newEnv(t *testing.T, dialect string, mutate ...func(*config.Config)) *env {
	t.Helper()
	e := newBenchEnv(t, dialect, mutate...)
	e.t = t
	return e
}

// withChromium gives the environment a browser tier, or skips the test
// where no Chromium is installed (CI installs it: scripts/setup.sh).
func withChromium(t testing.TB) func(*config.Config) {
	path := fetch.FindChromium()
	if path == "" {
		t.Skip("no chromium on PATH")
	}
	return func(c *config.Config) { c.Chromium = path }
}

// testConfig is the configuration of a test node: no access log, loopback
// sites allowed (the test sites listen on 127.0.0.1), no browser tier
// unless a test asks (withChromium).
func testConfig(t testing.TB) *config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		if k == "WEBACQ_ACCESS_LOG" {
			return "0"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.AllowPrivate, cfg.Chromium = true, ""
	return cfg
}

func newBenchEnv(t testing.TB, dialect string, mutate ...func(*config.Config)) *env {
	t.Helper()
	dbURL := storetest.URL(t, dialect)
	s, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cfg := testConfig(t)
	for _, m := range mutate {
		m(cfg)
	}
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	b := billing.New(s, log)
	prims := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: cfg.AllowPrivate}), Pages: s, Log: log, UserAgent: "webacq",
		Searcher: primitive.NewLocalSearch(s)}
	if cfg.Chromium != "" {
		prims.Browser = fetch.NewBrowser(fetch.Config{AllowPrivate: cfg.AllowPrivate, ChromiumPath: cfg.Chromium, BrowserTabs: 2})
		t.Cleanup(func() { prims.Browser.Close() })
	}
	srv := httptest.NewServer(httpapi.New(cfg, s, b, billed.New(b, prims), log))
	t.Cleanup(func() { srv.Close(); b.Close() })
	w, err := s.CreateWorkspace(ctx, "acme", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	key, k, err := s.CreateKey(ctx, w.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return &env{url: srv.URL, dbURL: dbURL, store: s, ws: w, key: key, prefix: k.Prefix, logs: logs, biller: b, prims: prims}
}

type answer struct {
	status int
	header http.Header
	OK     bool            `json:"ok"`
	Data   json.RawMessage `json:"data"`
	Error  string          `json:"error"`
	Code   string          `json:"code"`
}

func (e *env) do(method, path string, body io.Reader, header ...string) answer {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header}
	if err := json.Unmarshal(raw, &a); err != nil {
		e.t.Fatalf("%s %s: body is not the JSON envelope: %q", method, path, raw)
	}
	if res.Header.Get("X-Request-Id") == "" {
		e.t.Errorf("%s %s: no X-Request-Id", method, path)
	}
	return a
}

func (e *env) get(path string) answer {
	return e.do("GET", path, nil, "Authorization", "Bearer "+e.key)
}

func (e *env) usageRows() []model.Usage {
	e.t.Helper()
	e.biller.Flush(ctx)
	us, err := e.store.Usage(ctx, e.ws.ID, model.LogFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	return us
}

func (e *env) activity() []model.Activity {
	e.t.Helper()
	e.biller.Flush(ctx)
	as, err := e.store.Activity(ctx, e.ws.ID, model.LogFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	return as
}

func wantError(t *testing.T, a answer, status int, code string) {
	t.Helper()
	if a.status != status || a.OK || a.Code != code || a.Error == "" {
		t.Fatalf("got %d %+v, want %d with code %q and a message", a.status, a, status, code)
	}
}

func TestHealthWithZeroCredits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		a := e.get("/api/v1/health")
		if a.status != 200 || !a.OK || string(a.Data) != `{"status":"ok"}` {
			t.Fatalf("health = %d %s", a.status, a.Data)
		}
		us := e.usageRows()
		if len(us) != 1 || us[0].Credits != 0 || us[0].Endpoint != "/api/v1/health" || us[0].KeyPrefix != e.prefix || us[0].Status != 200 {
			t.Fatalf("usage rows = %+v", us)
		}
		as := e.activity()
		if len(as) != 1 || as[0].Via != "http" || as[0].Method != "GET" || as[0].RequestID != us[0].RequestID {
			t.Fatalf("activity rows = %+v", as)
		}
	})
}

func TestAuthRules(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		cases := []struct {
			name   string
			path   string
			header []string
			body   string
		}{
			{"missing", "/api/v1/health", nil, ""},
			{"basic auth", "/api/v1/health", []string{"Authorization", "Basic " + basic(e.key)}, ""},
			{"basic auth with key as user", "/api/v1/health", []string{"Authorization", "Basic " + basic(e.key+":")}, ""},
			{"raw key without scheme", "/api/v1/health", []string{"Authorization", e.key}, ""},
			{"x-api-key is MCP only", "/api/v1/health", []string{"X-API-Key", e.key}, ""},
			{"query string", "/api/v1/health?api_key=" + e.key, nil, ""},
			{"query string key", "/api/v1/health?key=" + e.key, nil, ""},
			{"path", "/api/v1/health/" + e.key, nil, ""},
			{"body", "/api/v1/keys", []string{"Content-Type", "application/json"}, `{"api_key":"` + e.key + `"}`},
			{"no mc_ prefix", "/api/v1/health", []string{"Authorization", "Bearer sk_" + e.key[3:]}, ""},
			{"empty bearer", "/api/v1/health", []string{"Authorization", "Bearer "}, ""},
			{"unknown key", "/api/v1/health", []string{"Authorization", "Bearer " + model.NewKey()}, ""},
			{"key with junk", "/api/v1/health", []string{"Authorization", "Bearer " + e.key + "'--"}, ""},
			{"cookie", "/api/v1/health", []string{"Cookie", "api_key=" + e.key}, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				method := "GET"
				var body io.Reader
				if c.body != "" {
					method, body = "POST", strings.NewReader(c.body)
				}
				a := e.do(method, c.path, body, c.header...)
				wantError(t, a, 401, "unauthorized")
				if !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("no WWW-Authenticate: Bearer challenge")
				}
			})
		}
		if us := e.usageRows(); len(us) != 0 {
			t.Fatalf("failed auth wrote %d usage rows", len(us))
		}
		if as := e.activity(); len(as) != 0 {
			t.Fatalf("failed auth wrote %d activity rows", len(as))
		}
		// Scheme names are case-insensitive (RFC 9110).
		if a := e.do("GET", "/api/v1/health", nil, "Authorization", "bearer "+e.key); a.status != 200 {
			t.Fatalf("lower-case bearer: %d", a.status)
		}
	})
}

// A value without mc_ is refused before any lookup: even with the database
// gone it is a 401, while a well-formed key then meets the database error.
func TestPrefixCheckedBeforeLookup(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.Close()
	wantError(t, e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer sk_abc"), 401, "unauthorized")
	a := e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer "+e.key)
	wantError(t, a, 503, "unavailable")
	if strings.Contains(strings.ToLower(a.Error), "sql") || strings.Contains(a.Error, "closed") {
		t.Fatalf("internal detail leaked: %q", a.Error)
	}
	if !strings.Contains(e.logs.String(), "request_id=") || !strings.Contains(e.logs.String(), "closed") {
		t.Fatalf("internal error not logged with its request id:\n%s", e.logs.String())
	}
}

func TestRevokedKeyFailsOnNextRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		other, _, _ := e.store.CreateKey(ctx, e.ws.ID, "other")
		if a := e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer "+other); a.status != 200 {
			t.Fatalf("other key: %d", a.status)
		}
		a := e.do("DELETE", "/api/v1/keys/"+model.KeyDisplayPrefix(other), nil, "Authorization", "Bearer "+e.key)
		if a.status != 200 {
			t.Fatalf("revoke: %d %s", a.status, a.Error)
		}
		wantError(t, e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer "+other), 401, "unauthorized")
		// Usage can be filtered by the revoked key's prefix.
		a = e.get("/api/v1/usage?key_prefix=" + model.KeyDisplayPrefix(other))
		var page struct{ Usage []model.Usage }
		json.Unmarshal(a.Data, &page)
		if len(page.Usage) != 1 || page.Usage[0].KeyPrefix != model.KeyDisplayPrefix(other) {
			t.Fatalf("usage of revoked key = %+v", page.Usage)
		}
		// A key of another workspace cannot be revoked from here.
		w2, _ := e.store.CreateWorkspace(ctx, "w2", 0, false)
		k2, _, _ := e.store.CreateKey(ctx, w2.ID, "x")
		wantError(t, e.do("DELETE", "/api/v1/keys/"+model.KeyDisplayPrefix(k2), nil, "Authorization", "Bearer "+e.key), 404, "not_found")
	})
}

func TestCreateKeyOverAPI(t *testing.T) {
	e := newEnv(t, store.SQLite)
	a := e.do("POST", "/api/v1/keys", strings.NewReader(`{"name":"ci"}`), "Authorization", "Bearer "+e.key)
	var k struct {
		Key    string `json:"key"`
		Prefix string `json:"prefix"`
	}
	json.Unmarshal(a.Data, &k)
	if a.status != 200 || !model.WellFormedKey(k.Key) || k.Prefix != k.Key[:12] {
		t.Fatalf("create key = %d %s", a.status, a.Data)
	}
	if a := e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer "+k.Key); a.status != 200 {
		t.Fatalf("new key refused: %d", a.status)
	}
	a = e.get("/api/v1/keys")
	if strings.Contains(string(a.Data), k.Key) || strings.Contains(string(a.Data), model.HashKey(k.Key)) {
		t.Fatal("key list shows a key or its hash")
	}
}

func TestErrorEnvelopes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		auth := []string{"Authorization", "Bearer " + e.key}
		json := append([]string{"Content-Type", "application/json"}, auth...)
		wantError(t, e.do("GET", "/api/v1/nope", nil, auth...), 404, "not_found")
		wantError(t, e.do("GET", "/api/v1", nil, auth...), 404, "not_found")
		a := e.do("POST", "/api/v1/health", nil, auth...)
		wantError(t, a, 405, "bad_request")
		if a.header.Get("Allow") != "GET" {
			t.Errorf("Allow = %q, want GET", a.header.Get("Allow"))
		}
		wantError(t, e.do("PUT", "/api/v1/keys", nil, auth...), 405, "bad_request")
		big := strings.NewReader(`{"name":"` + strings.Repeat("a", 2<<20) + `"}`)
		wantError(t, e.do("POST", "/api/v1/keys", big, json...), 413, "bad_request")
		// The same body without a Content-Length (chunked) is cut at 1 MiB.
		chunked := io.MultiReader(strings.NewReader(`{"name":"`), strings.NewReader(strings.Repeat("a", 2<<20)), strings.NewReader(`"}`))
		wantError(t, e.do("POST", "/api/v1/keys", chunked, json...), 413, "bad_request")
		for name, body := range map[string]string{
			"malformed":     `{"name":`,
			"not JSON":      `name=x`,
			"wrong type":    `{"name":42}`,
			"array":         `[{"name":"x"}]`,
			"unknown field": `{"name":"x","nmae":"y"}`,
			"two objects":   `{"name":"x"}{"name":"y"}`,
			"empty":         ``,
			"missing name":  `{}`,
		} {
			t.Run(name, func(t *testing.T) {
				wantError(t, e.do("POST", "/api/v1/keys", strings.NewReader(body), json...), 400, "bad_request")
			})
		}
		for _, ct := range []string{"multipart/form-data; boundary=x", "image/png", "nonsense/"} {
			wantError(t, e.do("POST", "/api/v1/keys", strings.NewReader(`{"name":"x"}`), append([]string{"Content-Type", ct}, auth...)...), 400, "bad_request")
		}
		wantError(t, e.get("/api/v1/usage?limit=0"), 400, "bad_request")
		wantError(t, e.get("/api/v1/usage?limit=abc"), 400, "bad_request")
		wantError(t, e.get("/api/v1/activity?since=yesterday"), 400, "bad_request")
		// Every one of these authenticated calls is on the ledger at 0 credits.
		for _, u := range e.usageRows() {
			if u.Credits != 0 || u.Status < 400 {
				t.Fatalf("row %+v, want an error status with 0 credits", u)
			}
		}
		// A JSON body is read as JSON under the types shells send by default
		// (curl -d sends a form type); other types are refused (issue 22).
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "text/plain; charset=utf-8"} {
			if a := e.do("POST", "/api/v1/keys", strings.NewReader(`{"name":"pasted"}`), append([]string{"Content-Type", ct}, auth...)...); a.status != 200 {
				t.Fatalf("a JSON body sent as %s: %d %s", ct, a.status, a.Error)
			}
		}
		if a := e.do("POST", "/api/v1/keys", strings.NewReader(`name=x`), append([]string{"Content-Type", "application/x-www-form-urlencoded"}, auth...)...); a.status != 400 ||
			!strings.Contains(a.Error, "Content-Type: application/json") {
			t.Fatalf("a form body: %d %q, want 400 saying to send JSON", a.status, a.Error)
		}
	})
}

func TestCreditsAndLogs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		e.store.AddCredits(ctx, e.ws.ID, 25)
		for i := 0; i < 3; i++ {
			e.get("/api/v1/health")
		}
		e.get("/api/v1/nope")
		a := e.get("/api/v1/credits")
		if a.status != 200 || string(a.Data) != `{"balance":25,"spent_24h":0,"spent_30d":0}` {
			t.Fatalf("credits = %d %s", a.status, a.Data)
		}
		var up struct {
			Usage      []model.Usage `json:"usage"`
			NextBefore *string       `json:"next_before"`
		}
		a = e.get("/api/v1/usage?endpoint=/api/v1/health&limit=2")
		json.Unmarshal(a.Data, &up)
		if len(up.Usage) != 2 || up.NextBefore == nil {
			t.Fatalf("usage page = %s", a.Data)
		}
		a = e.get("/api/v1/usage?endpoint=/api/v1/health&limit=2&before=" + *up.NextBefore)
		json.Unmarshal(a.Data, &up)
		if len(up.Usage) != 1 {
			t.Fatalf("second usage page = %s", a.Data)
		}
		var ap struct {
			Activity []model.Activity `json:"activity"`
		}
		a = e.get("/api/v1/activity?endpoint=/api/v1/nope")
		json.Unmarshal(a.Data, &ap)
		if len(ap.Activity) != 1 || ap.Activity[0].ErrorCode != "not_found" || ap.Activity[0].Status != 404 {
			t.Fatalf("activity = %s", a.Data)
		}
	})
}

func TestCanonicalHostRedirect(t *testing.T) {
	e := newEnv(t, store.SQLite, func(c *config.Config) { c.CanonicalHost = "www.example.test" })
	req, _ := http.NewRequest("GET", e.url+"/api/v1/health?x=1", nil)
	req.Header.Set("Authorization", "Bearer "+e.key)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 307 || res.Header.Get("Location") != "http://www.example.test/api/v1/health?x=1" {
		t.Fatalf("got %d to %q, want 307 to the canonical host", res.StatusCode, res.Header.Get("Location"))
	}
	if us := e.usageRows(); len(us) != 0 {
		t.Fatal("a redirected call was logged as usage")
	}
}
