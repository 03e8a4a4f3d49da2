package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// runWith runs the binary to completion with env added (later entries win)
// and returns stdout, stderr and the exit code.
func runWith(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), "WEBACQ_DATABASE_URL=sqlite:"+t.TempDir()+"/unused.db", "WEBACQ_CHROMIUM=none"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func testSite(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nSitemap: %s/sitemap.xml\n", srv.URL)
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/filings/8k</loc></url></urlset>`, srv.URL)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html lang="en"><head><title>Investor news</title></head><body><nav><a href="/ir">IR</a></nav><article><h1>Board declares dividend</h1>
<p>The board of directors declared a quarterly cash dividend of 25 cents per share, payable on March 1 to shareholders of record at the close of business on February 15.</p>
<p>The company also reaffirmed its full-year outlook and announced a new share repurchase program.</p></article></body></html>`)
		case "/ir/news":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html lang="en"><head><title>IR news</title></head><body><article><h1>Investor relations news</h1>
<p>Our latest press releases, filings and presentations for shareholders are listed on the home page of the site.</p>
<p><a href="/">All news</a></p></article></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.Start() // after srv is set: the handler reads srv.URL
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchCommand(t *testing.T) {
	srv := testSite(t)
	out, errOut, code := runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, "fetch", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "# Board declares dividend") || !strings.Contains(out, "25 cents per share") {
		t.Fatalf("fetch: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A command that never extracts does not talk about extraction.
	if strings.Contains(errOut, "extract off") {
		t.Errorf("fetch printed a line about extraction:\n%s", errOut)
	}
	out, _, code = runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, "fetch", "--format", "json", "--tier", "http", srv.URL+"/")
	var payload struct {
		Title, Tier string
		StatusCode  int
	}
	if err := json.Unmarshal([]byte(out), &payload); err != nil || code != 0 || payload.Title != "Investor news" || payload.Tier != "http" || payload.StatusCode != 200 {
		t.Fatalf("fetch --format json: exit %d, %v, %+v", code, err, payload)
	}
	// The guard is on by default: loopback is refused.
	_, errOut, code = runWith(t, nil, "fetch", srv.URL+"/")
	if code == 0 || !strings.Contains(errOut, "forbidden_url") {
		t.Fatalf("guarded fetch: exit %d, %q", code, errOut)
	}
	if _, errOut, code = runWith(t, nil, "fetch", "notaurl"); code == 0 || !strings.Contains(errOut, "bad_request") {
		t.Fatalf("bad URL: exit %d, %q", code, errOut)
	}
}

func TestMapCommand(t *testing.T) {
	srv := testSite(t)
	out, errOut, code := runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, "map", srv.URL+"/")
	if code != 0 || !strings.Contains(out, srv.URL+"/filings/8k\n") || !strings.Contains(out, srv.URL+"/ir\n") {
		t.Fatalf("map: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, _, code = runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, "map", "--limit", "1", srv.URL+"/")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("map --limit 1 printed:\n%s", out)
	}
}

func TestGyreCommand(t *testing.T) {
	srv := testSite(t)
	out, errOut, code := runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, "gyre", "--max-pages", "3", "--tier", "http", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "# Board declares dividend") || !strings.Contains(out, "<!-- "+srv.URL+"/ (200, via start) -->") {
		t.Fatalf("gyre: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, _, code = runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, "gyre", "--format", "json", "--quiet", "--max-pages", "2", srv.URL+"/")
	var res struct {
		StartURL   string
		TotalPages int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.TotalPages < 1 || res.StartURL != srv.URL+"/" {
		t.Fatalf("gyre --format json: exit %d %v %q", code, err, out)
	}
	// A crawl stays in the start page's directory unless told otherwise.
	for flag, want := range map[string]int{"": 1, "--crawl-entire-domain": 2} {
		args := []string{"gyre", "--format", "json", "--quiet", "--tier", "http", srv.URL + "/ir/news"}
		if flag != "" {
			args = append(args, flag)
		}
		out, errOut, code := runWith(t, []string{"WEBACQ_ALLOW_PRIVATE=1"}, args...)
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.TotalPages != want {
			t.Errorf("gyre %s: exit %d, %d pages, want %d\n%s", flag, code, res.TotalPages, want, errOut)
		}
	}
	if _, errOut, code = runWith(t, nil, "gyre", srv.URL+"/"); code == 0 || !strings.Contains(errOut, "forbidden_url") {
		t.Fatalf("guarded gyre: exit %d %q", code, errOut)
	}
}
