package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"webacq/internal/content/contenttest"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestHostilePDFsAnswerWithinTheTimeout serves a node three hostile PDFs
// — a page tree that lists itself and one declaring 2,147,483,647 pages
// (each spun a core for ever in the old in-process reader), and a 1 MB
// document inflating to 200 MB (1.9 GB of RSS before) — and fetches each
// through the API: each answers upstream_error within the request's
// timeout, the node's peak RSS stays under 300 MB, and the failed calls
// cost nothing. Not parallel (see TestMain). The bomb is stopped by its
// 10 s of CPU time; the requests ask for fetch's longest timeout (120 s) so
// that a loaded machine (beside busy loops it took more than 60 s to give
// the bomb those 10 s) still judges it by that limit, not by the request's
// time, which answers timeout (TestFetchHostilePDF).
func TestHostilePDFsAnswerWithinTheTimeout(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext missing (run scripts/setup.sh): the node would use the in-process fallback")
	}
	docs := map[string][]byte{
		"/self-kids.pdf":  contenttest.SelfKidsPDF(),
		"/huge-count.pdf": contenttest.HugeCountPDF(),
		"/bomb.pdf":       contenttest.FlateBombPDF(200 << 20),
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(body)
	}))
	defer site.Close()

	db := storetest.URL(t, store.SQLite)
	// The binary without the race detector (plainBinary): its RSS is what
	// a node has; the race detector multiplies every allocation.
	s := startServerWith(t, plainBinary(t), db, "WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none")
	balance := func() int {
		out := mustRun(t, db, "workspace", "list")
		m := regexp.MustCompile(`default\s+(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no default workspace in:\n%s", out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	before := balance()

	const timeout = 120 * time.Second // fetch's longest
	for path := range docs {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			body := fmt.Sprintf(`{"url":%q,"timeout":%d}`, site.URL+path, timeout.Milliseconds())
			req, _ := http.NewRequest("POST", s.url+"/api/v1/fetch", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+s.key)
			req.Header.Set("Content-Type", "application/json")
			client := &http.Client{Timeout: timeout + 30*time.Second}
			t0 := time.Now()
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			took := time.Since(t0)
			var env struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
				Code  string `json:"code"`
			}
			if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusBadGateway || env.Code != "upstream_error" {
				t.Errorf("got %d %s %q, want 502 upstream_error", res.StatusCode, env.Code, env.Error)
			}
			if took > timeout {
				t.Errorf("answered after %s, past the %s timeout", took, timeout)
			}
			t.Logf("%d %s %q in %s", res.StatusCode, env.Code, env.Error, took.Round(time.Millisecond))
		})
	}

	if hwm := peakRSS(t, s.cmd.Process.Pid); hwm > 300<<20 {
		t.Errorf("node peak RSS %d MB, want under 300 MB", hwm>>20)
	} else {
		t.Logf("node peak RSS %d MB", hwm>>20)
	}
	if after := balance(); after != before {
		t.Errorf("balance %d after the failed fetches, want %d (refunded)", after, before)
	}
}
