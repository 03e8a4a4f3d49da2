package acquire

import (
	"testing"

	"webacq/internal/content"
)

// TestEscalate: the one escalation policy the primitives and the monitor
// check share. A wall or a JavaScript shell goes to the browser; a plain 429
// or 503 (the site's answer to load) does not, though the monitor check
// used to send it there.
func TestEscalate(t *testing.T) {
	cases := []struct {
		status  int
		verdict content.Verdict
		want    bool
	}{
		{403, content.VerdictBlocked, true},
		{401, content.VerdictBlocked, true},
		{200, content.VerdictCaptcha, true},
		{503, content.VerdictBlocked, true}, // a 503 carrying a block notice
		{200, content.VerdictJSRequired, true},
		{429, content.VerdictJSRequired, false},
		{503, content.VerdictJSRequired, false},
		{429, content.VerdictOK, false},
		{503, content.VerdictOK, false},
		{200, content.VerdictOK, false},
		{200, content.VerdictThin, false},
		{404, content.VerdictOK, false},
	}
	for _, c := range cases {
		if got := Escalate(c.status, c.verdict); got != c.want {
			t.Errorf("Escalate(%d, %s) = %t, want %t", c.status, c.verdict, got, c.want)
		}
	}
}

// A plain 429 or 503 page, classified as the monitor check classifies an
// answer (no conversion), is not escalated; a 403 is.
func TestEscalateUnconvertedAnswers(t *testing.T) {
	page := []byte("<html><body><p>Too many requests, slow down.</p></body></html>")
	for status, want := range map[int]bool{429: false, 503: false, 403: true} {
		if got := Escalate(status, content.Classify(status, page, nil)); got != want {
			t.Errorf("HTTP %d: escalate %t, want %t", status, got, want)
		}
	}
}
