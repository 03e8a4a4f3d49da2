package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/crawljob"
	"webacq/internal/fetch"
	"webacq/internal/httpapi"
	"webacq/internal/jobs"
	"webacq/internal/mcp"
	"webacq/internal/primitive"
	"webacq/internal/secretbox"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
	"webacq/internal/webhook"
)

// newGyreJobEnv serves the API and the MCP endpoint with crawl jobs worked
// by a River queue; the workspace has credits.
func newGyreJobEnv(t *testing.T, dialect string, credits int64) (*env, *alert.Service) {
	t.Helper()
	s := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate) // with the job queue's tables
	cfg := testConfig(t)
	log := slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	b := billing.New(s, log)
	hc := fetch.New(fetch.Config{AllowPrivate: true})
	prims := &primitive.Service{HTTP: hc, Pages: s, Log: log, UserAgent: "webacq"}
	svc := billed.New(b, prims)
	api := httpapi.New(cfg, s, b, svc, log)
	api.SetMCP(mcp.New(s, b, svc, log, mcp.Options{Addr: "127.0.0.1:8080"}))
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	alerts := &alert.Service{Store: s, HTTP: hc, Log: log, Secrets: box}
	crawls := &crawljob.Service{Store: s, Biller: b, Prims: prims, Alerts: alerts, Log: log}
	w := river.NewWorkers()
	alerts.AddWorkers(w)
	crawls.AddWorkers(w)
	q, err := jobs.New(s, w, jobs.Config{Workers: 2, RescueAfter: time.Minute, PollInterval: 20 * time.Millisecond, Log: log,
		Queues: map[string]int{crawljob.Queue: 2}})
	if err != nil {
		t.Fatal(err)
	}
	alerts.Queue, crawls.Queue = q, q
	svc.SetGyreJobs(crawls)
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	t.Cleanup(func() {
		srv.Close()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		q.Stop(sctx)
		b.Close()
	})
	ws, err := s.CreateWorkspace(ctx, "acme", credits, false)
	if err != nil {
		t.Fatal(err)
	}
	key, k, err := s.CreateKey(ctx, ws.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, url: srv.URL, store: s, ws: ws, key: key, prefix: k.Prefix, biller: b, prims: prims}, alerts
}

// jobStatus is the answer of a crawl job read.
type jobStatus struct {
	JobID       string                `json:"job_id"`
	Status      string                `json:"status"`
	TotalPages  int                   `json:"totalPages"`
	CreditsUsed int64                 `json:"creditsUsed"`
	Pages       []primitive.GyrePage  `json:"pages"`
	Next        *string               `json:"next"`
	Errors      []primitive.GyreError `json:"errors"`
}

func (e *env) job(path string) (jobStatus, answer) {
	e.t.Helper()
	a := e.get(path)
	var st jobStatus
	if a.status == 200 {
		if err := json.Unmarshal(a.Data, &st); err != nil {
			e.t.Fatal(err)
		}
	}
	return st, a
}

