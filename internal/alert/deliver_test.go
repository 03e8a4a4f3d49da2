package alert_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/alert/alerttest"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/secretbox"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
	"webacq/internal/webhook"
)

// env is an alert service on a fresh store with its delivery worker
// running, and one workspace.
type env struct {
	st  *store.Store
	svc *alert.Service
	ws  *model.Workspace
	p   *model.Principal
}

func newEnv(t *testing.T, dialect string, opts ...func(*alert.Service)) *env {
	t.Helper()
	ctx := context.Background()
	st := storetest.OpenPrepared(t, dialect, "jobs", jobs.Migrate) // with the job queue's tables
	ws, err := st.CreateWorkspace(ctx, "acme", 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	svc := &alert.Service{Store: st, HTTP: fetch.New(fetch.Config{AllowPrivate: true, Timeout: 10 * time.Second}),
		Secrets: box, Backoff: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}}
	for _, o := range opts {
		o(svc)
	}
	w := river.NewWorkers()
	svc.AddWorkers(w)
	q, err := jobs.New(st, w, jobs.Config{Workers: 8, RescueAfter: time.Minute, PollInterval: 20 * time.Millisecond,
		JobTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	svc.Queue = q
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		q.Stop(sctx)
	})
	return &env{st: st, svc: svc, ws: ws, p: &model.Principal{WorkspaceID: ws.ID, Monitoring: true}}
}

// fire writes a changed run of a new monitor and its deliveries to the
// workspace's destinations, as a check does, and returns the monitor.
func (e *env) fire(t *testing.T) *model.Monitor {
	t.Helper()
	m := &model.Monitor{ID: uuid.NewString(), WorkspaceID: e.ws.ID, URL: "http://127.0.0.1:1/ir", Label: "Acme IR"}
	e.fireRun(t, m, model.OutcomeChanged)
	return m
}

