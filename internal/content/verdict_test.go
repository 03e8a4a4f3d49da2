package content

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClassifyRateLimitAndOutage: a 429 or 503 without a challenge is the
// site's rate limit or outage, not a block; challenges and access-denied
// notices keep their verdicts whatever the status.
func TestClassifyRateLimitAndOutage(t *testing.T) {
	const (
		nginx503  = `<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>`
		limited   = `<html><head><title>Rate limit exceeded</title></head><body><h1>Rate limit exceeded</h1><p>Try again in a minute.</p></body></html>`
		scripted  = `<html><head><title>Slow down</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>`
		amazon503 = `<html><head><title>Amazon.com</title></head><body><h4>Enter the characters you see below</h4><form method="get" action="/errors/validateCaptcha"><input name="field-keywords"></form></body></html>`
	)
	for _, c := range []struct {
		name   string
		body   string
		status int
		want   Verdict
	}{
		{"ratelimit.html", "", 429, VerdictThin},
		{"ratelimit.html", "", 200, VerdictBlocked}, // a 2xx page that is only the notice
		{"nginx 503", nginx503, 503, VerdictThin},
		{"rate-limit notice, 503", limited, 503, VerdictThin},
		{"rate-limit notice, 429", limited, 429, VerdictThin},
		{"rate-limit notice, 200", limited, 200, VerdictBlocked},
		{"script shell, 429", scripted, 429, VerdictJSRequired},
		{"access-denied.html", "", 503, VerdictBlocked},
		{"access-denied.html", "", 429, VerdictThin},
		{"cloudflare.html", "", 503, VerdictCaptcha},
		{"cloudflare.html", "", 429, VerdictCaptcha},
		{"datadome.html", "", 403, VerdictCaptcha},
		{"amazon robot check", amazon503, 503, VerdictCaptcha},
		{"ok.html", "", 503, VerdictOK},
	} {
		body := []byte(c.body)
		if c.body == "" {
			body = readTestdata(t, filepath.Join("verdict", c.name))
		}
		doc, err := HTML(body, "https://example.com/", Options{OnlyMainContent: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := Classify(c.status, body, doc); got != c.want {
			t.Errorf("%s/%d: got %s, want %s", c.name, c.status, got, c.want)
		}
	}
}

// TestClassifyReadsTextAsItIs: Classify reuses the word count the
// pipeline made of the text, but only while Text is still that text.
func TestClassifyReadsTextAsItIs(t *testing.T) {
	body := []byte(`<html><head><title>Notes</title></head><body><article><h1>Notes</h1><p>` +
		strings.Repeat("Every word of this sentence is a word of the main text. ", 12) + `</p></article></body></html>`)
	doc, err := HTML(body, "https://example.com/", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := Classify(200, body, doc); got != VerdictOK {
		t.Fatalf("as converted: got %s, want %s", got, VerdictOK)
	}
	doc.Text = "Three words left"
	if got := Classify(200, body, doc); got != VerdictThin {
		t.Errorf("text replaced: got %s, want %s", got, VerdictThin)
	}
}
