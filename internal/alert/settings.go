package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"net/mail"
	"net/url"
	"strings"

	"webacq/internal/model"
	"webacq/internal/store"
)

// maxRecipients bounds each channel's recipients.
const maxRecipients = 20

// alertRequest is the alert channels of a request (POST /api/v1/alerts, a
// monitor's alerts). For the workspace, a field left out stays as it is and
// null clears it; for a monitor, a field left out or null follows the
// workspace, and "" or [] turns that channel off for the monitor.
type alertRequest struct {
	Slack json.RawMessage `json:"slack_webhook_url"`
	Email json.RawMessage `json:"email_to"`
	SMS   json.RawMessage `json:"sms_to"`
}

func decodeAlertRequest(raw json.RawMessage, name string) (*alertRequest, error) {
	var a alertRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || dec.More() || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, badf("%s must be an object with slack_webhook_url (string), email_to and sms_to (arrays of strings)", name)
	}
	return &a, nil
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// slack checks a Slack incoming-webhook URL (the SSRF guard, which runs
// again at every delivery) and seals it; "" is the channel off.
func (s *Service) slack(workspaceID string, raw json.RawMessage, field string) (sealed, hint string, err error) {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", "", badf("%s must be a string or null", field)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", "", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || len(v) > 2048 {
		return "", "", badf("%s must be an absolute http(s) URL of at most 2,048 characters, without a user name", field)
	}
	if _, err := s.HTTP.CheckURL(u.String()); err != nil {
		return "", "", err
	}
	if !s.Secrets.HasKey() {
		return "", "", badf("Slack webhook URLs are kept encrypted: the operator must set WEBACQ_SECRET_KEY before one can be stored")
	}
	if sealed, err = s.Secrets.Seal(u.String(), workspaceID); err != nil {
		return "", "", err
	}
	return sealed, RedactURL(u.String()), nil
}

// recipients checks a list of email addresses or E.164 phone numbers, and
// that the operator configured the channel's transport.
func (s *Service) recipients(raw json.RawMessage, field, kind string) ([]string, error) {
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badf("%s must be an array of strings", field)
	}
	if len(list) > maxRecipients {
		return nil, badf("%s: at most %d recipients", field, maxRecipients)
	}
	out := []string{}
	seen := map[string]bool{}
	for i, r := range list {
		r = strings.TrimSpace(r)
		switch kind {
		case KindEmail:
			a, err := mail.ParseAddress(r)
			if err != nil || a.Name != "" || a.Address != r || len(r) > 254 {
				return nil, badf("%s[%d] is not an email address (write it bare: name@example.com)", field, i)
			}
		case KindSMS:
			if !e164(r) {
				return nil, badf("%s[%d] is not a phone number in E.164 form (+ then 7 to 15 digits)", field, i)
			}
		}
		if !seen[strings.ToLower(r)] {
			seen[strings.ToLower(r)] = true
			out = append(out, r)
		}
	}
	if len(out) > 0 && kind == KindEmail && s.Mail == nil {
		return nil, badf("%s: email alerts are not available: the operator must set WEBACQ_SMTP_URL and WEBACQ_SMTP_FROM", field)
	}
	if len(out) > 0 && kind == KindSMS && s.SMS == nil {
		return nil, badf("%s: SMS alerts are not available: the operator must set WEBACQ_SMS_URL, WEBACQ_SMS_ACCOUNT, "+
			"WEBACQ_SMS_TOKEN and WEBACQ_SMS_FROM", field)
	}
	return out, nil
}

func e164(p string) bool {
	if len(p) < 8 || len(p) > 16 || p[0] != '+' || p[1] == '0' {
		return false
	}
	return strings.Trim(p[1:], "0123456789") == ""
}

// Override validates a monitor's alerts (registration, PATCH) and returns
// their stored form; null or absent is no override.
func (s *Service) Override(workspaceID string, raw json.RawMessage) (model.AlertsOverride, error) {
	if !present(raw) {
		return nil, nil
	}
	if s == nil {
		return nil, badf("alerts: this node sends no alerts")
	}
	req, err := decodeAlertRequest(raw, "alerts")
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if present(req.Slack) {
		sealed, hint, err := s.slack(workspaceID, req.Slack, "alerts.slack_webhook_url")
		if err != nil {
			return nil, err
		}
		out[model.AlertSlackURL], out[model.AlertSlackHint] = sealed, hint
	}
	for _, f := range []struct {
		raw       json.RawMessage
		key, kind string
	}{{req.Email, model.AlertEmailTo, KindEmail}, {req.SMS, model.AlertSMSTo, KindSMS}} {
		if present(f.raw) {
			if out[f.key], err = s.recipients(f.raw, "alerts."+f.key, f.kind); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(out)
	return model.AlertsOverride(b), err
}

// SettingsView answers GET and POST /api/v1/alerts; a Slack URL is shown
// redacted, never whole.
type SettingsView struct {
	SlackWebhookURL *string  `json:"slack_webhook_url"`
	EmailTo         []string `json:"email_to"`
	SMSTo           []string `json:"sms_to"`
	// Transports says which channels the operator configured.
	Transports map[string]bool `json:"transports"`
}

func (s *Service) settingsView(workspaceID string, a store.AlertSettings) *SettingsView {
	v := &SettingsView{EmailTo: a.EmailTo, SMSTo: a.SMSTo, Transports: map[string]bool{
		KindSlack: s.Secrets.HasKey(), KindEmail: s.Mail != nil, KindSMS: s.SMS != nil}}
	if v.EmailTo == nil {
		v.EmailTo = []string{}
	}
	if v.SMSTo == nil {
		v.SMSTo = []string{}
	}
	if a.SealedSlackURL != "" {
		hint := "[redacted]"
		if u, err := s.Secrets.Open(a.SealedSlackURL, workspaceID); err == nil {
			hint = RedactURL(u)
		}
		v.SlackWebhookURL = &hint
	}
	return v
}

// Settings reads a workspace's default alert channels.
func (s *Service) Settings(ctx context.Context, p *model.Principal) (*SettingsView, error) {
	a, err := s.Store.AlertSettings(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return s.settingsView(p.WorkspaceID, a), nil
}

// SetSettings changes a workspace's default alert channels: a field left
// out stays as it is, null clears it.
func (s *Service) SetSettings(ctx context.Context, p *model.Principal, raw json.RawMessage) (*SettingsView, error) {
	req, err := decodeAlertRequest(raw, "the body")
	if err != nil {
		return nil, err
	}
	a, err := s.Store.AlertSettings(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if len(req.Slack) > 0 {
		a.SealedSlackURL = ""
		if present(req.Slack) {
			if a.SealedSlackURL, _, err = s.slack(p.WorkspaceID, req.Slack, "slack_webhook_url"); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range []struct {
		raw         json.RawMessage
		field, kind string
		to          *[]string
	}{{req.Email, "email_to", KindEmail, &a.EmailTo}, {req.SMS, "sms_to", KindSMS, &a.SMSTo}} {
		if len(f.raw) == 0 {
			continue
		}
		*f.to = nil
		if present(f.raw) {
			if *f.to, err = s.recipients(f.raw, f.field, f.kind); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Store.SetAlertSettings(ctx, p.WorkspaceID, a); err != nil {
		return nil, err
	}
	return s.settingsView(p.WorkspaceID, a), nil
}