// waitJob polls a job until until says so.
func (e *env) waitJob(id string, until func(jobStatus) bool) jobStatus {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, a := e.job("/api/v1/gyre/" + id)
		if a.status != 200 {
			e.t.Fatalf("GET job: %d %s", a.status, a.Error)
		}
		if until(st) {
			return st
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %s: still %+v", id, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startJob(t *testing.T, e *env, body string) string {
	t.Helper()
	a := e.send("POST", "/api/v1/gyre", body)
	var q struct {
		JobID  string `json:"job_id"`
		Status string `json:"status"`
	}
	json.Unmarshal(a.Data, &q)
	if a.status != 200 || q.JobID == "" || q.Status != "queued" || string(a.Data) != fmt.Sprintf(`{"job_id":%q,"status":"queued"}`, q.JobID) {
		t.Fatalf("async gyre: %d %s %s", a.status, a.Data, a.Error)
	}
	return q.JobID
}

func final(st jobStatus) bool { return st.Status != "queued" && st.Status != "running" }

func TestGyreAsyncContract(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e, _ := newGyreJobEnv(t, dialect, 20)
		s := smallSite(t, 12)
		// At the default depth 3 exactly 7 pages are in reach (/p1 and /p2
		// at 1, /p3 and /p4 at 2, /p5 and /p6 at 3), whichever fetch
		// answers first: a page's depth is its shortest link distance.
		id := startJob(t, e, `{"url":"`+s.URL+`/p0","maxPages":7,"tier":"http","async":true}`)
		// The hold is drawn with the job: 7 pages at 1 credit.
		if got := e.balance(); got > 13 {
			t.Fatalf("balance %d after queueing, want the hold of 7 drawn", got)
		}
		st := e.waitJob(id, final)
		if st.Status != "completed" || st.TotalPages != 7 || st.CreditsUsed != 7 || st.JobID != id || st.Errors == nil {
			t.Fatalf("job = %+v", st)
		}
		if got := e.balance(); got != 13 {
			t.Fatalf("balance %d, want 13", got)
		}
		// Usage rows: the queueing call is free, the job's settlement draws 7.
		var sum int64
		for _, u := range e.usageRows() {
			sum += u.Credits
		}
		if sum != 7 {
			t.Fatalf("usage credits %d, want 7", sum)
		}

		// Paged with limit and next: every page once, in the job's order.
		var got []string
		next := ""
		for range 10 {
			path := "/api/v1/gyre/" + id + "?limit=3"
			if next != "" {
				path += "&next=" + next
			}
			st, a := e.job(path)
			if a.status != 200 || len(st.Pages) > 3 {
				t.Fatalf("page: %d %s", a.status, a.Data)
			}
			for _, p := range st.Pages {
				got = append(got, p.URL)
			}
			if st.Next == nil {
				break
			}
			next = *st.Next
		}
		if len(got) != 7 || got[0] != s.URL+"/p0" {
			t.Fatalf("paged %d pages %v, want 7 from /p0", len(got), got)
		}
		seen := map[string]bool{}
		for _, u := range got {
			if seen[u] {
				t.Fatalf("page %s twice", u)
			}
			seen[u] = true
		}

		// POST {job_id, limit, next} answers what GET answers.
		g := e.get("/api/v1/gyre/" + id + "?limit=2")
		p := e.send("POST", "/api/v1/gyre", `{"job_id":"`+id+`","limit":2}`)
		if p.status != 200 || string(p.Data) != string(g.Data) {
			t.Fatalf("POST {job_id}: %d %s\nGET: %s", p.status, p.Data, g.Data)
		}
		wantError(t, e.send("POST", "/api/v1/gyre", `{"job_id":"`+id+`","url":"`+s.URL+`"}`), 400, "bad_request")
		wantError(t, e.send("POST", "/api/v1/gyre", `{"url":"`+s.URL+`","limit":3}`), 400, "bad_request")
		wantError(t, e.get("/api/v1/gyre/"+id+"?limit=500"), 400, "bad_request")
		wantError(t, e.get("/api/v1/gyre/"+id+"?next=x"), 400, "bad_request")
		wantError(t, e.get("/api/v1/gyre/nope"), 404, "not_found")
		// Another workspace does not see it.
		other, err := e.store.CreateWorkspace(ctx, "other", 5, false)
		if err != nil {
			t.Fatal(err)
		}
		okey, _, _ := e.store.CreateKey(ctx, other.ID, "o")
		if a := e.do("GET", "/api/v1/gyre/"+id, nil, "Authorization", "Bearer "+okey); a.status != 404 {
			t.Fatalf("other workspace read: %d", a.status)
		}
		// Cancelling an ended job changes nothing.
		d := e.send("DELETE", "/api/v1/gyre/"+id, "")
		if d.status != 200 || !strings.Contains(string(d.Data), `"status":"completed"`) || e.balance() != 13 {
			t.Fatalf("cancel after the end: %d %s, balance %d", d.status, d.Data, e.balance())
		}
		// A hold larger than the balance is refused at once and costs nothing.
		wantError(t, e.send("POST", "/api/v1/gyre", `{"url":"`+s.URL+`/p0","maxPages":50,"tier":"http","async":true}`), 402, "credits_exhausted")
		if got := e.balance(); got != 13 {
			t.Fatalf("balance %d after a refused job, want 13", got)
		}
	})
}

