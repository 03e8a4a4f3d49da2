package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
)

// Cookies of the console; both live under /console only.
const (
	sessionCookie = "webacq_session"
	// preCookie seeds the tokens of the forms shown before sign-in (sign
	// in, setup): a login form is protected from forgery too.
	preCookie = "webacq_presession"
)

// SessionLifetime is how long a sign-in lasts.
const SessionLifetime = 7 * 24 * time.Hour

// Sign-in limits: failures per account and per address in one window,
// after which sign-in is refused until the window ends. Each attempt is
// counted before its password is checked (store.ReserveSignIn).
const (
	signInWindow    = 15 * time.Minute
	maxFailsAccount = 5
	maxFailsAddress = 20
)

// setupLinkComment tells whoever holds a spent setup link what to do.
const setupLinkComment = "An operator can create an account with `webacq user create` and grant it with `webacq user grant`."

// newToken returns 32 random bytes, base64url: a session's or a link's
// secret.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is the form in which session and setup tokens are stored:
// lowercase hex SHA-256.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewSetupLink returns a fresh setup token and its hash (store the hash
// with store.CreateSetupLink, hand out the token in SetupURL).
func NewSetupLink() (token, hash string) {
	token = newToken()
	return token, HashToken(token)
}

// SetupURL is the address of a setup link on base (the service's URL).
func SetupURL(base, token string) string {
	return strings.TrimRight(base, "/") + "/console/setup?token=" + url.QueryEscape(token)
}

// formToken is the token of a form that posts to action: an HMAC of the
// action under the session's token (or the pre-session cookie's), so it is
// good for that form of that session only.
func formToken(seed, action string) string {
	if seed == "" {
		return ""
	}
	m := hmac.New(sha256.New, []byte(seed))
	m.Write([]byte("webacq console form\x00"))
	m.Write([]byte(action))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// maxFormBytes caps a form's body.
const maxFormBytes = 1 << 20

// checkToken refuses a POST whose form token is missing or not the one of
// its action under the browser's session (or pre-session, for sign-in and
// setup).
func (c *Console) checkToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			c.problem(w, r, nil, http.StatusBadRequest, "The form could not be read.")
			return
		}
		name := sessionCookie
		if r.URL.Path == "/console/signin" || r.URL.Path == "/console/setup" {
			name = preCookie
		}
		seed := ""
		if ck, err := r.Cookie(name); err == nil {
			seed = ck.Value
		}
		want := formToken(seed, r.URL.Path)
		if want == "" || !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(want)) {
			c.problem(w, r, nil, http.StatusForbidden,
				"This form has expired or did not come from this console. Go back, reload the page and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (c *Console) secure(r *http.Request) bool { return c.Secure || r.TLS != nil }

func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/console", MaxAge: maxAge, HttpOnly: true,
		Secure: c.secure(r), SameSite: http.SameSiteLaxMode})
}

// request is a signed-in request, and in a workspace (ws) when its path
// names one the user was granted.
type request struct {
	user       *store.User
	token      string
	workspaces []store.Grant
	ws         *model.Workspace
	role       string // the user's role in ws
	p          *model.Principal
	base       string
	now        time.Time
	r          *http.Request
}

// page starts the page of a signed-in request.
func (rq *request) page(nav, title string, data any) *page {
	p := &page{Title: title, Nav: nav, User: rq.user, WS: rq.ws, Workspaces: rq.workspaces, Owner: rq.role == store.RoleOwner,
		Base: rq.base, Data: data,
		seed: rq.token, Flash: flashes[rq.r.URL.Query().Get("ok")]}
	return p
}

