package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"webacq/internal/console"
)

// TestFormOverTheCapRefused: a sign-in form (open to anyone, before a
// session) over the 1 MB form cap is refused as a form that could not be
// read, and no password is checked for it.
func TestFormOverTheCapRefused(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	tok := c.token("/console/signin", "/console/signin")
	before := console.PasswordChecks()
	res, body := c.post("/console/signin", url.Values{"csrf": {tok}, "email": {"ann@example.com"},
		"password": {password}, "pad": {strings.Repeat("x", 2<<20)}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "could not be read") {
		t.Errorf("2 MB sign-in form: %d, want 400 saying the form could not be read", res.StatusCode)
	}
	if n := console.PasswordChecks() - before; n != 0 {
		t.Errorf("%d passwords checked for a form over the cap", n)
	}
	// The same form under the cap signs in.
	if res := c.signIn("ann@example.com", password); res.StatusCode != http.StatusSeeOther {
		t.Errorf("sign-in after: %d", res.StatusCode)
	}
}
