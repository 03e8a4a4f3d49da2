// Package console serves the web console at /console (DECISIONS.md,
// Console): server-rendered pages over the store and the monitor service,
// for people signed in with a console account. API keys never sign anyone
// in, and a console session never authenticates /api/v1.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options are what the console runs on.
type Options struct {
	Store *store.Store
	// Biller bills extraction previews and records the console's actions
	// in the usage and activity logs.
	Biller *billing.Biller
	// Monitors serves the monitor and alert pages (nil: they say monitors
	// are not available on this node).
	Monitors *monitor.Service
	Log      *slog.Logger
	// Secure marks cookies Secure even when a request did not arrive over
	// TLS itself: the service is behind a proxy that terminates it
	// (WEBACQ_BASE_URL is https).
	Secure bool
	// Origins may post forms besides the request's own host, for browsers
	// that send no Sec-Fetch-Site behind a proxy that rewrites Host: the
	// origin of WEBACQ_BASE_URL ("https://www.example.com").
	Origins []string
	// TrustedProxies are the load balancers whose X-Forwarded-For names
	// the client that sign-in limits count (WEBACQ_TRUSTED_PROXIES).
	TrustedProxies []netip.Prefix
}

// Console is the web console. Safe for concurrent use.
type Console struct {
	Options
	pages   map[string]*template.Template
	assets  map[string]asset
	handler http.Handler
	// hashTurns lets one password check per address run at a time.
	hashTurns turns
}

type asset struct {
	body    []byte
	ctype   string
	version string
}

// New parses the templates and builds the routes.
func New(o Options) (*Console, error) {
	c := &Console{Options: o, pages: map[string]*template.Template{}, assets: map[string]asset{}}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ctype := "text/css; charset=utf-8"
		if path.Ext(p) == ".js" {
			ctype = "text/javascript; charset=utf-8"
		}
		c.assets[path.Base(p)] = asset{body: b, ctype: ctype, version: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	// layout.html and the partials (_*.html) go with every page.
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" || strings.HasPrefix(name, "_") {
			continue
		}
		t, err := template.New(name).Funcs(c.funcs()).ParseFS(templateFS, "templates/layout.html", "templates/_*.html", n)
		if err != nil {
			return nil, err
		}
		c.pages[name] = t
	}
	if err := c.routes(); err != nil {
		return nil, err
	}
	return c, nil
}

// ServeHTTP serves everything under /console.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.handler.ServeHTTP(w, r) }

func (c *Console) routes() error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /console/{$}", c.signedIn(c.home))
	mux.HandleFunc("GET /console/static/{name}", c.static)
	mux.HandleFunc("GET /console/signin", c.signInPage)
	mux.HandleFunc("POST /console/signin", c.signIn)
	mux.HandleFunc("POST /console/signout", c.signedIn(c.signOut))
	mux.HandleFunc("GET /console/password", c.signedIn(c.passwordPage))
	mux.HandleFunc("POST /console/password", c.signedIn(c.changePassword))
	mux.HandleFunc("GET /console/setup", c.setupPage)
	mux.HandleFunc("POST /console/setup", c.setup)

	ws := func(pattern string, h func(w http.ResponseWriter, r *http.Request, rq *request)) {
		method, p, _ := strings.Cut(pattern, " ")
		mux.HandleFunc(method+" /console/w/{ws}"+p, c.signedIn(c.inWorkspace(h)))
	}
	ws("GET /{$}", c.overview)
	ws("GET /keys", c.keysPage)
	ws("POST /keys", c.owner(c.createKey))
	ws("GET /keys/{prefix}/revoke", c.owner(c.revokeKeyPage))
	ws("POST /keys/{prefix}/revoke", c.owner(c.revokeKey))
	ws("GET /credits", c.creditsPage)
	ws("GET /activity", c.activityPage)
	ws("GET /monitors", c.monitorsPage)
	ws("POST /monitors", c.registerMonitor)
	ws("GET /monitors/{id}", c.monitorPage)
	ws("POST /monitors/{id}/pause", c.monitorAction)
	ws("POST /monitors/{id}/resume", c.monitorAction)
	ws("POST /monitors/{id}/check", c.monitorAction)
	ws("GET /monitors/{id}/delete", c.deleteMonitorPage)
	ws("POST /monitors/{id}/delete", c.deleteMonitor)
	ws("POST /monitors/{id}/preview", c.previewExtract)
	ws("POST /monitors/{id}/approve", c.approveExtract)
	ws("POST /monitors/{id}/deliveries/{delivery}/redeliver", c.redeliver)
	ws("GET /monitors/{id}/runs/{run}", c.runPage)
	ws("GET /alerts", c.alertsPage)
	ws("POST /alerts/webhook", c.owner(c.setWebhook))
	ws("POST /alerts/webhook/test", c.owner(c.testWebhook))
	ws("POST /alerts/webhook/clear", c.owner(c.clearWebhook))
	ws("POST /alerts/channels", c.owner(c.setChannel))
	mux.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		c.notFound(w, r, nil)
	})

	// The standard library refuses cross-origin browser requests that
	// change state (Sec-Fetch-Site, else Origin against Host); every form
	// also carries a token of its own (checkToken).
	cop := http.NewCrossOriginProtection()
	for _, o := range c.Origins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return fmt.Errorf("console: origin %q: %w", o, err)
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.problem(w, r, nil, http.StatusForbidden, "This request came from another site and was refused.")
	}))
	c.handler = c.headers(cop.Handler(c.checkToken(mux)))
	return nil
}