// signedIn runs h for a browser with a live session; any other is sent to
// sign in (and back here afterwards).
func (c *Console) signedIn(h func(w http.ResponseWriter, r *http.Request, rq *request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		toSignIn := func() {
			next := ""
			if r.Method == http.MethodGet {
				next = "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, "/console/signin"+next, http.StatusSeeOther)
		}
		ck, err := r.Cookie(sessionCookie)
		if err != nil || ck.Value == "" {
			toSignIn()
			return
		}
		u, err := c.Store.SessionUser(r.Context(), HashToken(ck.Value))
		if model.ErrorCode(err) == model.CodeUnauthorized {
			toSignIn()
			return
		}
		if err != nil {
			c.fail(w, r, nil, err)
			return
		}
		ws, err := c.Store.UserWorkspaces(r.Context(), u.ID)
		if err != nil {
			c.fail(w, r, nil, err)
			return
		}
		h(w, r, &request{user: u, token: ck.Value, workspaces: ws, now: c.Store.Now(), r: r})
	}
}

// inWorkspace runs h in the workspace the path names, when the user was
// granted it; any other workspace, existing or not, is not found.
func (c *Console) inWorkspace(h func(w http.ResponseWriter, r *http.Request, rq *request)) func(http.ResponseWriter, *http.Request, *request) {
	return func(w http.ResponseWriter, r *http.Request, rq *request) {
		name := r.PathValue("ws")
		for i := range rq.workspaces {
			if ws := &rq.workspaces[i].Workspace; ws.Name == name {
				rq.ws, rq.role, rq.base = ws, rq.workspaces[i].Role, "/console/w/"+url.PathEscape(ws.Name)
				rq.p = &model.Principal{WorkspaceID: ws.ID, WorkspaceName: ws.Name, Monitoring: ws.Monitoring}
				h(w, r, rq)
				return
			}
		}
		c.notFound(w, r, rq)
	}
}

// owner runs h only for an owner of the request's workspace; a member is
// answered 403.
func (c *Console) owner(h func(w http.ResponseWriter, r *http.Request, rq *request)) func(http.ResponseWriter, *http.Request, *request) {
	return func(w http.ResponseWriter, r *http.Request, rq *request) {
		if rq.role != store.RoleOwner {
			c.fail(w, r, rq, model.Errorf(model.CodeForbidden, "only an owner of workspace %q can do this; you are a member", rq.ws.Name))
			return
		}
		h(w, r, rq)
	}
}

// home sends the user to their first workspace.
func (c *Console) home(w http.ResponseWriter, r *http.Request, rq *request) {
	if len(rq.workspaces) == 0 {
		c.render(w, r, http.StatusOK, "home", rq.page("", "No workspace yet", nil))
		return
	}
	http.Redirect(w, r, "/console/w/"+url.PathEscape(rq.workspaces[0].Name)+"/", http.StatusSeeOther)
}

// prePage is a page shown before sign-in, its forms seeded by the
// pre-session cookie (set here when the browser has none).
func (c *Console) prePage(w http.ResponseWriter, r *http.Request, title string, data any) *page {
	seed := ""
	if ck, err := r.Cookie(preCookie); err == nil && ck.Value != "" {
		seed = ck.Value
	} else {
		seed = newToken()
		c.setCookie(w, r, preCookie, seed, int((2 * time.Hour).Seconds()))
	}
	return &page{Title: title, Data: data, seed: seed}
}

type signInForm struct {
	Email string
	Next  string
}

func (c *Console) signInPage(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(sessionCookie); err == nil && ck.Value != "" {
		if _, err := c.Store.SessionUser(r.Context(), HashToken(ck.Value)); err == nil {
			http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
			return
		}
	}
	c.render(w, r, http.StatusOK, "signin", c.prePage(w, r, "Sign in", signInForm{Next: safeNext(r.URL.Query().Get("next"))}))
}

// safeNext keeps a return path inside the console; anything else (another
// site, a scheme-relative URL) goes home.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(next, "/console/") ||
		strings.HasPrefix(next, "/console/signin") || strings.ContainsAny(next, "\\\r\n") {
		return "/console/"
	}
	return next
}

