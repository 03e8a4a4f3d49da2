package main_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestSecretKeyCheckedAtStart: once a webhook secret is stored, serve and
// worker refuse to start without the key that sealed it, or with another.
func TestSecretKeyCheckedAtStart(t *testing.T) {
	t.Parallel() // see TestMain
	db := storetest.URL(t, store.SQLite)
	const key = "WEBACQ_SECRET_KEY=first-operator-key-0123456789"
	s := startServer(t, db, "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", key)
	code, env := restCall(t, s, s.key, "POST", "/api/v1/monitor/webhook",
		`{"webhook_url":"https://hooks.example.com/in","webhook_secret":"a-receiver-secret-0123456789"}`)
	if code != 200 {
		t.Fatalf("set webhook: %d %v", code, env)
	}
	if strings.Contains(s.stderr.String(), "a-receiver-secret") {
		t.Error("the secret appears in the log")
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()

	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "set WEBACQ_SECRET_KEY"},
		{[]string{"WEBACQ_SECRET_KEY=another-operator-key-0123456789"}, "does not open the stored webhook secrets"},
		{[]string{"WEBACQ_SECRET_KEY=short"}, "at least 16 characters"},
	} {
		for _, cmd := range []string{"serve", "worker"} {
			done := make(chan struct{})
			var errOut string
			var exit int
			go func() {
				defer close(done)
				_, errOut, exit = runWith(t, append([]string{"WEBACQ_DATABASE_URL=" + db, "WEBACQ_ADDR=127.0.0.1:0",
					"WEBACQ_CHROMIUM=none"}, c.env...), cmd)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s with %v did not stop", cmd, c.env)
			}
			if exit == 0 || !strings.Contains(errOut, c.want) {
				t.Errorf("%s with %v: exit %d, stderr %q; want an error saying %q", cmd, c.env, exit, errOut, c.want)
			}
		}
	}
	// The right key starts.
	apiKey := s.key
	s = startServer(t, db, "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", key)
	if code, env := restCall(t, s, apiKey, "GET", "/api/v1/monitor/webhook", ""); code != 200 ||
		!strings.Contains(fmt.Sprint(env), "secret_set:true") {
		t.Errorf("after restart: %d %v", code, env)
	}
}