// gatedSite serves /p0 at once and every other page once release is
// closed.
func gatedSite(t *testing.T, n int) (*site, func()) {
	release := make(chan struct{})
	var once sync.Once
	routes := map[string]http.HandlerFunc{}
	for i := range n {
		body := fmt.Sprintf(`<html><head><title>Page %d</title></head><body><article><h1>Topic %d</h1>
<p>This page explains subject number %d in enough words to be real content for the crawl to keep.</p>
<p><a href="/p%d">a</a> <a href="/p%d">b</a> <a href="/p%d">c</a></p></article></body></html>`, i, i, i, (i+1)%n, (i+2)%n, (i+3)%n)
		h := page(body)
		routes[fmt.Sprintf("/p%d", i)] = func(w http.ResponseWriter, r *http.Request) {
			if i > 1 {
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
			}
			h(w, r)
		}
	}
	s := newSite(t, routes)
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	return s, open
}

func TestGyreAsyncCancelRefundsTheRest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e, _ := newGyreJobEnv(t, dialect, 30)
		s, release := gatedSite(t, 12)
		id := startJob(t, e, `{"url":"`+s.URL+`/p0","maxPages":10,"tier":"http","async":true,"ignoreSitemap":true}`)
		// /p0 and /p1 are served; the rest wait for release.
		e.waitJob(id, func(st jobStatus) bool { return st.TotalPages >= 2 })
		if got := e.balance(); got != 20 {
			t.Fatalf("balance %d while running, want 30 less the hold of 10", got)
		}
		d := e.send("DELETE", "/api/v1/gyre/"+id, "")
		var st jobStatus
		json.Unmarshal(d.Data, &st)
		if d.status != 200 || st.Status != "cancelled" || st.TotalPages != 2 || st.CreditsUsed != 2 {
			t.Fatalf("cancel: %d %s", d.status, d.Data)
		}
		// The pages crawled stay billed, the rest of the hold is back.
		if got := e.balance(); got != 28 {
			t.Fatalf("balance %d after cancel, want 28", got)
		}
		// Pages the worker fetches after the cancel are neither kept nor
		// billed.
		release()
		time.Sleep(300 * time.Millisecond)
		st = e.waitJob(id, final)
		if st.Status != "cancelled" || st.TotalPages != 2 || st.CreditsUsed != 2 || e.balance() != 28 {
			t.Fatalf("after release: %+v, balance %d", st, e.balance())
		}
		var sum int64
		for _, u := range e.usageRows() {
			sum += u.Credits
		}
		if sum != 2 {
			t.Fatalf("usage credits %d, want 2", sum)
		}
	})
}

func TestGyreAsyncWebhookSigned(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e, alerts := newGyreJobEnv(t, dialect, 20)
		type hit struct {
			body []byte
			sig  string
		}
		hits := make(chan hit, 4)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			hits <- hit{b, r.Header.Get(webhook.HeaderSvcSignature)}
		}))
		defer recv.Close()
		const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		sealed, err := alerts.Secrets.Seal(secret, e.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.SetWebhook(ctx, e.ws.ID, store.WebhookConfig{URL: recv.URL + "/hook", SealedSecret: sealed}); err != nil {
			t.Fatal(err)
		}
		s := smallSite(t, 6)
		id := startJob(t, e, `{"url":"`+s.URL+`/p0","maxPages":3,"tier":"http","async":true}`)
		select {
		case h := <-hits:
			if !webhook.VerifySvc(secret, h.body, h.sig) {
				t.Fatalf("signature %q does not verify", h.sig)
			}
			want := fmt.Sprintf(`{"event":"gyre.completed","job_id":%q,"status":"completed","totalPages":3,"creditsUsed":3}`, id)
			if string(h.body) != want {
				t.Fatalf("webhook body %s, want %s", h.body, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no webhook")
		}
	})
}