// clientAddr is the address sign-in attempts are counted against: the
// connection's peer, or, when the peer is one of the trusted proxies, the
// last address in X-Forwarded-For that is not (each proxy appends the peer
// it saw, so addresses left of the first untrusted one are the client's
// own claims and count for nothing).
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !within(peer.Unmap(), trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return host // a malformed hop: the proxy's own address, as without the header
		}
		if a = a.Unmap(); !within(a, trusted) {
			return a.String()
		}
	}
	return host
}

func within(a netip.Addr, ranges []netip.Prefix) bool {
	for _, p := range ranges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	form := signInForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: safeNext(r.PostForm.Get("next"))}
	again := func(status int, msg string) {
		p := c.prePage(w, r, "Sign in", form)
		p.Error = msg
		c.render(w, r, status, "signin", p)
	}
	email := strings.ToLower(form.Email)
	addr := clientAddr(r, c.TrustedProxies)
	subjects := []string{"email:" + email, "addr:" + addr}
	// The attempt is counted before its password is checked, so parallel
	// guesses cannot slip past the limits while earlier ones hash.
	until, err := c.Store.ReserveSignIn(r.Context(), []store.SignInLimit{{Subject: subjects[0], Max: maxFailsAccount},
		{Subject: subjects[1], Max: maxFailsAddress}}, signInWindow)
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	if !until.IsZero() {
		wait := max(until.Sub(c.Store.Now()), time.Minute)
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())))
		again(http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins. Try again in %s.", span(wait)))
		return
	}
	// One address hashes one password at a time: a flood from one
	// address holds one of the node's hashing slots, not all of them.
	release, err := c.hashTurns.take(r.Context(), addr)
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	password := r.PostForm.Get("password")
	u, err := c.Store.UserByEmail(r.Context(), email)
	ok := false
	switch {
	case err == nil:
		ok, err = CheckPassword(u.PasswordHash, password)
	case model.ErrorCode(err) == model.CodeNotFound:
		// Take as long as a real check, so timing tells no account apart.
		_, err = CheckPassword(decoy(), password)
	}
	release()
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	if !ok {
		again(http.StatusUnauthorized, "That email and password do not match an account.")
		return
	}
	if err := c.Store.SignInSucceeded(r.Context(), subjects[0], subjects[1:]); err != nil {
		c.fail(w, r, nil, err)
		return
	}
	if err := c.startSession(w, r, u); err != nil {
		c.fail(w, r, nil, err)
		return
	}
	http.Redirect(w, r, form.Next, http.StatusSeeOther)
}

// startSession signs u in with a new session; the session the browser held
// before, if any, ends (no session is ever carried across a sign-in).
func (c *Console) startSession(w http.ResponseWriter, r *http.Request, u *store.User) error {
	old := ""
	if ck, err := r.Cookie(sessionCookie); err == nil && ck.Value != "" {
		old = HashToken(ck.Value)
	}
	token := newToken()
	if err := c.Store.CreateSession(r.Context(), HashToken(token), u.ID, c.Store.Now().Add(SessionLifetime), old); err != nil {
		return err
	}
	c.setCookie(w, r, sessionCookie, token, int(SessionLifetime.Seconds()))
	c.setCookie(w, r, preCookie, "", -1)
	return nil
}

func (c *Console) signOut(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := c.Store.DeleteSession(r.Context(), HashToken(rq.token)); err != nil {
		c.fail(w, r, nil, err)
		return
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
}

type setupForm struct {
	Token     string
	Email     string
	Workspace string
}

func (c *Console) setupPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	ws, err := c.Store.SetupLink(r.Context(), HashToken(token))
	if err != nil {
		if model.ErrorCode(err) == model.CodeNotFound {
			c.problem(w, r, nil, http.StatusNotFound, "This setup link is unknown, used or expired. "+setupLinkComment)
			return
		}
		c.fail(w, r, nil, err)
		return
	}
	c.render(w, r, http.StatusOK, "setup", c.prePage(w, r, "Create your account", setupForm{Token: token, Workspace: ws.Name}))
}

