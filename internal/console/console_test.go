package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/billing"
	"webacq/internal/console"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/secretbox"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
	"webacq/internal/webhook"
)

var ctx = context.Background()

const password = "correct horse 1"

type env struct {
	t           testing.TB
	st          *store.Store
	srv         *httptest.Server
	mon         *monitor.Service
	acme, rival *model.Workspace
	site        *httptest.Server
}

// newEnv serves a console on a fresh SQLite database with two workspaces,
// acme (ann's) and rival (bob's), and a monitor service whose queue only
// inserts jobs (no check runs unless a test records one).
func newEnv(t testing.TB, opts ...func(*console.Options)) *env {
	t.Helper()
	st := storetest.OpenPrepared(t, store.SQLite, "jobs", jobs.Migrate) // with the job queue's tables
	log := slog.New(slog.DiscardHandler)
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	hc := fetch.New(fetch.Config{AllowPrivate: true})
	mon := &monitor.Service{Store: st, HTTP: hc, Log: log, Timeout: 10 * time.Second,
		Alerts: &alert.Service{Store: st, HTTP: hc, Log: log, Secrets: box}}
	w := river.NewWorkers()
	mon.AddWorkers(w)
	mon.Alerts.AddWorkers(w)
	q, err := jobs.New(st, w, jobs.Config{Workers: 0, RescueAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	mon.Queue, mon.Alerts.Queue = q, q
	b := billing.New(st, log)
	t.Cleanup(b.Close)
	o := console.Options{Store: st, Biller: b, Monitors: mon, Log: log}
	for _, f := range opts {
		f(&o)
	}
	c, err := console.New(o)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, mon: mon, srv: httptest.NewServer(c)}
	t.Cleanup(e.srv.Close)
	e.site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html><body><main><h1>News</h1><p>Acme reports results</p></main></body></html>")
	}))
	t.Cleanup(e.site.Close)
	if e.acme, err = st.CreateWorkspace(ctx, "acme", 1000, true); err != nil {
		t.Fatal(err)
	}
	if e.rival, err = st.CreateWorkspace(ctx, "rival", 1000, true); err != nil {
		t.Fatal(err)
	}
	e.user("ann@example.com", e.acme)
	e.user("bob@example.com", e.rival)
	return e
}

func (e *env) user(email string, ws ...*model.Workspace) *store.User {
	e.t.Helper()
	u, err := e.st.CreateUser(ctx, email, console.HashPassword(password))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, w := range ws {
		if err := e.st.GrantWorkspace(ctx, u.ID, w.ID, store.RoleOwner); err != nil {
			e.t.Fatal(err)
		}
	}
	return u
}

