package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"webacq/internal/alert"
	"webacq/internal/alert/alerttest"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestAlertsEndpoints(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		smtp := alerttest.NewSMTPServer(t, alerttest.SMTPOptions{})
		slack := alerttest.NewSlackServer(t)
		e := newMonitorEnv(t, dialect, func(m *monitor.Service) {
			var err error
			if m.Alerts.Mail, err = alert.NewMailer(smtp.URL, "alerts@webacq.test"); err != nil {
				t.Fatal(err)
			}
		})
		a := e.get("/api/v1/alerts")
		if a.status != 200 || string(a.Data) != `{"slack_webhook_url":null,"email_to":[],"sms_to":[],"transports":{"email":true,"slack":true,"sms":false}}` {
			t.Fatalf("empty settings: %d %s", a.status, a.Data)
		}
		a = e.send("POST", "/api/v1/alerts", `{"slack_webhook_url":"`+slack.URL+`","email_to":["ops@example.com"]}`)
		if a.status != 200 || strings.Contains(string(a.Data), "XXXX") || !strings.Contains(string(a.Data), `/services/[redacted]"`) ||
			!strings.Contains(string(a.Data), `"email_to":["ops@example.com"]`) {
			t.Fatalf("set: %d %s %s", a.status, a.Data, a.Error)
		}
		for _, c := range []struct{ body, code string }{
			{`{"sms_to":["+14155550100"]}`, "bad_request"}, // no SMS transport on this node
			{`{"email_to":["nobody"]}`, "bad_request"},
			{`{"slack_webhook_url":"http://10.0.0.8/hook"}`, "forbidden_url"},
			{`{"slack_webhook_url":"http://169.254.169.254/latest"}`, "forbidden_url"},
			{`{"pager":"x"}`, "bad_request"},
			{`["x"]`, "bad_request"},
			{`{"email_to":`, "bad_request"},
		} {
			if a := e.send("POST", "/api/v1/alerts", c.body); a.Code != c.code || a.status != model.Status(c.code) {
				t.Errorf("%s: %d %s (%s), want %s", c.body, a.status, a.Code, a.Error, c.code)
			}
		}
		if a := e.send("POST", "/api/v1/alerts", `{"sms_to":["+14155550100"]}`); !strings.Contains(a.Error, "WEBACQ_SMS_URL") {
			t.Errorf("a missing transport is not explained: %s", a.Error)
		}

		// A monitor's alerts go where the settings say, and its run record
		// names its webhook delivery.
		rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		defer rcv.Close()
		if err := e.store.SetWebhook(ctx, e.ws.ID, store.WebhookConfig{URL: rcv.URL}); err != nil {
			t.Fatal(err)
		}
		site := newSite(t, map[string]http.HandlerFunc{"/ir": page(article)})
		a = e.post("/api/v1/monitor/register", `{"url":"`+site.URL+`/ir","alerts":{"email_to":["analyst@example.com"],"slack_webhook_url":""}}`)
		if a.status != 200 {
			t.Fatalf("register: %d %s", a.status, a.Error)
		}
		var m struct {
			ID string `json:"monitor_id"`
		}
		json.Unmarshal(a.Data, &m)
		a = e.get("/api/v1/monitor/" + m.ID)
		if !strings.Contains(string(a.Data), `"alerts":{"email_to":["analyst@example.com"],"slack_webhook_url":""}`) {
			t.Errorf("monitor shows %s", a.Data)
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(smtp.Mail()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := smtp.Mail(); len(got) != 1 || got[0].To[0] != "analyst@example.com" {
			t.Fatalf("mail %+v", got)
		}
		if n := len(slack.Texts()); n != 0 {
			t.Errorf("slack got %d messages from a monitor that turned it off", n)
		}
		var runs struct {
			Runs []model.Run `json:"runs"`
		}
		for time.Now().Before(deadline) {
			json.Unmarshal(e.get("/api/v1/monitor/"+m.ID+"/runs").Data, &runs)
			if len(runs.Runs) == 1 && runs.Runs[0].Webhook != nil && runs.Runs[0].Webhook.Status != model.DeliveryPending {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(runs.Runs) != 1 || runs.Runs[0].Webhook == nil || runs.Runs[0].Webhook.Status != model.DeliveryDelivered {
			t.Fatalf("run record webhook: %+v", runs.Runs)
		}
		a = e.get("/api/v1/monitor/" + m.ID + "/runs/" + runs.Runs[0].ID)
		if !strings.Contains(string(a.Data), `"webhook":{"delivery_id":"`+runs.Runs[0].Webhook.DeliveryID+`","status":"delivered"}`) {
			t.Errorf("one run: %s", a.Data)
		}
		a = e.get("/api/v1/monitor/" + m.ID + "/deliveries")
		for _, kind := range []string{`"kind":"webhook"`, `"kind":"email"`} {
			if !strings.Contains(string(a.Data), kind) {
				t.Errorf("deliveries lack %s: %s", kind, a.Data)
			}
		}
		if strings.Contains(string(a.Data), `"target"`) {
			t.Errorf("deliveries show their target: %s", a.Data)
		}

		// null clears.
		if a := e.send("POST", "/api/v1/alerts", `{"slack_webhook_url":null,"email_to":null}`); !strings.Contains(string(a.Data),
			`"slack_webhook_url":null,"email_to":[]`) {
			t.Errorf("clear: %s", a.Data)
		}
	})
}

// TestDeliveriesCursor: the deliveries list pages by (created_at, id), so
// that the deliveries of one run, which share their created_at, are all
// reachable (before: 10 of 42).
func TestDeliveriesCursor(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newMonitorEnv(t, dialect)
		site := newSite(t, map[string]http.HandlerFunc{"/ir": page(article)})
		a := e.post("/api/v1/monitor/register", `{"url":"`+site.URL+`/ir"}`)
		var m struct {
			ID string `json:"monitor_id"`
		}
		if err := json.Unmarshal(a.Data, &m); err != nil || m.ID == "" {
			t.Fatalf("register: %d %s", a.status, a.Error)
		}
		at := time.Now().UTC().Truncate(time.Millisecond)
		want := map[string]bool{}
		for i := range 42 {
			d := &model.Delivery{ID: fmt.Sprintf("d-%02d-%s", i, m.ID[:8]), MonitorID: m.ID, WorkspaceID: e.ws.ID, RunID: "r1",
				Kind: alert.KindEmail, Target: fmt.Sprintf("a%d@example.com", i), Status: model.DeliveryFailed,
				Payload: []byte(`{}`), CreatedAt: at}
			if err := e.store.InTx(ctx, func(tx store.Tx) error { return e.store.InsertDelivery(ctx, tx, d) }); err != nil {
				t.Fatal(err)
			}
			want[d.ID] = true
		}
		seen := map[string]bool{}
		q := "?limit=10"
		for range 10 {
			var p struct {
				Deliveries []struct {
					ID string `json:"delivery_id"`
				} `json:"deliveries"`
				NextBefore *string `json:"next_before"`
			}
			a := e.get("/api/v1/monitor/" + m.ID + "/deliveries" + q)
			if err := json.Unmarshal(a.Data, &p); err != nil || a.status != 200 {
				t.Fatalf("page %s: %d %s %v", q, a.status, a.Data, err)
			}
			for _, d := range p.Deliveries {
				if seen[d.ID] {
					t.Errorf("%s on two pages", d.ID)
				}
				seen[d.ID] = true
			}
			if p.NextBefore == nil {
				break
			}
			q = "?limit=10&before=" + url.QueryEscape(*p.NextBefore)
		}
		for id := range want {
			if !seen[id] {
				t.Errorf("%s not reachable by paging", id)
			}
		}
	})
}

