package main_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"webacq/internal/fetch"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
	"webacq/internal/webhook"
)

// userCmd runs `webacq user …` with stdin.
func userCmd(t *testing.T, db, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"user"}, args...)...)
	cmd.Env = append(os.Environ(), "WEBACQ_DATABASE_URL="+db, "WEBACQ_CHROMIUM=none")
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

// browser drives a headless Chromium; it records what the pages log
// (script errors, refused content) and any dialog a page opens.
type browser struct {
	t       *testing.T
	ctx     context.Context
	shots   string
	mu      sync.Mutex
	logs    []string
	dialogs []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := fetch.FindChromium()
	if path == "" {
		t.Skip("no Chromium on PATH: scripts/setup.sh installs it; the console's browser tests need it")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 860), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	dir := os.Getenv("WEBACQ_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	b := &browser{t: t, ctx: ctx, shots: filepath.Join(dir, "console")}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	// Start the browser (without a timeout, which would stop it), then
	// subscribe before any page loads.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("browser: %v", err)
	}
	messages := chromedp.Console(ctx)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				b.mu.Lock()
				b.logs = append(b.logs, m.String())
				b.mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.dialogs = append(b.dialogs, ev.Message)
			b.mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return b
}

// actionTimeout bounds one step: a page that never shows what a step
// waits for fails the test instead of hanging it.
const actionTimeout = 30 * time.Second

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// get runs an action that returns a value.
func get[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %v", err)
	}
	return v
}

// shot saves a full-page screenshot of the current page.
func (b *browser) shot(name string) {
	b.t.Helper()
	png := get(b, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	return get(b, chromedp.Text(chromedp.CSS(sel)))
}

// waitText reloads the page until sel's text holds want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := ""
		if get(b, chromedp.Evaluate[int](`document.querySelectorAll(`+jsString(sel)+`).length`)) > 0 {
			s = b.text(sel)
		}
		if strings.Contains(s, want) {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%q never showed %q (last %q)", sel, want, s)
		}
		time.Sleep(150 * time.Millisecond)
		b.do(chromedp.Reload())
	}
}

// clickLoad clicks what sel finds and waits for the page it loads.
func clickLoad(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel)))(ctx, t)
		return err
	})
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

