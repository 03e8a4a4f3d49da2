package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"webacq/internal/config"
)

// deployDir is the deployment example of the repository.
const deployDir = "../../deploy"

// deployFiles reads every file of deploy/ by its path there.
func deployFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(deployDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(deployDir, path)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Dockerfile", "compose.yaml", "env.example", "webacq.env.example",
		"systemd/webacq-serve.service", "systemd/webacq-worker.service"} {
		if _, ok := files[want]; !ok {
			t.Fatalf("deploy/%s is missing", want)
		}
	}
	return files
}

var (
	varRE = regexp.MustCompile(`\bWEBACQ_[A-Z0-9_]+`)
	// Assignments: NAME=value (env files, systemd Environment=, Dockerfile
	// ENV) and NAME: value (compose environment maps).
	assignRE  = regexp.MustCompile(`(?m)^\s*#?\s*(?:Environment=|ENV\s+)?(WEBACQ_[A-Z0-9_]+)(?:=|:\s)\s*"?([^"\s\\]*)"?`)
	interpRE  = regexp.MustCompile(`\$\{([A-Z0-9_]+)(?::[-?]([^}]*))?\}`)
	composeRE = regexp.MustCompile(`(?m)^\s*command:\s*(\[.*\])\s*$`)
	dockerRE  = regexp.MustCompile(`(?m)^CMD\s+(\[.*\])\s*$`)
	execRE    = regexp.MustCompile(`(?m)^ExecStart=/usr/local/bin/webacq\s+(.+)$`)
)

