package httpapi

import (
	"encoding/json"
	"net/http"

	"webacq/internal/alert"
	"webacq/internal/model"
)

func (s *Server) webhookRoutes() {
	s.handle("GET /api/v1/monitor/webhook", s.monitorOp(s.getWebhook))
	s.handle("POST /api/v1/monitor/webhook", s.monitorOp(s.setWebhook))
}

func (s *Server) getWebhook(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	return s.monitors.Alerts.Webhook(r.Context(), p)
}

// webhookRequest is the body of POST /api/v1/monitor/webhook. A field left
// out stays as it is; null clears it, and a null webhook_url clears the
// whole configuration (spec 2.4).
type webhookRequest struct {
	WebhookURL    json.RawMessage `json:"webhook_url"`
	WebhookSecret json.RawMessage `json:"webhook_secret"`
}

func (s *Server) setWebhook(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	var req webhookRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	var ch alert.WebhookChange
	var err error
	if len(req.WebhookURL) > 0 {
		if ch.URL, ch.ClearURL, err = nullableString(req.WebhookURL, "webhook_url"); err != nil {
			return nil, err
		}
	}
	if len(req.WebhookSecret) > 0 {
		if ch.Secret, ch.ClearSecret, err = nullableString(req.WebhookSecret, "webhook_secret"); err != nil {
			return nil, err
		}
	}
	return s.monitors.Alerts.SetWebhook(r.Context(), p, ch)
}

// nullableString reads a JSON string or null.
func nullableString(raw json.RawMessage, field string) (v *string, null bool, err error) {
	if string(raw) == "null" {
		return nil, true, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false, model.Errorf(model.CodeBadRequest, "field %q must be a string or null", field)
	}
	return v, false, nil
}
