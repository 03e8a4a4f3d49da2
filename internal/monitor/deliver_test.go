package monitor_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"webacq/internal/secretbox"
	"webacq/internal/store"
)

// receiver is a webhook endpoint (the monitor tests that look at what a
// run delivers; delivery itself is tested in internal/alert) that answers from a script of statuses.
type receiver struct {
	mu      sync.Mutex
	answers []int
	got     []*http.Request
	bodies  [][]byte
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, req)
	r.bodies = append(r.bodies, body)
	status := http.StatusOK
	if len(r.answers) > 0 {
		status, r.answers = r.answers[0], r.answers[1:]
	}
	r.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, "thanks")
}

func withWebhook(t *testing.T, e *env, url, secret string) {
	t.Helper()
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	e.svc.Alerts.Secrets = box
	e.svc.Alerts.Backoff = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	sealed, err := box.Seal(secret, e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetWebhook(context.Background(), e.ws.ID, store.WebhookConfig{URL: url, SealedSecret: sealed}); err != nil {
		t.Fatal(err)
	}
}