// TestDeployFilesAreTrue: every WEBACQ_ variable the deployment example
// names is one config.Load reads, every value it sets passes config.Load,
// every command it runs is one of the binary's, the image installs what
// scripts/setup.sh installs for the service, and the examples carry
// placeholders, not secrets.
func TestDeployFilesAreTrue(t *testing.T) {
	files := deployFiles(t)

	read := map[string]bool{}
	if _, err := config.Load(func(k string) string { read[k] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	named := 0
	for name, text := range files {
		for _, v := range varRE.FindAllString(text, -1) {
			named++
			if !read[v] {
				t.Errorf("deploy/%s names %s, which config.Load does not read", name, v)
			}
		}
		for _, m := range assignRE.FindAllStringSubmatch(text, -1) {
			value := interpRE.ReplaceAllStringFunc(m[2], func(s string) string {
				sub := interpRE.FindStringSubmatch(s)
				if strings.Contains(s, ":-") {
					return sub[2] // the default
				}
				return "CHANGE-ME-" + strings.ToLower(sub[1]) // a required secret
			})
			if _, err := config.Load(func(k string) string {
				if k == m[1] {
					return value
				}
				return ""
			}); err != nil {
				t.Errorf("deploy/%s sets %s=%s: %v", name, m[1], value, err)
			}
		}
	}
	if named < 10 {
		t.Fatalf("found %d WEBACQ_ variables in deploy/, want the example's settings", named)
	}

	var commands [][]string
	for name, text := range files {
		for _, re := range []*regexp.Regexp{composeRE, dockerRE} {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				var args []string
				if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
					t.Fatalf("deploy/%s: command %s: %v", name, m[1], err)
				}
				commands = append(commands, args)
			}
		}
		for _, m := range execRE.FindAllStringSubmatch(text, -1) {
			commands = append(commands, strings.Fields(m[1]))
		}
	}
	var verbs []string
	for _, args := range commands {
		verbs = append(verbs, args[0])
		if _, errOut, code := runWith(t, nil, append(args, "--help")...); code != 0 {
			t.Errorf("deploy/ runs `webacq %s`, which the binary does not know: %s", strings.Join(args, " "), errOut)
		}
	}
	for _, want := range []string{"serve", "worker"} {
		if !slices.Contains(verbs, want) {
			t.Errorf("deploy/ never runs `webacq %s` (commands found: %v)", want, verbs)
		}
	}

	// The load balancer's upstreams are the compose file's API nodes.
	ups := regexp.MustCompile(`(?m)^\s*reverse_proxy\s+([^{]+)\{`).FindStringSubmatch(files["Caddyfile"])
	if ups == nil {
		t.Fatal("deploy/Caddyfile has no reverse_proxy")
	}
	for _, u := range strings.Fields(ups[1]) {
		host, _, _ := strings.Cut(u, ":")
		svc := regexp.MustCompile(`(?ms)^  ` + regexp.QuoteMeta(host) + `:\n.*?command: \["serve"\]`)
		if m := svc.FindString(files["compose.yaml"]); m == "" || strings.Count(m, "command:") != 1 {
			t.Errorf("deploy/Caddyfile sends requests to %s, which is not a `serve` service of compose.yaml", u)
		}
	}

	// SIGKILL comes after the binary's own shutdown: twice
	// WEBACQ_SHUTDOWN_TIMEOUT for serve (requests, then jobs), once for a worker.
	grace := func(name, re string) time.Duration {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(files[name])
		if m == nil {
			t.Fatalf("deploy/%s: no %s", name, re)
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatalf("deploy/%s: %v", name, err)
		}
		return d
	}
	for _, c := range []struct {
		unit, env string
		times     time.Duration
	}{
		{"compose.yaml", "compose.yaml", 2},
		{"systemd/webacq-serve.service", "webacq.env.example", 2},
		{"systemd/webacq-worker.service", "webacq.env.example", 1},
	} {
		stop := grace(c.unit, `(?m)^\s*(?:stop_grace_period:|TimeoutStopSec=)\s*(\S+)`)
		shutdown := grace(c.env, `(?m)^\s*WEBACQ_SHUTDOWN_TIMEOUT[=:]\s*(\S+)`)
		if stop <= c.times*shutdown {
			t.Errorf("deploy/%s waits %s before SIGKILL, want more than %d × WEBACQ_SHUTDOWN_TIMEOUT (%s in %s)",
				c.unit, stop, c.times, shutdown, c.env)
		}
	}

	setup, err := os.ReadFile("../../scripts/setup.sh")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := regexp.MustCompile(`(?m)^PACKAGES="([^"]+)"`).FindSubmatch(setup)
	if pkgs == nil {
		t.Fatal(`scripts/setup.sh has no PACKAGES="…" line`)
	}
	// The words of the Dockerfile's apt-get install, continued lines included.
	install := regexp.MustCompile(`apt-get install((?:[^\n]*\\\n)*[^\n]*)`).FindStringSubmatch(files["Dockerfile"])
	if install == nil {
		t.Fatal("deploy/Dockerfile runs no apt-get install")
	}
	for _, p := range strings.Fields(string(pkgs[1])) {
		if !slices.Contains(strings.Fields(install[1]), p) {
			t.Errorf("deploy/Dockerfile does not install %s, which scripts/setup.sh installs", p)
		}
	}

	// Secrets in the examples are placeholders.
	secretRE := regexp.MustCompile(`(?m)^#?\s*([A-Z0-9_]*(?:SECRET|PASSWORD|TOKEN|API_KEY)[A-Z0-9_]*)=(.*)$`)
	urlPasswordRE := regexp.MustCompile(`://[^:/@\s]+:([^@\s]+)@`)
	for name, text := range files {
		if !strings.HasSuffix(name, ".example") {
			continue
		}
		for _, m := range secretRE.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[2], "CHANGE-ME") {
				t.Errorf("deploy/%s: %s=%s is not a CHANGE-ME placeholder", name, m[1], m[2])
			}
		}
		for _, m := range urlPasswordRE.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[1], "CHANGE-ME") {
				t.Errorf("deploy/%s: a URL carries the password %q, not a CHANGE-ME placeholder", name, m[1])
			}
		}
	}
}
