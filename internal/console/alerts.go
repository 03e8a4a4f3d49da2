package console

import (
	"encoding/json"
	"net/http"
	"strings"

	"webacq/internal/alert"
	"webacq/internal/model"
)

type alertsData struct {
	Off     string
	Webhook *alert.WebhookView
	Alerts  *alert.SettingsView
	// Sealing says whether secrets can be stored (WEBACQ_SECRET_KEY).
	Sealing bool
	Test    *alert.WebhookTest
	// NewSecret is the signing secret generated for a webhook just set
	// without one, shown this once.
	NewSecret string
	// What was typed, shown again beside an error; Field names the form.
	Field      string
	WebhookURL string
	Value      string
}

func (c *Console) alertsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.renderAlerts(w, r, rq, http.StatusOK, &alertsData{}, "")
}

func (c *Console) renderAlerts(w http.ResponseWriter, r *http.Request, rq *request, status int, d *alertsData, msg string) {
	d.Off = c.monitorsOff(rq)
	if d.Off == "" {
		var err error
		if d.Webhook, err = c.Monitors.Alerts.Webhook(r.Context(), rq.p); err != nil {
			c.fail(w, r, rq, err)
			return
		}
		if d.Alerts, err = c.Monitors.Alerts.Settings(r.Context(), rq.p); err != nil {
			c.fail(w, r, rq, err)
			return
		}
		d.Sealing = c.Monitors.Alerts.Secrets.HasKey()
		if d.WebhookURL == "" && d.Webhook.WebhookURL != nil && d.Field != "webhook" {
			d.WebhookURL = *d.Webhook.WebhookURL
		}
	}
	p := rq.page("alerts", "Alerts", d)
	p.Error = msg
	c.render(w, r, status, "alerts", p)
}

// alertsError shows a refused change beside its form.
func (c *Console) alertsError(w http.ResponseWriter, r *http.Request, rq *request, d *alertsData, err error) {
	c.renderAlerts(w, r, rq, model.Status(model.ErrorCode(err)), d, c.userMessage(r, err))
}

func (c *Console) setWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	u := strings.TrimSpace(r.PostForm.Get("webhook_url"))
	d := &alertsData{Field: "webhook", WebhookURL: u}
	if u == "" {
		c.renderAlerts(w, r, rq, http.StatusBadRequest, d, "Type the URL that receives the deliveries, or clear the webhook.")
		return
	}
	ch := alert.WebhookChange{URL: &u}
	// An empty secret field keeps the secret stored: it is never shown.
	if sec := r.PostForm.Get("webhook_secret"); sec != "" {
		ch.Secret = &sec
	}
	v, err := c.Monitors.Alerts.SetWebhook(r.Context(), rq.p, ch)
	c.record(w, rq, "/api/v1/monitor/webhook", http.MethodPost, "", err)
	if err != nil {
		c.alertsError(w, r, rq, d, err)
		return
	}
	if v.WebhookSecret != "" {
		c.renderAlerts(w, r, rq, http.StatusOK, &alertsData{NewSecret: v.WebhookSecret}, "")
		return
	}
	redirect(w, r, rq.base+"/alerts", "webhook-set")
}

func (c *Console) clearWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	_, err := c.Monitors.Alerts.SetWebhook(r.Context(), rq.p, alert.WebhookChange{ClearURL: true})
	c.record(w, rq, "/api/v1/monitor/webhook", http.MethodPost, "", err)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	redirect(w, r, rq.base+"/alerts", "webhook-off")
}

// testWebhook sends a test delivery now and shows what the receiver said.
func (c *Console) testWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	res, err := c.Monitors.Alerts.TestWebhook(r.Context(), rq.p)
	if err == nil && res.ErrorCode != "" {
		c.record(w, rq, "/api/v1/monitor/webhook", "TEST", res.URL, model.Errorf(res.ErrorCode, "%s", res.Error))
	} else {
		c.record(w, rq, "/api/v1/monitor/webhook", "TEST", "", err)
	}
	if err != nil {
		c.alertsError(w, r, rq, &alertsData{}, err)
		return
	}
	c.renderAlerts(w, r, rq, http.StatusOK, &alertsData{Test: res}, "")
}

// setChannel sets or clears one of Slack, email and SMS.
func (c *Console) setChannel(w http.ResponseWriter, r *http.Request, rq *request) {
	if off := c.monitorsOff(rq); off != "" {
		c.problem(w, r, rq, http.StatusForbidden, off)
		return
	}
	kind, value := r.PostForm.Get("channel"), r.PostForm.Get("value")
	field := map[string]string{alert.KindSlack: "slack_webhook_url", alert.KindEmail: "email_to", alert.KindSMS: "sms_to"}[kind]
	if field == "" {
		c.problem(w, r, rq, http.StatusBadRequest, "Unknown alert channel.")
		return
	}
	d := &alertsData{Field: kind, Value: value}
	var v any
	switch {
	case r.PostForm.Get("clear") != "":
		v = nil
	case kind == alert.KindSlack:
		if strings.TrimSpace(value) == "" {
			c.renderAlerts(w, r, rq, http.StatusBadRequest, d, "Type the Slack incoming-webhook URL, or clear the channel.")
			return
		}
		v = strings.TrimSpace(value)
	default:
		list := splitList(value, true)
		if list == nil {
			list = []string{}
		}
		v = list
	}
	raw, err := json.Marshal(map[string]any{field: v})
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	_, err = c.Monitors.Alerts.SetSettings(r.Context(), rq.p, raw)
	c.record(w, rq, "/api/v1/alerts", http.MethodPost, "", err)
	if err != nil {
		c.alertsError(w, r, rq, d, err)
		return
	}
	redirect(w, r, rq.base+"/alerts", "alerts-set")
}