// client is a browser without scripts: a cookie jar that does not follow
// redirects, so that tests see them.
type client struct {
	t   testing.TB
	e   *env
	hc  *http.Client
	jar *cookiejar.Jar
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: e.t, e: e, jar: jar, hc: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(req *http.Request) (*http.Response, string) {
	c.t.Helper()
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func (c *client) get(path string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.e.srv.URL+path, nil)
	return c.do(req)
}

// post sends a form; header holds name, value pairs.
func (c *client) post(path string, form url.Values, header ...string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.do(req)
}

// token reads the token of the form on page that posts to action.
func (c *client) token(page, action string) string {
	c.t.Helper()
	res, body := c.get(page)
	if res.StatusCode != 200 {
		c.t.Fatalf("GET %s: %d", page, res.StatusCode)
	}
	m := regexp.MustCompile(`action="` + regexp.QuoteMeta(action) + `"[^>]*>\s*<input type="hidden" name="csrf" value="([^"]+)"`).
		FindStringSubmatch(body)
	if m == nil {
		c.t.Fatalf("no form posting to %s on %s", action, page)
	}
	return m[1]
}

func (c *client) cookie(name string) string {
	u, _ := url.Parse(c.e.srv.URL + "/console/")
	for _, ck := range c.jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

func (c *client) setCookie(name, value string) {
	u, _ := url.Parse(c.e.srv.URL + "/console/")
	c.jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/console"}})
}

// signIn signs in through the form and returns the answer.
func (c *client) signIn(email, pw string) *http.Response {
	c.t.Helper()
	tok := c.token("/console/signin", "/console/signin")
	res, _ := c.post("/console/signin", url.Values{"csrf": {tok}, "email": {email}, "password": {pw}})
	return res
}

func (e *env) signedIn(email string) *client {
	e.t.Helper()
	c := e.client()
	if res := c.signIn(email, password); res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: %d", email, res.StatusCode)
	}
	return c
}

func TestSignInSessionsAndCookies(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	res, _ := c.get("/console/w/acme/keys?x=1")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/signin?next=%2Fconsole%2Fw%2Facme%2Fkeys%3Fx%3D1" {
		t.Fatalf("signed out: %d to %q, want 303 to sign in", res.StatusCode, res.Header.Get("Location"))
	}

	// A session id planted before sign-in (fixation) is never adopted.
	c.setCookie("webacq_session", "planted-by-an-attacker")
	for _, bad := range []struct{ email, pw string }{{"ann@example.com", "wrong password"}, {"nobody@example.com", password}} {
		if res := c.signIn(bad.email, bad.pw); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("sign in as %s/%s: %d, want 401", bad.email, bad.pw, res.StatusCode)
		}
	}
	res = c.signIn("Ann@Example.com ", password)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/" {
		t.Fatalf("sign in: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	var set *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "webacq_session" {
			set = ck
		}
	}
	if set == nil || !set.HttpOnly || set.SameSite != http.SameSiteLaxMode || set.Path != "/console" || set.Secure {
		t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Lax, Path=/console, not Secure over plain HTTP", set)
	}
	first := c.cookie("webacq_session")
	if first == "" || first == "planted-by-an-attacker" {
		t.Fatalf("session after sign-in = %q", first)
	}
	attacker := e.client()
	attacker.setCookie("webacq_session", "planted-by-an-attacker")
	if res, _ := attacker.get("/console/w/acme/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("planted session id opens the console: %d", res.StatusCode)
	}
	res, _ = c.get("/console/")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/w/acme/" {
		t.Fatalf("home: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, body := c.get("/console/w/acme/")
	if res.StatusCode != 200 || !strings.Contains(body, "ann@example.com") {
		t.Fatalf("overview: %d", res.StatusCode)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"} {
		if res.Header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
	if !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
		t.Errorf("page Cache-Control = %q", res.Header.Get("Cache-Control"))
	}

	// Signing in again from a browser that holds a session rotates it:
	// the old session ends.
	again := e.client()
	tok := again.token("/console/signin", "/console/signin")
	again.setCookie("webacq_session", first)
	if res, _ := again.post("/console/signin", url.Values{"csrf": {tok}, "email": {"ann@example.com"}, "password": {password}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("second sign in: %d", res.StatusCode)
	}
	if second := again.cookie("webacq_session"); second == first || second == "" {
		t.Fatal("sign-in kept the session id")
	}
	old := e.client()
	old.setCookie("webacq_session", first)
	if res, _ := old.get("/console/w/acme/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the session replaced at sign-in still works: %d", res.StatusCode)
	}
	c = again

	// An API key signs nobody in, as a password or as a bearer.
	key, _, err := e.st.CreateKey(ctx, e.acme.ID, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if res := e.client().signIn("ann@example.com", key); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("API key as password: %d", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", e.srv.URL+"/console/w/acme/", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if res, _ := e.client().do(req); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("API key as bearer: %d, want a redirect to sign in", res.StatusCode)
	}

	// Sign-out ends the session.
	tok = c.token("/console/w/acme/", "/console/signout")
	if res, _ := c.post("/console/signout", url.Values{"csrf": {tok}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.StatusCode)
	}
	if res, _ := c.get("/console/w/acme/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after sign out: %d", res.StatusCode)
	}

	// Behind TLS the cookie is Secure.
	s := newEnv(t, func(o *console.Options) { o.Secure = true })
	res = s.client().signIn("ann@example.com", password)
	for _, ck := range res.Cookies() {
		if ck.Name == "webacq_session" && !ck.Secure {
			t.Error("session cookie not Secure with Options.Secure")
		}
	}
}

