package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// A key sent where it does not belong (a URL path, a query) is never
// written whole to the log, to usage rows or to activity rows.
func TestKeysInPathsAreRedacted(t *testing.T) {
	db := storetest.URL(t, store.SQLite)
	s := startServer(t, db)
	if s.key == "" {
		t.Fatal("no bootstrap key")
	}
	leaked := strings.TrimSpace(mustRun(t, db, "key", "create", "--workspace", "default", "--name", "leaked"))
	tail := leaked[12:] // what the display prefix does not show
	call := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	call("DELETE", "/api/v1/keys/"+leaked)
	call("GET", "/api/v1/"+leaked+"/health")
	call("GET", "/api/v1/health?api_key="+leaked)
	call("GET", "/api/v1/nothing/"+leaked[:30])
	for _, path := range []string{"/api/v1/activity?limit=1000", "/api/v1/usage?limit=1000"} {
		code, body := call("GET", path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		if strings.Contains(body, tail[:8]) {
			t.Errorf("%s holds the key:\n%s", path, body)
		}
		if !strings.Contains(body, leaked[:12]+"[redacted]") {
			t.Errorf("%s does not show the redacted key:\n%s", path, body)
		}
	}
	time.Sleep(300 * time.Millisecond) // serve flushes its log every 100 ms
	log := s.stderr.String()
	if strings.Contains(log, tail[:8]) {
		t.Errorf("the log holds the key:\n%s", log)
	}
	if !strings.Contains(log, "path=/api/v1/keys/"+leaked[:12]+"[redacted]") {
		t.Errorf("the access log does not show the redacted path:\n%s", log)
	}
	// The key itself was not revoked by the odd calls, and still works.
	if code := s.health(t, leaked); code != 200 {
		t.Errorf("health with the leaked key: %d", code)
	}
}
