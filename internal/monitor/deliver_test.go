package monitor_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/secretbox"
	"webacq/internal/store"
	"webacq/internal/webhook"
)

// receiver is a webhook endpoint that answers from a script of statuses.
type receiver struct {
	mu      sync.Mutex
	answers []int
	got     []*http.Request
	bodies  [][]byte
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, req)
	r.bodies = append(r.bodies, body)
	status := http.StatusOK
	if len(r.answers) > 0 {
		status, r.answers = r.answers[0], r.answers[1:]
	}
	r.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, "thanks")
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func withWebhook(t *testing.T, e *env, url, secret string) {
	t.Helper()
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	e.svc.Alerts.Secrets = box
	e.svc.Alerts.Backoff = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	sealed, err := box.Seal(secret, e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetWebhook(context.Background(), e.ws.ID, store.WebhookConfig{URL: url, SealedSecret: sealed}); err != nil {
		t.Fatal(err)
	}
}

func waitDelivery(t *testing.T, e *env, monitorID, status string) *model.Delivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds, err := e.st.Deliveries(context.Background(), monitorID, time.Time{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) > 0 && ds[0].Status == status {
			return ds[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s delivery after 30 s: %+v", status, ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWebhookDeliveredSignedAfterARetry(t *testing.T) {
	e := newEnv(t, store.SQLite)
	rcv := &receiver{answers: []int{http.StatusServiceUnavailable, http.StatusOK}}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	withWebhook(t, e, hook.URL+"/in", secret)
	site := newSite(t)
	site.set("/ir", press("x", releasesList, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), Label: ptr("Acme IR")})

	d := waitDelivery(t, e, id, model.DeliveryDelivered)
	if d.Attempts != 2 || len(d.Log) != 2 || d.Log[0].StatusCode != 503 || d.Log[1].StatusCode != 200 {
		t.Fatalf("delivery %+v, want a 503 then a 200", d)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.got) != 2 {
		t.Fatalf("receiver got %d requests", len(rcv.got))
	}
	for i, req := range rcv.got {
		body := rcv.bodies[i]
		if !webhook.VerifySvc(secret, body, req.Header.Get("X-Svc-Signature")) {
			t.Errorf("attempt %d: X-Svc-Signature does not verify", i+1)
		}
		if req.Header.Get("Webhook-Id") != d.ID || req.Header.Get("Webhook-Signature") == "" {
			t.Errorf("attempt %d: Standard Webhooks headers %v", i+1, req.Header)
		}
		var p map[string]any
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if p["delivery_id"] != d.ID || p["monitor_id"] != id || p["caller_id"] != e.ws.ID || p["outcome"] != "anchored" ||
			p["label"] != "Acme IR" || p["channel"] != "ir_page" || p["url"] != site.url("/ir") {
			t.Errorf("payload %v", p)
		}
		if _, ok := p["size_bytes"]; ok {
			t.Error("size_bytes outside payload_too_large")
		}
	}
	// An unchanged run alerts nobody.
	if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged {
		t.Fatalf("second run %s", r.Outcome)
	}
	time.Sleep(300 * time.Millisecond)
	if ds, _ := e.st.Deliveries(context.Background(), id, time.Time{}, 10); len(ds) != 1 {
		t.Errorf("%d deliveries after an unchanged run, want 1", len(ds))
	}
}

func TestGoneTurnsTheWebhookOff(t *testing.T) {
	e := newEnv(t, store.SQLite)
	rcv := &receiver{answers: []int{http.StatusGone}}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	withWebhook(t, e, hook.URL+"/in", "a-plain-secret-0123456789")
	site := newSite(t)
	site.set("/ir", press("x", releasesList, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir")})
	d := waitDelivery(t, e, id, model.DeliveryFailed)
	if d.Attempts != 1 || d.LastStatus != http.StatusGone {
		t.Errorf("delivery %+v", d)
	}
	if c, _ := e.st.Webhook(context.Background(), e.ws.ID); c.URL != "" {
		t.Errorf("webhook still on after 410: %+v", c)
	}
	// Redelivery queues it again; with the webhook off it fails at once.
	if _, err := e.svc.Alerts.Redeliver(context.Background(), e.p, id, d.ID); err != nil {
		t.Fatal(err)
	}
	d2 := waitDelivery(t, e, id, model.DeliveryFailed)
	if d2.Attempts != 2 || d2.LastError != "no_webhook" || rcv.count() != 1 {
		t.Errorf("redelivery %+v (receiver got %d)", d2, rcv.count())
	}
}

func TestRetriesEndInFailed(t *testing.T) {
	e := newEnv(t, store.SQLite)
	rcv := &receiver{answers: []int{500, 500, 500, 500, 500}}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	withWebhook(t, e, hook.URL+"/in", "a-plain-secret-0123456789")
	site := newSite(t)
	site.set("/ir", press("x", releasesList, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir")})
	d := waitDelivery(t, e, id, model.DeliveryFailed)
	if d.Attempts != 4 || rcv.count() != 4 || d.LastError != "http_500" {
		t.Errorf("delivery %+v after %d requests, want failed after 4 (1 + 3 retries)", d, rcv.count())
	}
}