func TestSignInRateLimits(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for range 5 {
		if res := c.signIn("ann@example.com", "not the password"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong password: %d", res.StatusCode)
		}
	}
	res := c.signIn("ann@example.com", password)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth attempt with the right password: %d, Retry-After %q; want 429", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if res := e.client().signIn("bob@example.com", password); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("another account from the same address: %d", res.StatusCode)
	}
	// The address's limit: 20 failures over any accounts.
	for i := range 15 {
		if res := c.signIn("guess"+string(rune('a'+i))+"@example.com", "x"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i, res.StatusCode)
		}
	}
	if res := c.signIn("bob@example.com", password); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("after 20 failures from this address: %d, want 429", res.StatusCode)
	}
	later := e.st.Now().Add(16 * time.Minute)
	e.st.Now = func() time.Time { return later }
	if res := c.signIn("ann@example.com", password); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the window: %d", res.StatusCode)
	}
}

// Attempts are counted before their passwords are checked: a flood of
// parallel guesses from one address checks at most the address's limit of
// passwords, the rest are refused at once, and so is the right password
// afterwards (issue 21: 143 of 200 parallel guesses were checked).
func TestSignInFloodChecksAtMostTheLimit(t *testing.T) {
	e := newEnv(t)
	before := console.PasswordChecks()
	var wg sync.WaitGroup
	var refused, other atomic.Int64
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch res := e.client().signIn(fmt.Sprintf("guess%d@example.com", i), "not the password"); res.StatusCode {
			case http.StatusTooManyRequests:
				refused.Add(1)
			case http.StatusUnauthorized:
			default:
				other.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := other.Load(); n > 0 {
		t.Fatalf("%d guesses answered neither 401 nor 429", n)
	}
	if n := console.PasswordChecks() - before; n != 20 {
		t.Fatalf("%d passwords checked for 60 parallel guesses from one address, want the limit, 20", n)
	}
	if n := refused.Load(); n != 40 {
		t.Fatalf("%d of 60 guesses refused, want 40", n)
	}
	if res := e.client().signIn("ann@example.com", password); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the right password after the flood: %d, want 429", res.StatusCode)
	}
}

// 200 parallel wrong guesses at one account check at most the account's
// limit, 5 passwords (issue 21's check).
func TestSignInFloodOnOneAccount(t *testing.T) {
	e := newEnv(t)
	before := console.PasswordChecks()
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.client().signIn("ann@example.com", "not the password")
		}()
	}
	wg.Wait()
	if n := console.PasswordChecks() - before; n != 5 {
		t.Fatalf("%d passwords checked for 200 parallel guesses at one account, want its limit, 5", n)
	}
}