// headers sets what every console answer carries: a content security
// policy that allows only the console's own scripts and styles (no inline
// code, no framing), and no caching of pages.
func (c *Console) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, "/console/static/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

func (c *Console) static(w http.ResponseWriter, r *http.Request) {
	a, ok := c.assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.ctype)
	if r.URL.Query().Get("v") == a.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Write(a.body)
}

// page is what every template gets.
type page struct {
	Title string
	// Nav names the section in the navigation that is current.
	Nav        string
	User       *store.User
	WS         *model.Workspace
	Workspaces []store.Grant
	// Owner: the user is an owner of WS (keys, alerts); a member only
	// reads them.
	Owner bool
	// Base is the path of the current workspace's pages.
	Base  string
	Flash string
	Error string
	Data  any
	// seed derives the forms' tokens (Token): the session's token, or
	// before sign-in the pre-session cookie's.
	seed string
}

// Token is the token of the form that posts to action. Tokens are made
// for the path unescaped, as the server reads it, whatever escaping the
// page and the browser apply to a workspace's name.
func (p *page) Token(action string) string {
	if u, err := url.PathUnescape(action); err == nil {
		action = u
	}
	return formToken(p.seed, action)
}

// render writes a page with status.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	t, ok := c.pages[name]
	if !ok {
		c.Log.Error("console: no template", "template", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		c.Log.Error("console: render", "template", name, "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// problem renders a page that says what went wrong.
func (c *Console) problem(w http.ResponseWriter, r *http.Request, rq *request, status int, msg string) {
	p := &page{Title: http.StatusText(status), Error: msg}
	if rq != nil {
		p = rq.page("", http.StatusText(status), nil)
		p.Error = msg
	}
	c.render(w, r, status, "problem", p)
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request, rq *request) {
	c.problem(w, r, rq, http.StatusNotFound, "There is nothing here. It may have been deleted, or it belongs to a workspace you were not granted.")
}

// fail answers an error of a service call with its client-safe message
// (an internal fault's is generic); internal and unavailable ones are
// logged, as the API does.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	code := model.ErrorCode(err)
	if code == model.CodeNotFound {
		c.notFound(w, r, rq)
		return
	}
	c.problem(w, r, rq, model.Status(code), c.userMessage(r, err))
}

// userMessage is the message of an error shown to the user; internal and
// unavailable errors are logged.
func (c *Console) userMessage(r *http.Request, err error) string {
	switch model.ErrorCode(err) {
	case model.CodeInternal:
		c.Log.Error("console: request failed", "path", r.URL.Path, "err", err)
		return "Something went wrong on our side; try again in a moment."
	case model.CodeUnavailable:
		c.Log.Error("console: request failed", "path", r.URL.Path, "err", err)
	}
	return model.ErrorMessage(err)
}

// flashes are the messages a redirect after a change may show (?ok=…):
// fixed words, so a link cannot put text of its own on a page.
var flashes = map[string]string{
	"key-revoked":  "The key was revoked. Calls made with it now fail.",
	"password":     "Your password was changed; your other sessions have ended.",
	"registered":   "Monitor registered. Its first check runs now.",
	"paused":       "Monitor paused.",
	"resumed":      "Monitor resumed; a check runs now.",
	"checking":     "A check runs now; refresh in a moment to see it.",
	"deleted":      "Monitor deleted.",
	"previewed":    "Preview ready.",
	"approved":     "Extraction approved: every change is extracted this way from now on.",
	"redelivering": "The delivery is being sent again.",
	"webhook-set":  "Webhook saved.",
	"webhook-off":  "Webhook cleared.",
	"alerts-set":   "Alert channels saved.",
}

// redirect sends the browser to path with a flash message after a change
// (post/redirect/get).
// A fragment (#section) stays last.
func redirect(w http.ResponseWriter, r *http.Request, path, flash string) {
	if flash != "" {
		path, fragment, _ := strings.Cut(path, "#")
		path += "?ok=" + url.QueryEscape(flash)
		if fragment != "" {
			path += "#" + fragment
		}
		http.Redirect(w, r, path, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// ago says how long ago t was, in the words of a calm console.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in " + span(-d)
	case d < 45*time.Second:
		return "just now"
	}
	return span(d) + " ago"
}

func span(d time.Duration) string {
	switch {
	case d < 90*time.Second:
		return "1 min"
	case d < time.Hour:
		return itoa(int(d.Round(time.Minute).Minutes())) + " min"
	case d < 36*time.Hour:
		return itoa(int(d.Round(time.Hour).Hours())) + " h"
	}
	return itoa(int(d.Round(24*time.Hour).Hours()/24)) + " days"
}
