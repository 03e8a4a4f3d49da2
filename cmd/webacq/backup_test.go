package main_test

import (
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestBackupCommand: `webacq backup PATH` copies the database of a running
// server while it answers requests; the copy opens and holds what was
// written before the backup began; an existing file and PostgreSQL are
// refused.
func TestBackupCommand(t *testing.T) {
	t.Parallel() // see TestMain
	db := storetest.URL(t, store.SQLite)
	s := startServer(t, db)
	get := func(path string) {
		req, _ := http.NewRequest("GET", s.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
	for range 20 {
		get("/api/v1/health")
	}
	get("/api/v1/usage") // reading the logs writes what is queued first
	written := usageRows(t, strings.TrimPrefix(db, "sqlite:"))
	if written < 20 {
		t.Fatalf("%d usage rows before the backup, want at least 20", written)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				get("/api/v1/health")
			}
		}
	}()
	path := filepath.Join(t.TempDir(), "copy.db")
	_, errOut, code := run(t, db, "backup", path)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("backup: exit %d: %s", code, errOut)
	}
	if got := usageRows(t, path); got < written {
		t.Errorf("the copy holds %d usage rows, want at least the %d written before it began", got, written)
	}
	if out := mustRun(t, "sqlite:"+path, "workspace", "list"); !strings.Contains(out, "default") {
		t.Errorf("workspace list on the copy:\n%s", out)
	}

	before, _ := os.ReadFile(path)
	if _, errOut, code := run(t, db, "backup", path); code == 0 || !strings.Contains(errOut, "exists") {
		t.Errorf("backup over an existing file: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a refused backup changed the existing file")
	}
	// A wrong path is not backed up as an empty database.
	missing := filepath.Join(t.TempDir(), "missing.db")
	if _, errOut, code := run(t, "sqlite:"+missing, "backup", filepath.Join(t.TempDir(), "m.db")); code == 0 ||
		!strings.Contains(errOut, "no database") {
		t.Errorf("backup of a missing database: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("backup of a missing database created it")
	}
	// Refused before connecting: this server does not exist.
	pgPath := filepath.Join(t.TempDir(), "pg.db")
	_, errOut, code = run(t, "postgres://nobody@127.0.0.1:1/none", "backup", pgPath)
	if code == 0 || !strings.Contains(errOut, "pg_dump") {
		t.Errorf("backup on PostgreSQL: exit %d, %q, want an error naming pg_dump", code, errOut)
	}
	if _, err := os.Stat(pgPath); err == nil {
		t.Error("backup on PostgreSQL wrote a file")
	}
}

// usageRows counts the usage rows of an SQLite file.
func usageRows(t *testing.T, path string) int {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT COUNT(*) FROM usage_log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