func TestFormsRefuseForgery(t *testing.T) {
	e := newEnv(t)
	ann := e.signedIn("ann@example.com")
	tok := ann.token("/console/w/acme/keys", "/console/w/acme/keys")
	keys := func() int {
		ks, err := e.st.Keys(ctx, e.acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ks)
	}
	bob := e.signedIn("bob@example.com")
	for _, tc := range []struct {
		name   string
		c      *client
		form   url.Values
		header []string
	}{
		{"no token", ann, url.Values{"name": {"x"}}, nil},
		{"another form's token", ann, url.Values{"name": {"x"}, "csrf": {ann.token("/console/w/acme/keys", "/console/signout")}}, nil},
		{"another session's token", bob, url.Values{"name": {"x"}, "csrf": {tok}}, nil},
		{"cross-site fetch", ann, url.Values{"name": {"x"}, "csrf": {tok}}, []string{"Sec-Fetch-Site", "cross-site"}},
		{"foreign origin", ann, url.Values{"name": {"x"}, "csrf": {tok}}, []string{"Origin", "https://evil.example"}},
	} {
		res, _ := tc.c.post("/console/w/acme/keys", tc.form, tc.header...)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", tc.name, res.StatusCode)
		}
	}
	if n := keys(); n != 0 {
		t.Fatalf("forged requests created %d keys", n)
	}
	if res, body := ann.post("/console/w/acme/keys", url.Values{"name": {"ci"}, "csrf": {tok}}, "Sec-Fetch-Site", "same-origin"); res.StatusCode != 200 ||
		!strings.Contains(body, "mc_") {
		t.Fatalf("create key: %d", res.StatusCode)
	}
	if n := keys(); n != 1 {
		t.Fatalf("keys = %d, want 1", n)
	}
	// A workspace whose name needs escaping in a path works the same.
	odd, err := e.st.CreateWorkspace(ctx, "R&D team's/ü", 10, false)
	if err != nil {
		t.Fatal(err)
	}
	e.st.GrantWorkspace(ctx, mustUser(t, e, "ann@example.com").ID, odd.ID, store.RoleOwner)
	base := "/console/w/" + url.PathEscape(odd.Name)
	_, body := ann.get(base + "/keys")
	m := regexp.MustCompile(`action="([^"]+/keys)"[^>]*>\s*<input type="hidden" name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no key form on %s", base+"/keys")
	}
	action := strings.ReplaceAll(m[1], "&amp;", "&")
	if res, _ := ann.post(action, url.Values{"name": {"odd"}, "csrf": {m[2]}}); res.StatusCode != 200 {
		t.Fatalf("create a key in %q through %s: %d", odd.Name, action, res.StatusCode)
	}
	if ks, _ := e.st.Keys(ctx, odd.ID); len(ks) != 1 {
		t.Fatalf("keys of %q = %d, want 1", odd.Name, len(ks))
	}
	// The service's public origin (behind a proxy that rewrites Host) may
	// post forms; any other still may not.
	pe := newEnv(t, func(o *console.Options) { o.Origins = []string{"https://www.example.com"} })
	pann := pe.signedIn("ann@example.com")
	ptok := pann.token("/console/w/acme/keys", "/console/w/acme/keys")
	if res, _ := pann.post("/console/w/acme/keys", url.Values{"name": {"x"}, "csrf": {ptok}}, "Origin", "https://www.example.com"); res.StatusCode != 200 {
		t.Fatalf("form from the public origin: %d", res.StatusCode)
	}
	if res, _ := pann.post("/console/w/acme/keys", url.Values{"name": {"x"}, "csrf": {ptok}}, "Origin", "https://evil.example"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("form from another origin: %d", res.StatusCode)
	}
	// The sign-in form is protected too (login forgery).
	if res, _ := e.client().post("/console/signin", url.Values{"email": {"ann@example.com"}, "password": {password}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-in without a token: %d", res.StatusCode)
	}
}

// registerRival gives rival a monitor with one run and one delivery.
func (e *env) registerRival(t testing.TB) (*model.Monitor, *model.Run, *model.Delivery) {
	t.Helper()
	p := &model.Principal{WorkspaceID: e.rival.ID, Monitoring: true}
	m, err := e.mon.Register(ctx, p, monitor.RegisterRequest{URL: e.site.URL + "/rival"})
	if err != nil {
		t.Fatal(err)
	}
	run, d := e.recordRun(t, m, "changed", nil)
	return m, run, d
}

// recordRun writes a run of m with its webhook delivery, as a check would.
func (e *env) recordRun(t testing.TB, m *model.Monitor, outcome string, edit func(*model.Run)) (*model.Run, *model.Delivery) {
	t.Helper()
	now := e.st.Now().UTC().Truncate(time.Millisecond)
	diff := "--- before\n+++ after\n@@ -1 +1,2 @@\n Acme news\n+Acme reports third quarter results\n"
	snap := "Acme news\nAcme reports third quarter results\n"
	run := &model.Run{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: m.WorkspaceID, DueAt: now, StartedAt: now,
		FinishedAt: now, Outcome: outcome, TopScore: new(97.0), Channel: model.ChannelIRPage, StatusCode: 200, Tier: model.TierHTTP,
		Credits: 1, Diff: &diff, Snapshot: &snap}
	if edit != nil {
		edit(run)
	}
	d := &model.Delivery{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: m.WorkspaceID, RunID: run.ID, Kind: "webhook",
		Status: model.DeliveryPending, Payload: json.RawMessage(`{"outcome":"` + outcome + `"}`), CreatedAt: now}
	err := e.st.InTx(ctx, func(tx store.Tx) error {
		if err := e.st.InsertRun(ctx, tx, run); err != nil {
			return err
		}
		return e.st.InsertDelivery(ctx, tx, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	return run, d
}

func TestOtherWorkspacesAreUnreachable(t *testing.T) {
	e := newEnv(t)
	m, run, d := e.registerRival(t)
	rivalKey, k, err := e.st.CreateKey(ctx, e.rival.ID, "rival agent")
	if err != nil {
		t.Fatal(err)
	}
	ann := e.signedIn("ann@example.com")
	seed := ann.cookie("webacq_session")
	// A signed-in user can compute the tokens of their own session: the
	// workspace check must hold with a valid token.
	post := func(path string, form url.Values) int {
		if form == nil {
			form = url.Values{}
		}
		form.Set("csrf", console.FormToken(seed, path))
		res, _ := ann.post(path, form)
		return res.StatusCode
	}
	for _, path := range []string{"/console/w/rival/", "/console/w/rival/keys", "/console/w/rival/monitors/" + m.ID,
		"/console/w/nope/", "/console/w/acme/monitors/" + m.ID, "/console/w/acme/monitors/" + m.ID + "/runs/" + run.ID,
		"/console/w/acme/monitors/" + m.ID + "/delete", "/console/w/acme/keys/" + k.Prefix + "/revoke"} {
		if res, body := ann.get(path); res.StatusCode != http.StatusNotFound || strings.Contains(body, m.ID) {
			t.Errorf("GET %s: %d, want 404 without the monitor", path, res.StatusCode)
		}
	}
	for _, path := range []string{"/console/w/acme/monitors/" + m.ID + "/pause", "/console/w/rival/monitors/" + m.ID + "/pause",
		"/console/w/acme/monitors/" + m.ID + "/delete", "/console/w/acme/monitors/" + m.ID + "/check",
		"/console/w/acme/monitors/" + m.ID + "/deliveries/" + d.ID + "/redeliver", "/console/w/acme/keys/" + k.Prefix + "/revoke",
		"/console/w/rival/keys/" + k.Prefix + "/revoke", "/console/w/rival/alerts/webhook/clear"} {
		if code := post(path, nil); code != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, code)
		}
	}
	if got, err := e.st.Monitor(ctx, e.rival.ID, m.ID); err != nil || got.Status != model.MonitorActive {
		t.Fatalf("rival's monitor after ann's posts: %+v, %v", got, err)
	}
	if _, err := e.st.Authenticate(ctx, rivalKey); err != nil {
		t.Fatalf("rival's key after ann's posts: %v", err)
	}
	// A workspace named in a form field changes nothing: the path decides.
	if code := post("/console/w/acme/keys", url.Values{"name": {"sneaky"}, "workspace": {"rival"}, "ws": {e.rival.ID}}); code != 200 {
		t.Fatalf("create key: %d", code)
	}
	if ks, _ := e.st.Keys(ctx, e.rival.ID); len(ks) != 1 {
		t.Fatalf("rival has %d keys, want 1", len(ks))
	}
	if ks, _ := e.st.Keys(ctx, e.acme.ID); len(ks) != 1 || ks[0].Name != "sneaky" {
		t.Fatalf("acme's keys = %+v", ks)
	}
	// Granted both, the switcher lists both and each opens.
	e.st.GrantWorkspace(ctx, mustUser(t, e, "ann@example.com").ID, e.rival.ID, store.RoleOwner)
	if res, body := ann.get("/console/w/rival/monitors/" + m.ID); res.StatusCode != 200 || !strings.Contains(body, `/console/w/acme/"`) {
		t.Fatalf("granted rival: %d", res.StatusCode)
	}
}