// TestConsoleInTheBrowser drives the real binary's console with a headless
// Chromium: the setup link, sign-in, a key shown once, used from Go and
// revoked, usage filtered by the revoked prefix, a webhook with a test
// delivery, a monitor's first run and the diff of a change. It saves
// screenshots of the main pages (WEBACQ_ARTIFACTS, else a temporary
// folder).
func TestConsoleInTheBrowser(t *testing.T) {
	t.Parallel() // see TestMain
	b := newBrowser(t)
	var mu sync.Mutex
	items := []string{`<li>Acme reports second quarter results</li>`, `<li>Acme names a CFO</li>`}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Acme IR</title></head><body><main><h1>News</h1><ul>`+strings.Join(items, "")+
			`</ul></main><footer>© Acme</footer></body></html>`)
	}))
	defer site.Close()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	var hooks []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		if webhook.VerifySvc(secret, body, r.Header.Get("X-Svc-Signature")) {
			hooks = append(hooks, string(body))
		}
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer receiver.Close()

	// A language model that finds the quarter of the release in whatever
	// it reads.
	llmServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",`+
			`"content":"{\"found\":true,\"data\":[{\"quarter\":\"Q3\",\"headline\":\"Acme reports third quarter results\"}]}"}}]}`)
	}))
	defer llmServer.Close()

	db := storetest.URL(t, store.SQLite)
	s := startServer(t, db, "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_JOB_POLL_INTERVAL=20ms",
		"WEBACQ_SECRET_KEY=test-operator-key-0123456789", "WEBACQ_LLM_PROVIDER=openai", "WEBACQ_LLM_BASE_URL="+llmServer.URL+"/v1",
		"WEBACQ_LLM_MODEL=local-model")
	setup := ""
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if u, ok := strings.CutPrefix(line, "console setup: "); ok {
			setup = u
		}
	}
	if !strings.HasPrefix(setup, s.url+"/console/setup?token=") {
		t.Fatalf("no setup link on stderr:\n%s", s.stderr.String())
	}

	// The setup link makes the owner of default, once.
	type id = chromedp.ID
	type css = chromedp.CSS
	b.do(chromedp.Navigate(setup), chromedp.WaitVisible(id("email")))
	b.shot("setup")
	b.do(chromedp.SetValue(id("email"), "owner@example.com"), chromedp.SetValue(id("password"), "owner password 1"),
		chromedp.SetValue(id("confirm"), "owner password 1"), clickLoad("button[type=submit]"),
		chromedp.WaitVisible(css(".cards")))

	// Accounts from the command line: the password only from stdin.
	if out, code := userCmd(t, db, "short\n", "create", "--email", "ann@example.com", "--password-stdin"); code == 0 {
		t.Fatalf("a short password was taken: %s", out)
	}
	if out, code := userCmd(t, db, "ann's long password\n", "create", "--email", "Ann@Example.com", "--password-stdin"); code != 0 {
		t.Fatalf("user create: %d %s", code, out)
	}
	if out, code := userCmd(t, db, "", "grant", "--email", "ann@example.com", "--workspace", "nope"); code == 0 {
		t.Fatalf("grant of an unknown workspace: %s", out)
	}
	if out, code := userCmd(t, db, "", "grant", "--email", "ann@example.com", "--workspace", "default"); code != 0 {
		t.Fatalf("user grant: %d %s", code, out)
	}
	mustRun(t, db, "workspace", "create", "research", "--credits", "50")
	userCmd(t, db, "", "grant", "--email", "ann@example.com", "--workspace", "research")

	// Sign out, then in as ann; a wrong password is refused.
	b.do(clickLoad(".account button"), chromedp.WaitVisible(id("password")))
	b.do(chromedp.SetValue(id("email"), "ann@example.com"), chromedp.SetValue(id("password"), "wrong password"),
		clickLoad("button[type=submit]"), chromedp.WaitVisible(css(".alert")))
	b.shot("signin")
	b.do(chromedp.SetValue(id("password"), "ann's long password"), clickLoad("button[type=submit]"),
		chromedp.WaitVisible(css(".cards")))
	if sw := get(b, chromedp.TextContent(css(".switcher ul"))); !strings.Contains(sw, "default") || !strings.Contains(sw, "research") {
		t.Fatalf("workspace switcher lists %q", sw)
	}

	// A key is shown once, works from Go, and fails once revoked.
	base := s.url + "/console/w/default"
	b.do(chromedp.Navigate(base+"/keys"), chromedp.SetValue(id("name"), "browser agent"),
		clickLoad("form.inline button"), chromedp.WaitVisible(id("newkey")))
	key := get(b, chromedp.Value(id("newkey")))
	b.do(chromedp.Click(css("button[data-copy]")))
	if !keyRE.MatchString(key + "\n") {
		t.Fatalf("new key %q", key)
	}
	b.shot("keys-new")
	b.do(chromedp.Navigate(base + "/keys"))
	if html := get(b, chromedp.OuterHTML(css("html"))); strings.Contains(html, key) || !strings.Contains(html, key[:12]) {
		t.Fatal("the key list shows the whole key again, or not its prefix")
	}
	for range 3 {
		if code := s.health(t, key); code != 200 {
			t.Fatalf("health with the new key: %d", code)
		}
	}
	if code, env := restCall(t, s, key, "GET", "/api/v1/credits", ""); code != 200 {
		t.Fatalf("credits with the new key: %d %v", code, env)
	}
	// The console's session opens nothing under /api/v1.
	cookies, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{s.url + "/console/"}})
	if err != nil || len(cookies.Cookies) == 0 {
		t.Fatalf("browser cookies: %v %v", cookies, err)
	}
	req, _ := http.NewRequest("GET", s.url+"/api/v1/health", nil)
	for _, c := range cookies.Cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 401 {
		t.Fatalf("console cookies on /api/v1: %v %v", res, err)
	}
	b.do(clickLoad(`a[href$="/keys/`+key[:12]+`/revoke"]`), chromedp.WaitVisible(css("button.dangerous")))
	b.shot("revoke")
	b.do(clickLoad("button.dangerous"), chromedp.WaitVisible(css(".flash")))
	if code := s.health(t, key); code != 401 {
		t.Fatalf("health with the revoked key: %d, want 401", code)
	}

	// Usage filtered by the revoked key's prefix: its four calls.
	b.do(chromedp.Navigate(base+"/credits"), chromedp.SetValue(id("f-key"), key[:12]),
		clickLoad(".filters button"), chromedp.WaitVisible(css(".chart")))
	prefixes := get(b, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("main table tbody tr td:nth-child(2)")].map(td => td.textContent.trim())`))
	if len(prefixes) != 4 {
		t.Fatalf("usage rows of %s: %v, want 4", key[:12], prefixes)
	}
	for _, p := range prefixes {
		if p != key[:12] {
			t.Fatalf("usage filtered by %s shows %s", key[:12], p)
		}
	}
	if opt := get(b, chromedp.TextContent(css("#f-key option:checked"))); !strings.Contains(opt, "(revoked)") {
		t.Fatalf("selected key option %q does not say revoked", opt)
	}
	b.shot("credits")

	// A webhook with a signed test delivery to a local receiver.
	b.do(chromedp.Navigate(base+"/alerts"), chromedp.SetValue(id("wh-url"), receiver.URL+"/hook"),
		chromedp.SetValue(id("wh-secret"), secret), clickLoad("form.grid-form button.primary"),
		chromedp.WaitVisible(css(".flash")))
	b.do(clickLoad(`form[action$="/alerts/webhook/test"] button`), chromedp.WaitVisible(id("test-result")))
	if r := b.text("#test-result"); !strings.Contains(r, "Delivered") || !strings.Contains(r, "HTTP 200") || !strings.Contains(r, "signed") {
		t.Fatalf("test delivery result: %q", r)
	}
	if html := get(b, chromedp.OuterHTML(css("html"))); strings.Contains(html, secret) {
		t.Fatal("the alerts page shows the webhook secret")
	}
	b.shot("alerts")
	mu.Lock()
	if len(hooks) != 1 || !strings.Contains(hooks[0], `"outcome":"test"`) {
		t.Fatalf("receiver got %v", hooks)
	}
	mu.Unlock()

	// A monitor: its first run and extraction preview, refined and
	// approved; then a change, its diff and its extracted fields. The label
	// is markup that must stay text.
	label := `Acme IR <img src=x onerror=alert(1)>`
	b.do(chromedp.Navigate(base+"/monitors"), chromedp.SetValue(id("m-url"), site.URL+"/ir"),
		chromedp.SetValue(id("m-label"), label), chromedp.SetValue(id("m-keywords"), "results"),
		chromedp.SetValue(id("m-intent"), "the quarter of each results release"),
		clickLoad("form.grid-form button.primary"), chromedp.WaitVisible(id("runs")))
	if h := b.text("h1"); h != label {
		t.Fatalf("monitor title %q", h)
	}
	b.waitText("#runs tbody tr:first-child", "anchored")
	b.waitText("#extraction table", "Q3")
	b.do(chromedp.SetValue(id("refinement"), "name the quarter as Q1 to Q4"), clickLoad(`form[action$="/preview"] button`))
	b.waitText("#extraction ol", "name the quarter as Q1 to Q4")
	b.do(clickLoad(`form[action$="/approve"] button`), chromedp.WaitVisible(css(".flash")))
	if st := b.text("#extraction .panel-head .badge"); st != "approved" {
		t.Fatalf("extraction status after approval: %q", st)
	}
	b.shot("extraction")
	mu.Lock()
	items = append([]string{`<li>Acme reports third quarter results</li>`}, items...)
	mu.Unlock()
	b.do(clickLoad(`form[action$="/check"] button`), chromedp.WaitVisible(css(".flash")))
	b.waitText("#runs tbody tr:first-child", "changed")
	b.waitText("#deliveries", "delivered")
	b.shot("monitor")
	b.do(clickLoad("#runs tbody tr:first-child td a"), chromedp.WaitVisible(css("pre.diff")))
	if add := b.text("pre.diff .add"); !strings.Contains(add, "third quarter") {
		t.Fatalf("diff additions: %q", add)
	}
	if f := b.text("table.data"); !strings.Contains(f, "Q3") {
		t.Fatalf("extracted fields of the change: %q", f)
	}
	b.shot("run")
	b.do(chromedp.Navigate(base+"/monitors"), chromedp.WaitVisible(css("table")))
	if row := b.text("main table tbody tr"); !strings.Contains(row, "changed") || !strings.Contains(row, "active") {
		t.Fatalf("monitor list row: %q", row)
	}
	b.shot("monitors")
	b.do(chromedp.Navigate(base+"/activity"), chromedp.WaitVisible(css("table")))
	b.shot("activity")
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(css(".chart")))
	b.shot("overview")

	// Narrow screens: the same pages, one column.
	b.do(chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/keys"), chromedp.WaitVisible(css("table")))
	b.shot("keys-narrow")
	if get(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
		t.Error("the keys page scrolls sideways on a 390 px screen")
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.dialogs) > 0 {
		t.Errorf("pages opened dialogs (script ran): %q", b.dialogs)
	}
	for _, l := range b.logs {
		// The 401 of the wrong password is the page itself, not a fault.
		if !strings.Contains(l, "401") {
			t.Errorf("browser logged: %s", l)
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
