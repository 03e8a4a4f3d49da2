package httpapi

import (
	"encoding/json"
	"net/http"

	"webacq/internal/model"
)

// alertRoutes mounts the workspace's alert channels besides the webhook
// (DECISIONS.md, Alert channels).
func (s *Server) alertRoutes() {
	s.handle("GET /api/v1/alerts", s.monitorOp(s.getAlerts))
	s.handle("POST /api/v1/alerts", s.monitorOp(s.setAlerts))
}

func (s *Server) getAlerts(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	return s.monitors.Alerts.Settings(r.Context(), p)
}

// setAlerts takes {slack_webhook_url, email_to, sms_to}: a field left out
// stays as it is, null clears it.
func (s *Server) setAlerts(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	var raw json.RawMessage
	if err := decode(w, r, &raw); err != nil {
		return nil, err
	}
	return s.monitors.Alerts.SetSettings(r.Context(), p, raw)
}