func mustUser(t testing.TB, e *env, email string) *store.User {
	u, err := e.st.UserByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestEverythingShownIsEscaped(t *testing.T) {
	e := newEnv(t)
	p := &model.Principal{WorkspaceID: e.acme.ID, Monitoring: true}
	label := `<script>alert("label")</script>`
	intent := `the <b>dividend</b>`
	// An intent needs a model at registration; this one is never called.
	lc, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	withModel := &monitor.Service{Store: e.st, Queue: e.mon.Queue, HTTP: e.mon.HTTP, LLM: lc}
	m, err := withModel.Register(ctx, p, monitor.RegisterRequest{URL: e.site.URL + `/ir?q="><script>alert(1)</script>`,
		Label: &label, ExtractIntent: &intent, DiscoveryKeywords: []string{`<i>results</i>`}})
	if err != nil {
		t.Fatal(err)
	}
	to := `<script>alert("signal")</script>`
	run, _ := e.recordRun(t, m, model.OutcomeChanged, func(r *model.Run) {
		diff := "@@ -1 +1 @@\n-old\n+<script>alert(\"diff\")</script>\n"
		r.Diff = &diff
		r.ChangeSignal = []model.Signal{{Field: "text", To: &to, Ratio: 0.4}}
		r.ExtractedFields = json.RawMessage(`{"found":true,"data":[{"title":"<img src=x onerror=alert(2)>"}]}`)
		r.PDFLinks = []string{`javascript:alert("pdf")`}
	})
	err = e.st.InTx(ctx, func(tx store.Tx) error {
		return e.st.SetExtractPreview(ctx, tx, m.ID, []string{`<u>refined</u>`}, &model.ExtractPreview{Found: true,
			Data: []map[string]any{{"<th>": `<img src=x onerror=alert(3)>`}}, SuggestedPrompt: `</textarea><script>alert(4)</script>`,
			ScopeExcerpt: `<script>alert(5)</script>`, CreatedAt: e.st.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.st.CreateKey(ctx, e.acme.ID, `<img src=x onerror=alert("key")>`); err != nil {
		t.Fatal(err)
	}
	ann := e.signedIn("ann@example.com")
	for _, path := range []string{"/console/w/acme/", "/console/w/acme/keys", "/console/w/acme/monitors",
		"/console/w/acme/monitors/" + m.ID, "/console/w/acme/monitors/" + m.ID + "/runs/" + run.ID, "/console/w/acme/activity",
		"/console/w/acme/credits"} {
		res, body := ann.get(path)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<b>dividend", "<i>results", "<u>refined", "<th>:", `href="javascript`,
			"</textarea><script>"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s shows %q unescaped", path, raw)
			}
		}
		if !strings.Contains(body, "&lt;") && path != "/console/w/acme/" && path != "/console/w/acme/credits" && path != "/console/w/acme/activity" {
			t.Errorf("%s shows none of the escaped text", path)
		}
	}
}

func TestSecretsAreNeverShownAndTestDeliveries(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
		io.WriteString(w, "thanks")
	}))
	defer receiver.Close()
	const secret = "whsec_c2VjcmV0LXRoYXQtbXVzdC1zdGF5LWhpZGRlbg=="
	const slack = "https://hooks.slack.com/services/T000/B000/slackSecretPart123"
	ann := e.signedIn("ann@example.com")
	tok := ann.token("/console/w/acme/alerts", "/console/w/acme/alerts/webhook")
	res, _ := ann.post("/console/w/acme/alerts/webhook", url.Values{"csrf": {tok}, "webhook_url": {receiver.URL + "/hook"},
		"webhook_secret": {secret}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("set webhook: %d", res.StatusCode)
	}
	tok = ann.token("/console/w/acme/alerts", "/console/w/acme/alerts/channels")
	if res, body := ann.post("/console/w/acme/alerts/channels", url.Values{"csrf": {tok}, "channel": {"slack"}, "value": {slack}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("set slack: %d %s", res.StatusCode, body)
	}
	tok = ann.token("/console/w/acme/alerts", "/console/w/acme/alerts/webhook/test")
	res, body := ann.post("/console/w/acme/alerts/webhook/test", url.Values{"csrf": {tok}})
	if res.StatusCode != 200 || !strings.Contains(body, "Delivered") || !strings.Contains(body, "HTTP 200") {
		t.Fatalf("test delivery: %d\n%s", res.StatusCode, body)
	}
	mu.Lock()
	if len(got) != 1 || got[0].URL.Path != "/hook" || !webhook.VerifySvc(secret, bodies[0], got[0].Header.Get("X-Svc-Signature")) ||
		!strings.Contains(string(bodies[0]), `"outcome":"test"`) {
		t.Fatalf("receiver got %d requests; signature ok: %v", len(got), len(got) == 1 && webhook.VerifySvc(secret, bodies[0], got[0].Header.Get("X-Svc-Signature")))
	}
	mu.Unlock()
	for _, path := range []string{"/console/w/acme/alerts", "/console/w/acme/activity", "/console/w/acme/"} {
		_, body := ann.get(path)
		if strings.Contains(body, secret) || strings.Contains(body, "c2VjcmV0LXRoYXQtbXVzdC1zdGF5LWhpZGRlbg") || strings.Contains(body, "slackSecretPart123") {
			t.Errorf("%s shows a secret", path)
		}
	}
	if _, body := ann.get("/console/w/acme/alerts"); !strings.Contains(body, "hooks.slack.com") || !strings.Contains(body, receiver.URL+"/hook") {
		t.Error("alerts page does not show the webhook URL and the Slack host")
	}
}

func TestSetupLink(t *testing.T) {
	e := newEnv(t)
	token, hash := console.NewSetupLink()
	if err := e.st.CreateSetupLink(ctx, hash, e.acme.ID, e.st.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	if res, _ := c.get("/console/setup?token=nope"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown setup link: %d", res.StatusCode)
	}
	page := "/console/setup?token=" + url.QueryEscape(token)
	form := url.Values{"csrf": {c.token(page, "/console/setup")}, "token": {token}, "email": {"owner@example.com"},
		"password": {"a long password"}, "confirm": {"another password"}}
	if res, _ := c.post("/console/setup", form); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("passwords that differ: %d", res.StatusCode)
	}
	form.Set("confirm", "a long password")
	res, _ := c.post("/console/setup", form)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/w/acme/" {
		t.Fatalf("setup: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := c.get("/console/w/acme/keys"); res.StatusCode != 200 {
		t.Fatalf("after setup: %d", res.StatusCode)
	}
	if res, _ := e.client().get(page); res.StatusCode != http.StatusNotFound {
		t.Fatalf("used setup link: %d", res.StatusCode)
	}
	if res := e.client().signIn("owner@example.com", "a long password"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in with the account made by the link: %d", res.StatusCode)
	}
}

// A member reads the workspace and runs its monitors; keys and alerts are
// an owner's: their forms are not shown to a member and their posts are
// refused with 403 (issue 21, part 5).
func TestMemberCannotManageKeysOrAlerts(t *testing.T) {
	e := newEnv(t)
	cy := e.user("cy@example.com")
	if err := e.st.GrantWorkspace(ctx, cy.ID, e.acme.ID, store.RoleMember); err != nil {
		t.Fatal(err)
	}
	ann, cyc := e.signedIn("ann@example.com"), e.signedIn("cy@example.com")
	if res, body := ann.post("/console/w/acme/keys", url.Values{"name": {"ci"}, "csrf": {ann.token("/console/w/acme/keys", "/console/w/acme/keys")}}); res.StatusCode != 200 || !strings.Contains(body, "mc_") {
		t.Fatalf("owner creates a key: %d", res.StatusCode)
	}
	ks, _ := e.st.Keys(ctx, e.acme.ID)
	prefix := ks[0].Prefix

	res, body := cyc.get("/console/w/acme/keys")
	if res.StatusCode != 200 || strings.Contains(body, `action="/console/w/acme/keys"`) || strings.Contains(body, "/revoke") ||
		!strings.Contains(body, prefix) {
		t.Fatalf("member's keys page: %d, shows the create form or a revoke link, or hides the keys:\n%s", res.StatusCode, body)
	}
	if _, body := cyc.get("/console/w/acme/alerts"); strings.Contains(body, `action="/console/w/acme/alerts/webhook"`) {
		t.Fatal("member's alerts page shows the webhook form")
	}
	for _, path := range []string{"/console/w/acme/keys", "/console/w/acme/keys/" + prefix + "/revoke",
		"/console/w/acme/alerts/webhook", "/console/w/acme/alerts/webhook/clear", "/console/w/acme/alerts/channels"} {
		form := url.Values{"name": {"x"}, "webhook_url": {"https://hooks.example.com/x"}, "channel": {"email"},
			"value": {"a@example.com"}, "csrf": {console.FormToken(cyc.cookie("webacq_session"), path)}}
		if res, _ := cyc.post(path, form); res.StatusCode != http.StatusForbidden {
			t.Errorf("member posts %s: %d, want 403", path, res.StatusCode)
		}
	}
	if ks, _ := e.st.Keys(ctx, e.acme.ID); len(ks) != 1 || ks[0].RevokedAt != nil {
		t.Fatalf("keys after the member's posts: %+v", ks)
	}
	// Monitors are a member's.
	tok := cyc.token("/console/w/acme/monitors", "/console/w/acme/monitors")
	if res, _ := cyc.post("/console/w/acme/monitors", url.Values{"url": {e.site.URL + "/news"}, "csrf": {tok}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("member registers a monitor: %d, want 303", res.StatusCode)
	}
}

// The password page needs the current password, refuses a mismatched or
// short new one, and ends the account's other sessions.
func TestChangePassword(t *testing.T) {
	e := newEnv(t)
	a, other := e.signedIn("ann@example.com"), e.signedIn("ann@example.com")
	tok := a.token("/console/password", "/console/password")
	const next = "a much better passphrase"
	for _, tc := range []struct {
		current, new, confirm string
		want                  int
	}{
		{"wrong password", next, next, http.StatusUnauthorized},
		{password, next, "something else entirely", http.StatusBadRequest},
		{password, "short", "short", http.StatusBadRequest},
		{password, next, next, http.StatusSeeOther},
	} {
		res, _ := a.post("/console/password", url.Values{"csrf": {tok}, "current": {tc.current}, "new": {tc.new}, "confirm": {tc.confirm}})
		if res.StatusCode != tc.want {
			t.Fatalf("current %q new %q confirm %q: %d, want %d", tc.current, tc.new, tc.confirm, res.StatusCode, tc.want)
		}
	}
	if res, _ := a.get("/console/w/acme/keys"); res.StatusCode != 200 {
		t.Fatalf("the session that changed the password: %d, want 200", res.StatusCode)
	}
	if res, _ := other.get("/console/w/acme/keys"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("another session after the change: %d, want a redirect to sign in", res.StatusCode)
	}
	if res := e.client().signIn("ann@example.com", password); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the old password: %d, want 401", res.StatusCode)
	}
	if res := e.client().signIn("ann@example.com", next); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the new password: %d, want 303", res.StatusCode)
	}
}
