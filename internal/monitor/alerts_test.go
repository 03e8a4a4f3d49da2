package monitor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"webacq/internal/alert"
	"webacq/internal/alert/alerttest"
	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/secretbox"
	"webacq/internal/store/storetest"
)

// peers are the local Slack, SMTP and SMS servers of a test, wired into
// the monitor service as its transports.
type peers struct {
	slack *alerttest.SlackServer
	smtp  *alerttest.SMTPServer
	sms   *alerttest.SMSServer
}

func withTransports(t *testing.T, e *env) *peers {
	t.Helper()
	box, err := secretbox.New("test-operator-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	e.svc.Alerts.Secrets = box
	e.svc.Alerts.Backoff = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	p := &peers{slack: alerttest.NewSlackServer(t), smtp: alerttest.NewSMTPServer(t, alerttest.SMTPOptions{}),
		sms: alerttest.NewSMSServer(t)}
	if e.svc.Alerts.Mail, err = alert.NewMailer(p.smtp.URL, "alerts@webacq.test"); err != nil {
		t.Fatal(err)
	}
	if e.svc.Alerts.SMS, err = alert.NewSMS(p.sms.URL, p.sms.Account, p.sms.Token, "+15005550006"); err != nil {
		t.Fatal(err)
	}
	return p
}

// settled waits until all of a monitor's deliveries are done and returns
// them by kind and target.
func settled(t *testing.T, e *env, id string, n int) map[string]*model.Delivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds, err := e.st.Deliveries(context.Background(), id, time.Time{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, d := range ds {
			if d.Status != model.DeliveryPending {
				done++
			}
		}
		if len(ds) >= n && done == len(ds) {
			out := map[string]*model.Delivery{}
			for _, d := range ds {
				key := d.Kind
				if d.Kind != alert.KindSlack && d.Kind != alert.KindWebhook {
					key += ":" + d.Target
				}
				out[key] = d
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("monitor %s: %d deliveries, %d done after 30 s; want %d", id, len(ds), done, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestAlertChannelsDelivered(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newEnv(t, dialect)
		p := withTransports(t, e)
		p.sms.FailNext(1, http.StatusInternalServerError)
		view, err := e.svc.Alerts.SetSettings(ctx, e.p, json.RawMessage(`{"slack_webhook_url":"`+p.slack.URL+`",
			"email_to":["ops@example.com","cfo@example.com","OPS@example.com"],"sms_to":["+14155550100"]}`))
		if err != nil {
			t.Fatal(err)
		}
		if view.SlackWebhookURL == nil || strings.Contains(*view.SlackWebhookURL, "XXXX") ||
			!strings.HasSuffix(*view.SlackWebhookURL, "/services/[redacted]") {
			t.Errorf("slack URL shown as %v", view.SlackWebhookURL)
		}
		if len(view.EmailTo) != 2 || len(view.SMSTo) != 1 || !view.Transports["email"] || !view.Transports["sms"] {
			t.Errorf("view %+v", view)
		}

		site := newSite(t)
		site.set("/ir", press("x", releasesList, "1"))
		site.set("/other", press("x", releasesList, "1"))
		// The first monitor inherits every channel; the second mails
		// someone else and turns SMS off.
		all := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), Label: ptr("Acme IR")})
		own, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: site.url("/other"),
			Alerts: json.RawMessage(`{"email_to":["analyst@example.com"],"sms_to":[]}`)})
		if err != nil {
			t.Fatal(err)
		}
		shown, _ := json.Marshal(own)
		if !strings.Contains(string(shown), `"alerts":{"email_to":["analyst@example.com"],"sms_to":[]}`) {
			t.Errorf("monitor shows %s", shown)
		}

		got := settled(t, e, all, 4)
		if k := keys(got); strings.Join(k, " ") != "email:cfo@example.com email:ops@example.com slack sms:+14155550100" {
			t.Fatalf("deliveries of the inheriting monitor: %v", k)
		}
		for k, d := range got {
			if d.Status != model.DeliveryDelivered {
				t.Errorf("%s: %s after %+v", k, d.Status, d.Log)
			}
		}
		if sms := got["sms:+14155550100"]; sms.Attempts != 2 || sms.Log[0].StatusCode != 500 || sms.Log[1].StatusCode != 201 {
			t.Errorf("sms attempts %+v, want a 500 then a 201", sms.Log)
		}
		if k := keys(settled(t, e, own.ID, 2)); strings.Join(k, " ") != "email:analyst@example.com slack" {
			t.Errorf("deliveries of the overriding monitor: %v", k)
		}

		mail := p.smtp.Mail()
		to := []string{}
		for _, m := range mail {
			to = append(to, m.To...)
			if !strings.HasPrefix(m.Subject, "Now watching: ") || m.Text == "" || m.HTML == "" {
				t.Errorf("mail %+v", m)
			}
		}
		sort.Strings(to)
		if strings.Join(to, " ") != "analyst@example.com cfo@example.com ops@example.com" {
			t.Errorf("mail went to %v", to)
		}
		if texts := p.slack.Texts(); len(texts) != 2 || !strings.Contains(texts[0], "Now watching") {
			t.Errorf("slack got %q", texts)
		}
		if sms := p.sms.Messages(); len(sms) != 1 || !strings.HasPrefix(sms[0].Body, "Now watching: Acme IR") {
			t.Errorf("sms got %+v", sms)
		}

		// An unchanged run alerts nobody; a change alerts every channel again.
		if r := e.check(t, all); r.Outcome != model.OutcomeUnchanged {
			t.Fatalf("second run %s", r.Outcome)
		}
		site.set("/ir", press("x", strings.Replace(releasesList, "<ul class=\"releases\">",
			`<ul class="releases"><li><a href="/pr/q3.html">Acme reports third quarter results</a> <span>Nov 1, 2026</span></li>`, 1), "1"))
		if r := e.check(t, all); r.Outcome != model.OutcomeChanged {
			t.Fatalf("third run %s", r.Outcome)
		}
		settled(t, e, all, 8)
		if texts := p.slack.Texts(); len(texts) != 3 || !strings.Contains(texts[2], "third quarter") {
			t.Errorf("slack after the change: %q", texts)
		}
	})
}

func TestAlertSettingsRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, "sqlite")
	set := func(body string) error {
		_, err := e.svc.Alerts.SetSettings(ctx, e.p, json.RawMessage(body))
		return err
	}
	// Without transports, a channel that needs one says what to configure.
	for body, want := range map[string]string{
		`{"email_to":["ops@example.com"]}`:            "WEBACQ_SMTP_URL",
		`{"sms_to":["+14155550100"]}`:                 "WEBACQ_SMS_URL",
		`{"slack_webhook_url":"https://h.example/x"}`: "WEBACQ_SECRET_KEY",
	} {
		if err := set(body); model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want bad_request naming %s", body, err, want)
		}
	}
	p := withTransports(t, e)
	for _, body := range []string{
		`[]`, `"x"`, `{"email":["a@example.com"]}`, `{"email_to":"ops@example.com"}`, `{"email_to":[1]}`,
		`{"email_to":["not an address"]}`, `{"email_to":["Ops <ops@example.com>"]}`, `{"sms_to":["4155550100"]}`,
		`{"sms_to":["+0155550100"]}`, `{"sms_to":["+1415555010012345"]}`, `{"slack_webhook_url":"ftp://h.example/x"}`,
		`{"slack_webhook_url":"https://user:pw@h.example/x"}`, `{"slack_webhook_url":5}`,
		`{"email_to":["a1@x.io","a2@x.io","a3@x.io","a4@x.io","a5@x.io","a6@x.io","a7@x.io","a8@x.io","a9@x.io","a10@x.io",
		"a11@x.io","a12@x.io","a13@x.io","a14@x.io","a15@x.io","a16@x.io","a17@x.io","a18@x.io","a19@x.io","a20@x.io","a21@x.io"]}`,
	} {
		if err := set(body); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("%s: %v, want bad_request", body, err)
		}
		if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://127.0.0.1:1/x", Alerts: json.RawMessage(body)}); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("register with alerts %s: %v, want bad_request", body, err)
		}
	}
	// The SSRF guard applies to Slack URLs when it is on.
	guarded := &alert.Service{Store: e.st, Queue: e.svc.Queue, HTTP: fetch.New(fetch.Config{}), Secrets: e.svc.Alerts.Secrets}
	if _, err := guarded.SetSettings(ctx, e.p, json.RawMessage(`{"slack_webhook_url":"http://127.0.0.1:9/hook"}`)); model.ErrorCode(err) != model.CodeForbiddenURL {
		t.Errorf("slack URL on loopback: %v, want forbidden_url", err)
	}

	// A field left out stays; null clears it.
	if err := set(`{"slack_webhook_url":"` + p.slack.URL + `","email_to":["ops@example.com"],"sms_to":["+14155550100"]}`); err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.Alerts.SetSettings(ctx, e.p, json.RawMessage(`{"sms_to":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.SlackWebhookURL == nil || len(v.EmailTo) != 1 || len(v.SMSTo) != 0 {
		t.Errorf("after clearing sms_to: %+v", v)
	}
	v, err = e.svc.Alerts.SetSettings(ctx, e.p, json.RawMessage(`{"slack_webhook_url":null,"email_to":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.SlackWebhookURL != nil || len(v.EmailTo) != 0 {
		t.Errorf("after clearing: %+v", v)
	}
	if got, err := e.svc.Alerts.Settings(ctx, e.p); err != nil || got.SlackWebhookURL != nil || len(got.EmailTo) != 0 {
		t.Errorf("read back %+v %v", got, err)
	}

	// A monitor's override is replaced by PATCH, and a Slack URL in it is
	// never shown.
	site := newSite(t)
	site.set("/ir", press("x", releasesList, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"),
		Alerts: json.RawMessage(`{"slack_webhook_url":"` + p.slack.URL + `"}`)})
	m, err := e.svc.Patch(ctx, e.p, id, monitor.PatchRequest{Alerts: json.RawMessage(`{"slack_webhook_url":"` + p.slack.URL +
		`","email_to":["analyst@example.com"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := json.Marshal(m)
	if strings.Contains(string(shown), "XXXX") || !strings.Contains(string(shown), `/services/[redacted]`) ||
		!strings.Contains(string(shown), "analyst@example.com") {
		t.Errorf("monitor shows %s", shown)
	}
	if m, err = e.svc.Patch(ctx, e.p, id, monitor.PatchRequest{Alerts: json.RawMessage(`null`)}); err != nil || len(m.Alerts) != 0 {
		t.Errorf("alerts null: %s %v", m.Alerts, err)
	}
}
