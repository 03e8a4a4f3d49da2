package console_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestWebhookWithoutSecretShowsTheGeneratedOneOnce: a webhook saved with
// an empty secret field gets a generated whsec_ secret, shown on the page
// that answers the save and never again (DECISIONS.md, Webhooks).
func TestWebhookWithoutSecretShowsTheGeneratedOneOnce(t *testing.T) {
	e := newEnv(t)
	ann := e.signedIn("ann@example.com")
	tok := ann.token("/console/w/acme/alerts", "/console/w/acme/alerts/webhook")
	res, body := ann.post("/console/w/acme/alerts/webhook", url.Values{"csrf": {tok},
		"webhook_url": {"http://127.0.0.1:9/hook"}, "webhook_secret": {""}})
	secret := regexp.MustCompile(`whsec_[A-Za-z0-9+/=]{44}`).FindString(html.UnescapeString(body))
	if res.StatusCode != http.StatusOK || secret == "" || !strings.Contains(body, "shown this once") {
		t.Fatalf("save without a secret: %d, secret %q\n%s", res.StatusCode, secret, body)
	}
	if _, body := ann.get("/console/w/acme/alerts"); strings.Contains(html.UnescapeString(body), secret) || !strings.Contains(body, "127.0.0.1:9/hook") {
		t.Error("the alerts page shows the generated secret again, or not the webhook")
	}
	// Saving the URL again keeps the secret and shows nothing.
	tok = ann.token("/console/w/acme/alerts", "/console/w/acme/alerts/webhook")
	if res, _ := ann.post("/console/w/acme/alerts/webhook", url.Values{"csrf": {tok},
		"webhook_url": {"http://127.0.0.1:9/other"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("second save: %d, want a redirect", res.StatusCode)
	}
}