// fireRun writes a run of m with outcome and its deliveries, as a check
// does, and returns the run.
func (e *env) fireRun(t *testing.T, m *model.Monitor, outcome string) *model.Run {
	t.Helper()
	ctx := context.Background()
	now := e.st.Now().UTC().Truncate(time.Millisecond)
	to := "Q3 results"
	run := &model.Run{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: e.ws.ID, FinishedAt: now,
		Outcome: outcome, Channel: model.ChannelIRPage, ChangeSignal: []model.Signal{{To: &to}}}
	dests, err := e.svc.Destinations(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.InTx(ctx, func(tx store.Tx) error { return e.svc.QueueRun(ctx, tx, m, run, dests) }); err != nil {
		t.Fatal(err)
	}
	return run
}

// settled waits until none of the monitor's deliveries is pending and no
// delivery job is left to run, and returns the deliveries.
func (e *env) settled(t *testing.T, monitorID string, n int) []*model.Delivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds, err := e.st.Deliveries(context.Background(), monitorID, time.Time{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		done := len(ds) >= n
		for _, d := range ds {
			done = done && d.Status != model.DeliveryPending
		}
		if done && e.liveJobs(t) == 0 {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("monitor %s: deliveries not settled after 30 s: %+v", monitorID, ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jobs counts the delivery jobs ever queued (River keeps finished ones).
func (e *env) jobs(t *testing.T) int {
	t.Helper()
	return e.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'alert_delivery'`)
}

// liveJobs counts the delivery jobs queued, waiting or running.
func (e *env) liveJobs(t *testing.T) int {
	t.Helper()
	return e.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'alert_delivery'
		AND state NOT IN ('completed', 'discarded', 'cancelled')`)
}

func (e *env) count(t *testing.T, q string) int {
	t.Helper()
	var n int
	err := e.st.InTx(context.Background(), func(tx store.Tx) error { return tx.QueryRow(context.Background(), q).Scan(&n) })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// hook is a webhook receiver answering from a script of statuses (then
// 200), each after an optional hold.
type hook struct {
	mu      sync.Mutex
	answers []int
	bodies  [][]byte
	headers []http.Header
	hold    time.Duration
	before  func() // runs before each answer
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	time.Sleep(h.hold)
	h.mu.Lock()
	before := h.before
	h.mu.Unlock()
	if before != nil {
		before()
	}
	h.mu.Lock()
	h.bodies, h.headers = append(h.bodies, body), append(h.headers, r.Header.Clone())
	status := http.StatusOK
	if len(h.answers) > 0 {
		status, h.answers = h.answers[0], h.answers[1:]
	}
	h.mu.Unlock()
	w.WriteHeader(status)
}

func (h *hook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

func (e *env) setHook(t *testing.T, url string) *alert.WebhookView {
	t.Helper()
	v, err := e.svc.SetWebhook(context.Background(), e.p, alert.WebhookChange{URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRedeliverIsIdempotent: 50 parallel redelivers of one delivered
// webhook delivery queue one job and make one POST; the attempt count and
// the log agree (before: 22 POSTs, attempts 5 and 23 log rows).
func TestRedeliverIsIdempotent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		h := &hook{hold: 50 * time.Millisecond}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		m := e.fire(t)
		d := e.settled(t, m.ID, 1)[0]
		if d.Status != model.DeliveryDelivered || h.count() != 1 {
			t.Fatalf("first delivery %+v, %d POSTs", d, h.count())
		}
		// The redelivery's POST is held until every redeliver has answered,
		// so that all of them find its job queued or running.
		release := make(chan struct{})
		h.mu.Lock()
		h.before = func() { <-release }
		h.mu.Unlock()
		var wg sync.WaitGroup
		errs := make(chan error, 50)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.svc.Redeliver(context.Background(), e.p, m.ID, d.ID); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(release)
		close(errs)
		for err := range errs {
			t.Errorf("redeliver: %v", err)
		}
		d = e.settled(t, m.ID, 1)[0]
		if n := e.jobs(t); n != 2 {
			t.Errorf("%d delivery jobs, want 2 (the first, one redelivery)", n)
		}
		if h.count() != 2 || d.Attempts != 2 || len(d.Log) != 2 || d.Log[1].Attempt != 2 {
			t.Errorf("%d POSTs, attempts %d, log %+v; want 2, 2 and 2 rows", h.count(), d.Attempts, d.Log)
		}
		// Settled, it can be redelivered again.
		if _, err := e.svc.Redeliver(context.Background(), e.p, m.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		if d = e.settled(t, m.ID, 1)[0]; d.Attempts != 3 || len(d.Log) != 3 || h.count() != 3 {
			t.Errorf("third series: attempts %d, %d log rows, %d POSTs", d.Attempts, len(d.Log), h.count())
		}
		// Another workspace's principal finds nothing.
		if _, err := e.svc.Redeliver(context.Background(), &model.Principal{WorkspaceID: "other"}, m.ID, d.ID); model.ErrorCode(err) != model.CodeNotFound {
			t.Errorf("other workspace: %v", err)
		}
	})
}

// TestRedeliveredFailedGetsTheWholeSchedule: a failed delivery
// redelivered is retried as often as a new one (before: one attempt).
func TestRedeliveredFailedGetsTheWholeSchedule(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		h := &hook{answers: []int{500, 500, 500, 500, 500, 500, 500, 500}}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		m := e.fire(t)
		d := e.settled(t, m.ID, 1)[0]
		if d.Status != model.DeliveryFailed || d.Attempts != 4 || h.count() != 4 {
			t.Fatalf("first series %+v, %d POSTs; want failed after 4 (1 + 3 retries)", d, h.count())
		}
		if _, err := e.svc.Redeliver(context.Background(), e.p, m.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		d = e.settled(t, m.ID, 1)[0]
		if d.Status != model.DeliveryFailed || d.Attempts != 8 || len(d.Log) != 8 || h.count() != 8 {
			t.Errorf("redelivered: %s after %d attempts, %d log rows, %d POSTs; want failed after 8", d.Status, d.Attempts,
				len(d.Log), h.count())
		}
	})
}

// TestLateGoneFromTheOldURL: a 410 turns the webhook off only when the URL
// that answered is still the configured one (before: a late 410 from the
// old URL erased the new one).
func TestLateGoneFromTheOldURL(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		fresh := httptest.NewServer(&hook{})
		defer fresh.Close()
		// The old receiver answers 410 after the user has moved the webhook.
		old := &hook{answers: []int{http.StatusGone}}
		old.before = func() { e.setHook(t, fresh.URL+"/new") }
		oldSrv := httptest.NewServer(old)
		defer oldSrv.Close()
		e.setHook(t, oldSrv.URL)
		m := e.fire(t)
		d := e.settled(t, m.ID, 1)[0]
		if d.Status != model.DeliveryFailed || d.LastStatus != http.StatusGone {
			t.Fatalf("delivery %+v", d)
		}
		if c, _ := e.st.Webhook(context.Background(), e.ws.ID); c.URL != fresh.URL+"/new" || c.SealedSecret == "" {
			t.Errorf("after a late 410 from the old URL the webhook is %+v, want the new URL", c)
		}
		// A 410 from the configured URL turns it off.
		gone := httptest.NewServer(&hook{answers: []int{http.StatusGone}})
		defer gone.Close()
		e.setHook(t, gone.URL)
		m = e.fire(t)
		e.settled(t, m.ID, 1)
		if c, _ := e.st.Webhook(context.Background(), e.ws.ID); c.URL != "" {
			t.Errorf("webhook still on after a 410 from its URL: %+v", c)
		}
	})
}

// TestWebhookSecrets: a whsec_ secret must decode; a webhook set without a
// secret gets a generated one, shown once, that signs its deliveries.
func TestWebhookSecrets(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		h := &hook{}
		srv := httptest.NewServer(h)
		defer srv.Close()
		u := srv.URL
		for _, bad := range []string{"whsec_!!!notbase64!!!xx", "whsec_", "whsec_AAAA!AAAAAAAAAAAAAAA"} {
			_, err := e.svc.SetWebhook(ctx, e.p, alert.WebhookChange{URL: &u, Secret: &bad})
			if model.ErrorCode(err) != model.CodeBadRequest {
				t.Errorf("secret %q: %v, want bad_request", bad, err)
			}
		}
		if c, _ := e.st.Webhook(ctx, e.ws.ID); c.URL != "" {
			t.Fatalf("a refused change was stored: %+v", c)
		}

		v := e.setHook(t, u)
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(v.WebhookSecret, "whsec_"))
		if !strings.HasPrefix(v.WebhookSecret, "whsec_") || err != nil || len(key) != 32 || !v.SecretSet {
			t.Fatalf("generated secret %q (%v)", v.WebhookSecret, err)
		}
		if got, _ := e.svc.Webhook(ctx, e.p); got.WebhookSecret != "" || !got.SecretSet {
			t.Errorf("the secret is shown again: %+v", got)
		}
		b, _ := json.Marshal(v)
		if !strings.Contains(string(b), `"webhook_secret":"whsec_`) {
			t.Errorf("answer %s lacks webhook_secret", b)
		}
		// Changing the URL keeps it (and does not show it).
		u2 := srv.URL + "/in"
		if v2 := e.setHook(t, u2); v2.WebhookSecret != "" || !v2.SecretSet {
			t.Errorf("URL change: %+v", v2)
		}
		// Clearing the secret leaves the webhook with a new generated one.
		v3, err := e.svc.SetWebhook(ctx, e.p, alert.WebhookChange{ClearSecret: true})
		if err != nil || !strings.HasPrefix(v3.WebhookSecret, "whsec_") || v3.WebhookSecret == v.WebhookSecret {
			t.Fatalf("secret cleared: %+v %v", v3, err)
		}
		v = v3
		m := e.fire(t)
		d := e.settled(t, m.ID, 1)[0]
		h.mu.Lock()
		defer h.mu.Unlock()
		if d.Status != model.DeliveryDelivered || len(h.bodies) != 1 ||
			!webhook.VerifySvc(v.WebhookSecret, h.bodies[0], h.headers[0].Get(webhook.HeaderSvcSignature)) ||
			h.headers[0].Get(webhook.HeaderSignature) == "" {
			t.Errorf("delivery %+v not signed with the generated secret: %v", d, h.headers)
		}
	})
}

// TestMessagesPerHour: email and SMS messages per workspace per hour are
// capped; past the cap a scheduled alert is recorded, not sent, and a
// redeliver answers rate_limited with Retry-After (before: 10 rounds of
// redeliver over 20 numbers made 200 SMS requests).
func TestMessagesPerHour(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		sms := alerttest.NewSMSServer(t)
		e := newEnv(t, dialect, func(s *alert.Service) {
			var err error
			if s.SMS, err = alert.NewSMS(sms.URL, sms.Account, sms.Token, "+15005550006"); err != nil {
				t.Fatal(err)
			}
			s.MessagesPerHour = 3
		})
		if _, err := e.svc.SetSettings(ctx, e.p, json.RawMessage(`{"sms_to":["+14155550100","+14155550101",
			"+14155550102","+14155550103","+14155550104"]}`)); err != nil {
			t.Fatal(err)
		}
		m := e.fire(t)
		ds := e.settled(t, m.ID, 5)
		var sent, capped []*model.Delivery
		for _, d := range ds {
			switch {
			case d.Status == model.DeliveryDelivered:
				sent = append(sent, d)
			case d.Status == model.DeliveryFailed && d.LastError == model.CodeRateLimited && len(d.Log) == 1 &&
				strings.Contains(d.Log[0].Response, "WEBACQ_ALERT_MESSAGES_PER_HOUR"):
				capped = append(capped, d)
			default:
				t.Errorf("delivery %+v", d)
			}
		}
		if len(sent) != 3 || len(capped) != 2 || len(sms.Messages()) != 3 {
			t.Fatalf("%d sent, %d capped, %d SMS requests; want 3, 2 and 3", len(sent), len(capped), len(sms.Messages()))
		}
		for _, d := range append(sent, capped...) {
			_, err := e.svc.Redeliver(ctx, e.p, m.ID, d.ID)
			var me *model.Error
			if !errors.As(err, &me) || me.Code != model.CodeRateLimited || me.RetryAfter <= 0 || me.RetryAfter > time.Hour {
				t.Errorf("redeliver past the cap: %v, want rate_limited with a Retry-After", err)
			}
		}
		e.settled(t, m.ID, 5)
		if n := len(sms.Messages()); n != 3 || e.jobs(t) != 5 {
			t.Errorf("%d SMS requests and %d jobs after redelivers past the cap; want 3 and 5", n, e.jobs(t))
		}
	})
}

