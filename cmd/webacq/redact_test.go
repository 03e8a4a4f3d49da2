package main_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// A key sent where it does not belong (a URL path, a query) is never
// written whole to the log, to usage rows or to activity rows.
func TestKeysInPathsAreRedacted(t *testing.T) {
	t.Parallel() // see TestMain
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
	// serve writes a request's access line after its answer and flushes its
	// log every 100 ms: wait for the line of the last call above (so every
	// earlier line is out too) rather than for a fixed time a loaded machine
	// may outlast.
	var log string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if log = s.stderr.String(); strings.Contains(log, "path=/api/v1/usage ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access line of the last call after 10 s:\n%s", log)
		}
	}
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

// serve and worker name the database they open in their first log lines,
// with its password hidden: an operator sees which database a node uses,
// and a log shipped elsewhere holds no credential.
func TestNodesNameTheirDatabaseWithoutItsPassword(t *testing.T) {
	t.Parallel() // see TestMain
	const password = "pw-kept-out-of-logs"
	u, err := url.Parse(storetest.URL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	// The test cluster trusts local connections: the password is not
	// checked, only carried.
	u.User = url.UserPassword(u.User.Username(), password)
	dbURL := u.String()
	env := []string{"WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0"}
	s := startServer(t, dbURL, env...)
	w := startWorker(t, dbURL, env...)
	redacted := u.Redacted()
	for name, log := range map[string]string{"serve": s.stderr.String(), "worker": w.log.String()} {
		if strings.Contains(log, password) {
			t.Errorf("%s logged the database password:\n%s", name, log)
		}
		if !strings.Contains(log, "database="+redacted) && !strings.Contains(log, `database="`+redacted+`"`) {
			t.Errorf("%s does not name its database %s:\n%s", name, redacted, log)
		}
	}
}
