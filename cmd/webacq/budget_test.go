package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// linkFarm is a hostile page: 6 MB of 200,000 links, which a conversion
// turns into about 180 MB of live heap.
func linkFarm() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>farm</title></head><body><article><h1>Links</h1>")
	for i := range 200000 {
		fmt.Fprintf(&b, `<a href="/p/%d">l%d</a> `, i, i)
	}
	b.WriteString("</article></body></html>")
	return []byte(b.String())
}

// Sixteen hostile pages fetched at once keep the node under its memory
// budget: each answer is the page or rate_limited with Retry-After, and the
// node keeps serving. WEBACQ_BUDGET_BEFORE=1 runs the same load without a
// budget, to measure what it prevents.
func TestHostilePagesStayWithinTheMemoryBudget(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("loads a node with 16 hostile pages")
	}
	farm := linkFarm()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(farm)
	}))
	defer site.Close()

	const budget = 1 << 30
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_ACCESS_LOG=0", "WEBACQ_CHROMIUM=/nonexistent"}
	if os.Getenv("WEBACQ_BUDGET_BEFORE") == "1" {
		env = append(env, "WEBACQ_MEMORY_BUDGET=64GiB", "WEBACQ_CONVERT_WORKERS=1000")
	}
	s := startServerWith(t, plainBinary(t), storetest.URL(t, store.SQLite), env...)
	if s.key == "" {
		t.Fatal("no bootstrap key")
	}

	const n = 16
	type answer struct {
		status     int
		code       string
		retryAfter string
		markdown   int
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"url":%q,"tier":"http","formats":["markdown","links"],"timeout":120000}`, site.URL+fmt.Sprintf("/farm/%d", i))
			req, _ := http.NewRequest("POST", s.url+"/api/v1/fetch", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+s.key)
			req.Header.Set("Content-Type", "application/json")
			res, err := (&http.Client{Timeout: 3 * time.Minute}).Do(req)
			if err != nil {
				t.Errorf("fetch %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			var env struct {
				Success bool   `json:"success"`
				Code    string `json:"code"`
				Data    struct {
					Markdown string `json:"markdown"`
				} `json:"data"`
			}
			raw, _ := io.ReadAll(res.Body)
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Errorf("fetch %d: %d %.200s", i, res.StatusCode, raw)
				return
			}
			answers[i] = answer{res.StatusCode, env.Code, res.Header.Get("Retry-After"), len(env.Data.Markdown)}
		}()
	}
	wg.Wait()

	peak := peakRSS(t, s.cmd.Process.Pid)
	ok, limited := 0, 0
	for i, a := range answers {
		switch {
		case a.status == 200 && a.markdown > 1<<20:
			ok++
		case a.status == 429 && a.code == "rate_limited" && a.retryAfter != "":
			limited++
		default:
			t.Errorf("fetch %d: %+v, want 200 with the page or 429 rate_limited with Retry-After", i, a)
		}
	}
	t.Logf("16 hostile pages of %d MB: %d converted, %d rate_limited, peak RSS %d MB (budget %d MB)",
		len(farm)>>20, ok, limited, peak>>20, budget>>20)
	if ok == 0 {
		t.Error("no page was converted")
	}
	if os.Getenv("WEBACQ_BUDGET_BEFORE") != "1" && peak > budget {
		t.Errorf("peak RSS %d MB, over the %d MB budget", peak>>20, budget>>20)
	}
	if code := s.health(t, s.key); code != 200 {
		t.Fatalf("health after the load: %d", code)
	}
}