func (e *env) setSecretHook(t *testing.T, url, secret string) {
	t.Helper()
	if _, err := e.svc.SetWebhook(context.Background(), e.p, alert.WebhookChange{URL: &url, Secret: &secret}); err != nil {
		t.Fatal(err)
	}
}

// TestWebhookDeliveredSignedAfterARetry: a 503 is retried; every attempt
// carries both signatures over the payload; an unchanged run alerts nobody.
func TestWebhookDeliveredSignedAfterARetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	h := &hook{answers: []int{http.StatusServiceUnavailable, http.StatusOK}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	e.setSecretHook(t, srv.URL+"/in", secret)
	m := e.fire(t)
	d := e.settled(t, m.ID, 1)[0]
	if d.Status != model.DeliveryDelivered || d.Attempts != 2 || len(d.Log) != 2 || d.Log[0].StatusCode != 503 ||
		d.Log[1].StatusCode != 200 {
		t.Fatalf("delivery %+v, want a 503 then a 200", d)
	}
	h.mu.Lock()
	for i, body := range h.bodies {
		hd := h.headers[i]
		if !webhook.VerifySvc(secret, body, hd.Get("X-Svc-Signature")) {
			t.Errorf("attempt %d: X-Svc-Signature does not verify", i+1)
		}
		if hd.Get("Webhook-Id") != d.ID || hd.Get("Webhook-Signature") == "" {
			t.Errorf("attempt %d: Standard Webhooks headers %v", i+1, hd)
		}
		var p map[string]any
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if p["delivery_id"] != d.ID || p["monitor_id"] != m.ID || p["caller_id"] != e.ws.ID || p["outcome"] != "changed" ||
			p["label"] != "Acme IR" || p["channel"] != "ir_page" || p["url"] != m.URL {
			t.Errorf("payload %v", p)
		}
		if _, ok := p["size_bytes"]; ok {
			t.Error("size_bytes outside payload_too_large")
		}
	}
	n := len(h.bodies)
	h.mu.Unlock()
	if n != 2 {
		t.Fatalf("receiver got %d requests", n)
	}
	// An unchanged run writes no delivery.
	e.fireRun(t, m, model.OutcomeUnchanged)
	if ds, _ := e.st.Deliveries(context.Background(), m.ID, time.Time{}, 10); len(ds) != 1 {
		t.Errorf("%d deliveries after an unchanged run, want 1", len(ds))
	}
}