// mcpTool calls an MCP tool and returns its text and error flag.
func (e *env) mcpTool(name string, args any) (string, bool) {
	e.t.Helper()
	p, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`, p)
	req, _ := http.NewRequest("POST", e.url+"/api/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	data := raw
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = []byte(d)
			}
		}
	}
	var rpc struct {
		Result struct {
			IsError bool                    `json:"isError"`
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &rpc); err != nil || len(rpc.Result.Content) != 1 {
		e.t.Fatalf("tools/call %s: %d %s", name, res.StatusCode, raw)
	}
	return rpc.Result.Content[0].Text, rpc.Result.IsError
}

func TestGyreAsyncOverMCP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e, _ := newGyreJobEnv(t, dialect, 20)
		s := smallSite(t, 8)
		text, isErr := e.mcpTool("svc_gyre", map[string]any{"url": s.URL + "/p0", "maxPages": 4, "tier": "http", "async": true})
		var q struct {
			JobID  string `json:"job_id"`
			Status string `json:"status"`
		}
		if json.Unmarshal([]byte(text), &q); isErr || q.JobID == "" || q.Status != "queued" {
			t.Fatalf("svc_gyre async: %s", text)
		}
		st := e.waitJob(q.JobID, final)
		if st.Status != "completed" || st.TotalPages != 4 {
			t.Fatalf("job %+v", st)
		}
		text, isErr = e.mcpTool("svc_gyre", map[string]any{"job_id": q.JobID, "limit": 3})
		g := e.get("/api/v1/gyre/" + q.JobID + "?limit=3")
		if isErr || text != string(g.Data) {
			t.Fatalf("svc_gyre {job_id}: %s\nGET: %s", text, g.Data)
		}
		var page jobStatus
		json.Unmarshal([]byte(text), &page)
		if len(page.Pages) != 3 || page.Next == nil {
			t.Fatalf("svc_gyre page: %s", text)
		}
		text, _ = e.mcpTool("svc_gyre", map[string]any{"job_id": q.JobID, "next": *page.Next})
		json.Unmarshal([]byte(text), &page)
		if len(page.Pages) != 1 || page.Next != nil {
			t.Fatalf("svc_gyre next page: %s", text)
		}
		if got := e.balance(); got != 16 {
			t.Fatalf("balance %d, want 16: reading is free", got)
		}
	})
}

// tlog writes a test's warnings to its log.
type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Log(strings.TrimSpace(string(p))); return len(p), nil }

// A running crawl job holds one of its workspace's concurrency slots, taken
// by the worker (and renewed there) until the job ends: with a limit of 1,
// a synchronous crawl is refused while it runs, a second job waits queued
// instead of failing, and reading the job takes no slot.
func TestGyreAsyncHoldsASlotWhileRunning(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e, _ := newGyreJobEnv(t, dialect, 50)
		one := 1
		if err := e.store.SetRateLimits(ctx, e.ws.ID, nil, &one); err != nil {
			t.Fatal(err)
		}
		s, release := gatedSite(t, 6)
		first := startJob(t, e, `{"url":"`+s.URL+`/p0","maxPages":4,"tier":"http","async":true,"ignoreSitemap":true}`)
		e.waitJob(first, func(st jobStatus) bool { return st.Status == "running" && st.TotalPages >= 2 })
		// The slot is the job's: a synchronous crawl is refused, reads are not.
		wantError(t, e.send("POST", "/api/v1/gyre", `{"url":"`+s.URL+`/p0","maxPages":1,"tier":"http"}`), 429, "rate_limited")
		second := startJob(t, e, `{"url":"`+s.URL+`/p1","maxPages":2,"tier":"http","async":true,"ignoreSitemap":true}`)
		time.Sleep(500 * time.Millisecond)
		if st, a := e.job("/api/v1/gyre/" + second); a.status != 200 || st.Status != "queued" {
			t.Fatalf("second job while the first runs: %d %+v, want queued", a.status, st)
		}
		release()
		if st := e.waitJob(first, final); st.Status != "completed" || st.TotalPages != 4 {
			t.Fatalf("first job: %+v", st)
		}
		if st := e.waitJob(second, final); st.Status != "completed" || st.TotalPages != 2 {
			t.Fatalf("second job: %+v", st)
		}
	})
}
