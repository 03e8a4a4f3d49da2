package webacq_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq"
)

// The README's shell examples work when pasted (issue 22, part 5): every
// ```sh block not marked `<!-- readme-test: skip (why) -->` runs, in order
// and in one bash session (so variables such as $MON carry over), against
// a freshly started node on 127.0.0.1 with the built binary first on PATH.
// What a reader would change is changed: the node's address for
// 127.0.0.1:8080, a local site for the example sites, a local receiver for
// the webhook and Slack URLs, a local model server for extraction, and
// the key of the first start for `KEY=mc_…`. A command that fails, or an
// answer with "ok":false or "isError":true, fails the test.
// listeningAddr reads the bound address from the node's "listening" log line.
var listeningAddr = regexp.MustCompile(`\baddr=(127\.0\.0\.1:[0-9]+)`)

func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node and runs every README example")
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is needed by the README's examples: scripts/setup.sh installs it")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "webacq"), "./cmd/webacq").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}

	site := httptest.NewServer(http.HandlerFunc(serveExampleSite))
	defer site.Close()
	var hooks sync.Map
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hooks.Store(r.URL.Path, string(b))
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()
	model := httptest.NewServer(http.HandlerFunc(serveExampleModel))
	defer model.Close()

	// The node binds a port of its own choosing and says which in its
	// "listening" line: a port picked here and closed again could be
	// taken by another process before the node binds it.
	env := append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"WEBACQ_DATABASE_URL=sqlite:"+filepath.Join(dir, "webacq.db"),
		"WEBACQ_ADDR=127.0.0.1:0", "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0",
		"WEBACQ_SECRET_KEY=readme-test-secret-key-0123456789",
		"WEBACQ_LLM_PROVIDER=openai", "WEBACQ_LLM_BASE_URL="+model.URL+"/v1", "WEBACQ_LLM_API_KEY=test", "WEBACQ_LLM_MODEL=test",
		"WEBACQ_SMTP_URL=smtp://127.0.0.1:1", "WEBACQ_SMTP_FROM=webacq@example.com",
		"WEBACQ_SMS_URL="+receiver.URL+"/sms", "WEBACQ_SMS_ACCOUNT=AC0", "WEBACQ_SMS_TOKEN=t", "WEBACQ_SMS_FROM=+15550000000")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	serve := exec.CommandContext(ctx, filepath.Join(bin, "webacq"), "serve")
	serve.Env = env
	stderr, _ := serve.StderrPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	key, addr := "", ""
	var logs bytes.Buffer
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		logs.WriteString(sc.Text() + "\n")
		if k, ok := strings.CutPrefix(sc.Text(), "api key: "); ok {
			key = k
		}
		if strings.Contains(sc.Text(), "msg=listening") {
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr = m[1]
			}
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if key == "" {
		t.Fatalf("no key at the first start:\n%s", logs.String())
	}
	if addr == "" {
		t.Fatalf("the node did not say where it listens:\n%s", logs.String())
	}

	blocks := readmeBlocks(t, webacq.README)
	subst := strings.NewReplacer(
		"http://127.0.0.1:8080", "http://"+addr, "localhost:8080", addr,
		"https://investors.example.com", site.URL, "https://example.com", site.URL,
		"https://hooks.example.com", receiver.URL, "https://hooks.slack.com", receiver.URL,
	)
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, b := range blocks {
		fmt.Fprintf(&script, "echo '@@@ README line %d'\n", b.line)
		for _, l := range strings.Split(b.text, "\n") {
			if strings.HasPrefix(l, "KEY=mc_…") {
				continue // the reader's key: set below
			}
			script.WriteString(subst.Replace(l) + "\n")
		}
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Env = append(env, "KEY="+key)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	// Attribute each answer to the README line of its block.
	line := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if n, ok := strings.CutPrefix(l, "@@@ README line "); ok {
			fmt.Sscan(n, &line)
			continue
		}
		if strings.Contains(l, `"ok":false`) || strings.Contains(l, `"isError":true`) {
			t.Errorf("README block at line %d answered an error: %.400s", line, l)
		}
	}
	if runErr != nil {
		t.Fatalf("README block at line %d failed: %v\nstderr: %s\nlast output: %.2000s", line, runErr, errOut.String(), tail(out.String(), 2000))
	}
	if _, ok := hooks.Load("/webacq"); !ok {
		t.Log("no webhook delivery arrived during the examples (a check that changes nothing sends none)")
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

type readmeBlock struct {
	line int
	text string
}

var skipMark = regexp.MustCompile(`^<!-- readme-test: skip \(.+\) -->$`)

// readmeBlocks returns the ```sh blocks of the README not marked skip.
func readmeBlocks(t *testing.T, readme string) []readmeBlock {
	var blocks []readmeBlock
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```sh" {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if start > 0 && skipMark.MatchString(lines[start-1]) {
			continue
		}
		if start > 0 && strings.HasPrefix(lines[start-1], "<!-- readme-test") {
			t.Fatalf("README line %d: a readme-test mark must read <!-- readme-test: skip (why) -->", start)
		}
		blocks = append(blocks, readmeBlock{line: start + 1, text: strings.Join(body, "\n")})
	}
	if len(blocks) < 10 {
		t.Fatalf("only %d runnable shell blocks in the README", len(blocks))
	}
	return blocks
}

// serveExampleSite stands for the example sites of the README: an
// investor-relations page with a dividend, a docs tree, a sitemap.
func serveExampleSite(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/robots.txt":
		fmt.Fprintf(w, "User-agent: *\nSitemap: http://%s/sitemap.xml\n", r.Host)
	case r.URL.Path == "/sitemap.xml":
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, p := range []string{"/", "/news", "/investors/q3", "/ir/q3", "/docs/", "/docs/dividend"} {
			fmt.Fprintf(w, "<url><loc>http://%s%s</loc></url>", r.Host, p)
		}
		fmt.Fprint(w, "</urlset>")
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Example Corp %s</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/docs/">Docs</a> <a href="/docs/dividend">Dividend policy</a></nav>
<main><h1>Example Corp reports third-quarter results</h1>
<p>Example Corp reported revenue of 120 million for the third quarter, up 8 percent, and results ahead of guidance.</p>
<p>The board declared a quarterly dividend of <b>0.25</b> <i>per share</i>, payable on December 15, 2026 to holders of record on December 1.</p>
<ul><li><a href="/ir/q3">Third-quarter results</a> <span>Nov 12, 2026</span></li>
<li><a href="/docs/dividend">Dividend history</a></li></ul>
</main><footer>© 2026 Example Corp</footer></body></html>`, r.URL.Path)
	}
}

// serveExampleModel is an OpenAI-compatible model that answers every
// extraction with the dividend of the example page, in the shape the
// request's schema (if any) asks for.
func serveExampleModel(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	answer := `{"found":true,"data":[{"quarter":"Q3","date":"2026-12-15"}]}`
	if bytes.Contains(b, []byte(`payable`)) {
		answer = `{"amount":"0.25 per share","payable":"2026-12-15"}`
	}
	out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}