// TestGoneTurnsTheWebhookOff: a 410 fails the delivery at once and turns
// the webhook off; a redelivery then fails with no_webhook.
func TestGoneTurnsTheWebhookOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	h := &hook{answers: []int{http.StatusGone}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	e.setSecretHook(t, srv.URL+"/in", "a-plain-secret-0123456789")
	m := e.fire(t)
	d := e.settled(t, m.ID, 1)[0]
	if d.Status != model.DeliveryFailed || d.Attempts != 1 || d.LastStatus != http.StatusGone {
		t.Errorf("delivery %+v", d)
	}
	if c, _ := e.st.Webhook(context.Background(), e.ws.ID); c.URL != "" {
		t.Errorf("webhook still on after 410: %+v", c)
	}
	if _, err := e.svc.Redeliver(context.Background(), e.p, m.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	d2 := e.settled(t, m.ID, 1)[0]
	if d2.Status != model.DeliveryFailed || d2.Attempts != 2 || d2.LastError != "no_webhook" || h.count() != 1 {
		t.Errorf("redelivery %+v (receiver got %d)", d2, h.count())
	}
}

// TestRetriesEndInFailed: a receiver that keeps failing gets the first
// attempt and one per wait of the schedule, then the delivery is failed.
func TestRetriesEndInFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	h := &hook{answers: []int{500, 500, 500, 500, 500}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	e.setSecretHook(t, srv.URL+"/in", "a-plain-secret-0123456789")
	m := e.fire(t)
	d := e.settled(t, m.ID, 1)[0]
	if d.Status != model.DeliveryFailed || d.Attempts != 4 || h.count() != 4 || d.LastError != "http_500" {
		t.Errorf("delivery %+v after %d requests, want failed after 4 (1 + 3 retries)", d, h.count())
	}
}

// TestReceiverAnswers: a 429 waits its Retry-After, a 302 is not followed
// and fails the delivery, a receiver that does not answer in time is
// retried.
func TestReceiverAnswers(t *testing.T) {
	t.Parallel()
	// An attempt's time is well above what a loaded machine takes to get the
	// 429 or the 302; the slow receiver holds its first answer until the
	// attempt gives up, however long that takes.
	e := newEnv(t, store.SQLite, func(s *alert.Service) { s.Timeout = 2 * time.Second })
	var followed atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Add(1) }))
	defer elsewhere.Close()
	var calls atomic.Int32
	var times [8]atomic.Int64
	mode := atomic.Value{}
	mode.Store("429")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		times[min(n, 7)].Store(time.Now().UnixNano())
		switch m := mode.Load().(string); {
		case m == "429" && n == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case m == "302":
			http.Redirect(w, r, elsewhere.URL, http.StatusFound)
		case m == "slow" && n == 1:
			// The body read, the server notices the attempt hang up.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		}
	}))
	defer srv.Close()
	e.setSecretHook(t, srv.URL, "0123456789abcdef0123")

	d := e.settled(t, e.fire(t).ID, 1)[0]
	if wait := time.Duration(times[2].Load() - times[1].Load()); d.Status != model.DeliveryDelivered || len(d.Log) != 2 ||
		d.Log[0].StatusCode != 429 || wait < 900*time.Millisecond {
		t.Errorf("429 then %v later %+v; want the second attempt after Retry-After 1 s", wait, d.Log)
	}

	mode.Store("302")
	calls.Store(0)
	d = e.settled(t, e.fire(t).ID, 1)[0]
	if d.Status != model.DeliveryFailed || len(d.Log) != 1 || d.Log[0].StatusCode != 302 || d.Log[0].ErrorClass != "http_302" ||
		followed.Load() != 0 {
		t.Errorf("302: %+v, followed %d times; want one failed attempt, not followed", d.Log, followed.Load())
	}

	mode.Store("slow")
	calls.Store(0)
	d = e.settled(t, e.fire(t).ID, 1)[0]
	if d.Status != model.DeliveryDelivered || len(d.Log) != 2 || d.Log[0].ErrorClass != model.CodeTimeout ||
		d.Log[1].StatusCode != 200 {
		t.Errorf("slow receiver: %+v; want a timeout then a 200", d.Log)
	}
}