// TestRedeliverIsNoRelay replays the attack: 10 rounds of
// redeliver over the SMS deliveries to 20 numbers. Email and SMS messages
// per workspace per hour are capped (default 100): past it, redeliver
// answers rate_limited (429, Retry-After) and sends nothing (before: 200
// SMS requests in 18 s).
func TestRedeliverIsNoRelay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		sms := alerttest.NewSMSServer(t)
		e := newMonitorEnv(t, dialect, func(m *monitor.Service) {
			var err error
			if m.Alerts.SMS, err = alert.NewSMS(sms.URL, sms.Account, sms.Token, "+15005550006"); err != nil {
				t.Fatal(err)
			}
		})
		start := time.Now()
		numbers := make([]string, 20)
		for i := range numbers {
			numbers[i] = fmt.Sprintf("+1415555%04d", i)
		}
		body, _ := json.Marshal(map[string]any{"sms_to": numbers})
		if a := e.send("POST", "/api/v1/alerts", string(body)); a.status != 200 {
			t.Fatalf("set sms_to: %d %s", a.status, a.Error)
		}
		site := newSite(t, map[string]http.HandlerFunc{"/ir": page(article)})
		a := e.post("/api/v1/monitor/register", `{"url":"`+site.URL+`/ir"}`)
		var m struct {
			ID string `json:"monitor_id"`
		}
		if err := json.Unmarshal(a.Data, &m); err != nil || m.ID == "" {
			t.Fatalf("register: %d %s", a.status, a.Error)
		}
		// settled waits until the 20 deliveries are settled, and returns them.
		settled := func() []model.Delivery {
			t.Helper()
			deadline := time.Now().Add(30 * time.Second)
			for {
				var p struct {
					Deliveries []model.Delivery `json:"deliveries"`
				}
				json.Unmarshal(e.get("/api/v1/monitor/"+m.ID+"/deliveries?limit=100").Data, &p)
				done := len(p.Deliveries) == 20
				for _, d := range p.Deliveries {
					done = done && d.Status != model.DeliveryPending
				}
				if done {
					return p.Deliveries
				}
				if time.Now().After(deadline) {
					t.Fatalf("deliveries not settled: %+v", p.Deliveries)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		ds := settled()
		limited := 0
		for range 10 {
			for _, d := range ds {
				a := e.post("/api/v1/monitor/"+m.ID+"/deliveries/"+d.ID+"/redeliver", `{}`)
				switch {
				case a.status == 200:
				case a.status == http.StatusTooManyRequests && a.Code == model.CodeRateLimited && a.header.Get("Retry-After") != "":
					limited++
				default:
					t.Fatalf("redeliver: %d %s %s", a.status, a.Code, a.Error)
				}
			}
			ds = settled()
		}
		// The quota frees one message every 36 s.
		allowed := 100 + int(time.Since(start)/(36*time.Second))
		if n := len(sms.Messages()); n > allowed || n < 100 || limited == 0 {
			t.Errorf("%d SMS requests, %d redelivers limited; want 100 (at most %d) and the rest limited", n, limited, allowed)
		}
	})
}
