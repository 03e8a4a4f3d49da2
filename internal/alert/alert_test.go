package alert_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-smtp"

	"webacq/internal/alert"
	"webacq/internal/alert/alerttest"
	"webacq/internal/model"
)

func ptr(s string) *string { return &s }

func changed() *alert.Payload {
	return &alert.Payload{DeliveryID: "d-1", MonitorID: "m-1", CallerID: "ws", Label: "Acme <IR> & news",
		URL: "https://ir.example.com/news?a=1&b=2", DetectedAt: time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC),
		Outcome: model.OutcomeChanged, Channel: "ir_page",
		ChangeSignal: []model.Signal{
			{Field: "text", From: ptr("Q3 revenue 12.4 million"), To: ptr("Q3 revenue 13.1 million <script>alert(1)</script>"), Ratio: 0.8},
			{Field: "text", To: ptr("Acme to acquire Widget Co"), Ratio: 0},
		},
		PDFLinks:        []string{"https://ir.example.com/q3.pdf"},
		ExtractedFields: json.RawMessage(`{"found":true,"data":[{"revenue":"13.1 million"}]}`),
		ContentPreview:  "Acme reports record third quarter"}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	p := changed()
	if s := p.Subject(); s != "Changed: Acme <IR> & news" {
		t.Errorf("subject %q", s)
	}
	text := p.Text()
	for _, want := range []string{"https://ir.example.com/news?a=1&b=2", "changed: Q3 revenue 12.4 million → Q3 revenue 13.1 million",
		"added: Acme to acquire Widget Co", "Document: https://ir.example.com/q3.pdf", `"revenue":"13.1 million"`, "2026-11-23T06:00:00Z"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var slack struct{ Text string }
	if err := json.Unmarshal(p.Slack(), &slack); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(slack.Text, "<https://ir.example.com/news?a=1&amp;b=2|Acme &lt;IR&gt; &amp; news>") ||
		strings.Contains(slack.Text, "<script>") || !strings.Contains(slack.Text, "&lt;script&gt;") {
		t.Errorf("slack text not escaped for mrkdwn:\n%s", slack.Text)
	}

	// An SMS is one line under 160 characters, however long the change.
	long := changed()
	long.Label = strings.Repeat("Very long monitor label ", 10)
	long.ChangeSignal[0].To = ptr(strings.Repeat("ü\nnew text ", 40))
	for _, p := range []*alert.Payload{changed(), long, {Outcome: model.OutcomeError, URL: "https://x.example", Error: "keywords_not_found"}} {
		sms := p.SMS()
		if n := utf8.RuneCountInString(sms); n >= 160 || strings.Contains(sms, "\n") || sms == "" {
			t.Errorf("sms of %d characters: %q", n, sms)
		}
	}
	if sms := changed().SMS(); !strings.HasPrefix(sms, "Changed: Acme <IR> & news | changed: Q3 revenue") {
		t.Errorf("sms %q", sms)
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://hooks.slack.com/services/T000/B000/secret": "https://hooks.slack.com/services/[redacted]",
		"http://127.0.0.1:8080/x":                           "http://127.0.0.1:8080/x/[redacted]",
		"https://h.example":                                 "https://h.example/[redacted]",
		"::":                                                "[redacted]",
	} {
		if got := alert.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEmailOverSTARTTLSWithAuth(t *testing.T) {
	t.Parallel()
	srvTLS, cliTLS := alerttest.TLS(t)
	srv := alerttest.NewSMTPServer(t, alerttest.SMTPOptions{TLS: srvTLS, User: "alerts", Pass: "s3cret"})
	m, err := alert.NewMailer(srv.URL, "webacq alerts <alerts@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	m.TLS = cliTLS
	res, err := m.SendEmail(context.Background(), "ops@example.com", changed())
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if res.Status != 250 {
		t.Errorf("status %d", res.Status)
	}
	got := srv.Mail()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	g := got[0]
	if !g.TLS || g.Auth != "alerts" || g.From != "alerts@example.com" || len(g.To) != 1 || g.To[0] != "ops@example.com" {
		t.Errorf("session: tls %v auth %q from %q to %v", g.TLS, g.Auth, g.From, g.To)
	}
	if g.Subject != "Changed: Acme <IR> & news" {
		t.Errorf("subject %q", g.Subject)
	}
	if !strings.Contains(g.Text, "added: Acme to acquire Widget Co") {
		t.Errorf("text part:\n%s", g.Text)
	}
	if !strings.Contains(g.HTML, "&lt;script&gt;") || strings.Contains(g.HTML, "<script>") ||
		!strings.Contains(g.HTML, `<a href="https://ir.example.com/q3.pdf">`) {
		t.Errorf("html part not escaped or lacks the document link:\n%s", g.HTML)
	}
}

func TestEmailNeverSendsCredentialsInClear(t *testing.T) {
	t.Parallel()
	// The server offers no STARTTLS; smtp:// requires it, so nothing is
	// sent and the failure is retried (the operator may fix the relay).
	srv := alerttest.NewSMTPServer(t, alerttest.SMTPOptions{})
	u := strings.Replace(strings.TrimSuffix(srv.URL, "?tls=none"), "smtp://", "smtp://user:pw@", 1)
	m, err := alert.NewMailer(u, "alerts@example.com")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.SendEmail(context.Background(), "ops@example.com", changed())
	var f *alert.Failure
	if !errors.As(err, &f) || !f.Temporary {
		t.Fatalf("want a temporary failure, got %v", err)
	}
	if n := len(srv.Mail()); n != 0 {
		t.Errorf("%d messages went out without TLS", n)
	}
}

func TestEmailRefusals(t *testing.T) {
	t.Parallel()
	srv := alerttest.NewSMTPServer(t, alerttest.SMTPOptions{})
	srv.Reject(func(to string) error {
		switch to {
		case "gone@example.com":
			return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
		case "full@example.com":
			return &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 2, 2}, Message: "mailbox full"}
		}
		return nil
	})
	m, err := alert.NewMailer(srv.URL, "alerts@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for to, temporary := range map[string]bool{"gone@example.com": false, "full@example.com": true} {
		res, err := m.SendEmail(context.Background(), to, changed())
		var f *alert.Failure
		if !errors.As(err, &f) || f.Temporary != temporary || res.Status == 0 {
			t.Errorf("%s: want temporary=%v with the SMTP code, got %v (status %d)", to, temporary, err, res.Status)
		}
	}
	if _, err := m.SendEmail(context.Background(), "ok@example.com", changed()); err != nil {
		t.Errorf("plain relay: %v", err)
	}
}

func TestSMS(t *testing.T) {
	t.Parallel()
	api := alerttest.NewSMSServer(t)
	s, err := alert.NewSMS(api.URL, api.Account, api.Token, "+15005550006")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SendSMS(context.Background(), "+14155550100", changed())
	if err != nil || res.Status != http.StatusCreated {
		t.Fatalf("send: %v (%d)", err, res.Status)
	}
	got := api.Messages()
	if len(got) != 1 || got[0].To != "+14155550100" || got[0].From != "+15005550006" || !strings.HasPrefix(got[0].Body, "Changed: ") {
		t.Errorf("messages %+v", got)
	}
	for status, temporary := range map[int]bool{500: true, 429: true, 400: false} {
		api.FailNext(1, status)
		_, err := s.SendSMS(context.Background(), "+14155550100", changed())
		var f *alert.Failure
		if !errors.As(err, &f) || f.Temporary != temporary || f.Status != status {
			t.Errorf("HTTP %d: want temporary=%v, got %v", status, temporary, err)
		}
	}
	bad, _ := alert.NewSMS(api.URL, api.Account, "wrong-token", "+15005550006")
	if _, err := bad.SendSMS(context.Background(), "+14155550100", changed()); err == nil {
		t.Error("a wrong token was accepted")
	}
}

func TestTransportConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, from string }{
		{"smtp://h:587", ""}, {"", "a@example.com"}, {"http://h", "a@example.com"}, {"smtp://h:99999", "a@example.com"},
		{"smtp://h?tls=maybe", "a@example.com"}, {"smtp://h", "not an address"},
	} {
		if _, err := alert.NewMailer(c.url, c.from); err == nil {
			t.Errorf("NewMailer(%q, %q) accepted", c.url, c.from)
		}
	}
	if m, err := alert.NewMailer("", ""); m != nil || err != nil {
		t.Errorf("no SMTP settings: %v %v", m, err)
	}
	if _, err := alert.NewSMS("ftp://x", "a", "t", "+1"); err == nil {
		t.Error("NewSMS accepted ftp")
	}
	if _, err := alert.NewSMS("https://api.example", "a", "", "+1"); err == nil {
		t.Error("NewSMS accepted a missing token")
	}
	if s, err := alert.NewSMS("", "", "", ""); s != nil || err != nil {
		t.Errorf("no SMS settings: %v %v", s, err)
	}
}