// TestNilServiceAlertsNobody: a monitor service built without alerts
// (tests of other parts) records runs that alert nobody, and refuses a
// monitor's alert channels rather than ignoring them.
func TestNilServiceAlertsNobody(t *testing.T) {
	t.Parallel()
	var s *alert.Service
	m := &model.Monitor{ID: "m", WorkspaceID: "w"}
	if ts, err := s.Destinations(context.Background(), m); err != nil || ts != nil {
		t.Errorf("destinations %v %v", ts, err)
	}
	if err := s.QueueRun(context.Background(), nil, m, &model.Run{Outcome: model.OutcomeChanged}, nil); err != nil {
		t.Error(err)
	}
	if o, err := s.Override("w", json.RawMessage(`null`)); err != nil || o != nil {
		t.Errorf("no override: %s %v", o, err)
	}
	if _, err := s.Override("w", json.RawMessage(`{"email_to":["a@example.com"]}`)); model.ErrorCode(err) != model.CodeBadRequest {
		t.Errorf("override on a node without alerts: %v", err)
	}
}

// TestRedeliverPendingWithoutAJob: a delivery left pending without a job
// (River discards the job of a node that died in its last attempt) is
// redelivered, once however many ask at the same time.
func TestRedeliverPendingWithoutAJob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		h := &hook{}
		srv := httptest.NewServer(h)
		defer srv.Close()
		e.setHook(t, srv.URL)
		d := &model.Delivery{ID: uuid.NewString(), MonitorID: uuid.NewString(), WorkspaceID: e.ws.ID, RunID: "r",
			Kind: alert.KindWebhook, Status: model.DeliveryPending, Payload: []byte(`{}`),
			CreatedAt: e.st.Now().UTC().Truncate(time.Millisecond)}
		if err := e.st.InTx(ctx, func(tx store.Tx) error { return e.st.InsertDelivery(ctx, tx, d) }); err != nil {
			t.Fatal(err)
		}
		// Its POST is held until every redeliver has answered.
		release := make(chan struct{})
		h.mu.Lock()
		h.before = func() { <-release }
		h.mu.Unlock()
		var wg sync.WaitGroup
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.svc.Redeliver(ctx, e.p, d.MonitorID, d.ID); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		close(release)
		got := e.settled(t, d.MonitorID, 1)[0]
		if got.Status != model.DeliveryDelivered || got.Attempts != 1 || h.count() != 1 || e.jobs(t) != 1 {
			t.Errorf("delivery %+v, %d POSTs, %d jobs; want delivered once by one job", got, h.count(), e.jobs(t))
		}
	})
}
