package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Without WEBACQ_DATABASE_URL every command uses one database in the
// user's data directory, whatever directory it starts in, says which on
// each command that writes, and keeps a secret key beside it, so that the
// local node seals webhook secrets without any setting (issue 22).
func TestLocalDatabaseAndKey(t *testing.T) {
	t.Parallel() // see TestMain
	home := t.TempDir()
	env := func() []string {
		var out []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "WEBACQ_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") {
				out = append(out, kv)
			}
		}
		return append(out, "HOME="+home, "WEBACQ_CHROMIUM=none")
	}
	runIn := func(dir string, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = dir, env()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("webacq %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	db := filepath.Join(home, ".local", "share", "webacq", "webacq.db")
	_, errOut := runIn(t.TempDir(), "workspace", "create", "acme", "--monitoring")
	if !strings.Contains(errOut, "database: sqlite:"+db) {
		t.Fatalf("workspace create did not name the database %s: %q", db, errOut)
	}
	out, errOut := runIn(t.TempDir(), "workspace", "list")
	if !strings.Contains(out, "acme") {
		t.Fatalf("workspace list in another directory: %q", out)
	}
	if strings.Contains(errOut, "database:") {
		t.Errorf("a command that changes nothing named the database: %q", errOut)
	}
	keyFile := filepath.Join(filepath.Dir(db), "secret.key")
	fi, err := os.Stat(keyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret key file: %v, mode %v", err, fi)
	}
	first, _ := os.ReadFile(keyFile)

	// The local node seals a webhook secret with it, and starts again.
	for range 2 {
		s := startServerWith(t, binary, "", "HOME="+home, "XDG_DATA_HOME=", "WEBACQ_DATABASE_URL=", "WEBACQ_SECRET_KEY=")
		key := strings.TrimSpace(localOut(t, runIn, "key", "create", "--workspace", "acme", "--name", "k"))
		code, env := restCall(t, s, key, "POST", "/api/v1/monitor/webhook",
			`{"webhook_url":"https://hooks.example.com/in","webhook_secret":"a-receiver-secret-0123456789"}`)
		if code != 200 {
			t.Fatalf("set webhook on the local node: %d %v", code, env)
		}
		s.cmd.Process.Signal(syscall.SIGTERM)
		s.cmd.Wait()
	}
	if again, _ := os.ReadFile(keyFile); !bytes.Equal(first, again) {
		t.Fatal("the kept secret key changed")
	}
}

func localOut(t *testing.T, runIn func(string, ...string) (string, string), args ...string) string {
	t.Helper()
	out, _ := runIn(t.TempDir(), args...)
	return out
}