func (c *Console) setup(w http.ResponseWriter, r *http.Request) {
	form := setupForm{Token: r.PostForm.Get("token"), Email: strings.TrimSpace(r.PostForm.Get("email"))}
	ws, err := c.Store.SetupLink(r.Context(), HashToken(form.Token))
	if err != nil {
		if model.ErrorCode(err) == model.CodeNotFound {
			c.problem(w, r, nil, http.StatusNotFound, "This setup link is unknown, used or expired. "+setupLinkComment)
			return
		}
		c.fail(w, r, nil, err)
		return
	}
	form.Workspace = ws.Name
	again := func(msg string) {
		p := c.prePage(w, r, "Create your account", form)
		p.Error = msg
		c.render(w, r, http.StatusBadRequest, "setup", p)
	}
	email, err := NormalizeEmail(form.Email)
	if err != nil {
		again(model.ErrorMessage(err))
		return
	}
	password := r.PostForm.Get("password")
	if err := CheckNewPassword(password); err != nil {
		again(model.ErrorMessage(err))
		return
	}
	if password != r.PostForm.Get("confirm") {
		again("The two passwords differ.")
		return
	}
	u, err := c.Store.UseSetupLink(r.Context(), HashToken(form.Token), email, HashPassword(password))
	if err != nil {
		if code := model.ErrorCode(err); code == model.CodeConflict || code == model.CodeNotFound {
			again(model.ErrorMessage(err))
			return
		}
		c.fail(w, r, nil, err)
		return
	}
	if err := c.startSession(w, r, u); err != nil {
		c.fail(w, r, nil, err)
		return
	}
	http.Redirect(w, r, "/console/w/"+url.PathEscape(ws.Name)+"/", http.StatusSeeOther)
}

func (c *Console) passwordPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.render(w, r, http.StatusOK, "password", rq.page("password", "Password", nil))
}

// changePassword sets a new password when the current one is given. The
// current password is checked under the sign-in limits, so a borrowed
// session cannot guess it faster than the sign-in form; every other
// session of the account ends.
func (c *Console) changePassword(w http.ResponseWriter, r *http.Request, rq *request) {
	again := func(status int, msg string) {
		p := rq.page("password", "Password", nil)
		p.Error = msg
		c.render(w, r, status, "password", p)
	}
	subjects := []string{"email:" + rq.user.Email, "addr:" + clientAddr(r, c.TrustedProxies)}
	until, err := c.Store.ReserveSignIn(r.Context(), []store.SignInLimit{{Subject: subjects[0], Max: maxFailsAccount},
		{Subject: subjects[1], Max: maxFailsAddress}}, signInWindow)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if !until.IsZero() {
		wait := max(until.Sub(c.Store.Now()), time.Minute)
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())))
		again(http.StatusTooManyRequests, fmt.Sprintf("Too many wrong passwords. Try again in %s.", span(wait)))
		return
	}
	release, err := c.hashTurns.take(r.Context(), clientAddr(r, c.TrustedProxies))
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	ok, err := CheckPassword(rq.user.PasswordHash, r.PostForm.Get("current"))
	release()
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if !ok {
		again(http.StatusUnauthorized, "That is not your current password.")
		return
	}
	if err := c.Store.SignInSucceeded(r.Context(), subjects[0], subjects[1:]); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	next := r.PostForm.Get("new")
	if next != r.PostForm.Get("confirm") {
		again(http.StatusBadRequest, "The new password and its confirmation differ.")
		return
	}
	if err := CheckNewPassword(next); err != nil {
		again(http.StatusBadRequest, model.ErrorMessage(err))
		return
	}
	if err := c.Store.SetPassword(r.Context(), rq.user.ID, HashPassword(next), HashToken(rq.token)); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/console/password?ok=password", http.StatusSeeOther)
}
