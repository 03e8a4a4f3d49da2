package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"webacq/internal/model"
	"webacq/internal/secretbox"
	"webacq/internal/store"
)

// SetSecrets gives the API the box that seals webhook secrets.
func (s *Server) SetSecrets(b *secretbox.Box) { s.secrets = b }

func (s *Server) webhookRoutes() {
	s.handle("GET /api/v1/monitor/webhook", s.monitorOp(s.getWebhook))
	s.handle("POST /api/v1/monitor/webhook", s.monitorOp(s.setWebhook))
}

// webhookView answers both webhook endpoints; the secret never leaves.
type webhookView struct {
	WebhookURL *string `json:"webhook_url"`
	SecretSet  bool    `json:"secret_set"`
}

func viewWebhook(c store.WebhookConfig) webhookView {
	v := webhookView{SecretSet: c.SealedSecret != ""}
	if c.URL != "" {
		v.WebhookURL = &c.URL
	}
	return v
}

func (s *Server) getWebhook(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	c, err := s.store.Webhook(r.Context(), p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return viewWebhook(c), nil
}

// webhookRequest is the body of POST /api/v1/monitor/webhook. A field left
// out stays as it is; null clears it, and a null webhook_url clears the
// whole configuration (spec 2.4).
type webhookRequest struct {
	WebhookURL    json.RawMessage `json:"webhook_url"`
	WebhookSecret json.RawMessage `json:"webhook_secret"`
}

// Secret bounds: long enough to resist guessing, short enough to store.
const (
	minSecretLen = 16
	maxSecretLen = 512
)

func (s *Server) setWebhook(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	var req webhookRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	c, err := s.store.Webhook(r.Context(), p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if len(req.WebhookURL) > 0 {
		u, clear, err := nullableString(req.WebhookURL, "webhook_url")
		if err != nil {
			return nil, err
		}
		if clear {
			c = store.WebhookConfig{}
		} else {
			if c.URL, err = s.checkWebhookURL(u); err != nil {
				return nil, err
			}
		}
	}
	if len(req.WebhookSecret) > 0 {
		sec, clear, err := nullableString(req.WebhookSecret, "webhook_secret")
		if err != nil {
			return nil, err
		}
		if clear {
			c.SealedSecret = ""
		} else {
			if len(sec) < minSecretLen || len(sec) > maxSecretLen {
				return nil, model.Errorf(model.CodeBadRequest, "webhook_secret must be %d to %d characters", minSecretLen, maxSecretLen)
			}
			if !s.secrets.HasKey() {
				return nil, model.Errorf(model.CodeBadRequest,
					"webhook secrets are kept encrypted: the operator must set WEBACQ_SECRET_KEY before a secret can be stored")
			}
			if c.SealedSecret, err = s.secrets.Seal(sec, p.WorkspaceID); err != nil {
				return nil, err
			}
		}
	}
	if c.SealedSecret != "" && c.URL == "" {
		return nil, model.Errorf(model.CodeBadRequest, "webhook_url is required with webhook_secret")
	}
	if err := s.store.SetWebhook(r.Context(), p.WorkspaceID, c); err != nil {
		return nil, err
	}
	return viewWebhook(c), nil
}

// nullableString reads a JSON string or null.
func nullableString(raw json.RawMessage, field string) (v string, null bool, err error) {
	if string(raw) == "null" {
		return "", true, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, model.Errorf(model.CodeBadRequest, "field %q must be a string or null", field)
	}
	return v, false, nil
}

// checkWebhookURL accepts an absolute http(s) URL that passes the SSRF
// guard (which runs again at every delivery).
func (s *Server) checkWebhookURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || len(raw) > 2048 {
		return "", model.Errorf(model.CodeBadRequest, "webhook_url must be an absolute http(s) URL of at most 2,048 characters")
	}
	if u.User != nil {
		return "", model.Errorf(model.CodeBadRequest, "webhook_url must not carry a user name or password")
	}
	if s.monitors == nil || s.monitors.HTTP == nil {
		return "", model.Errorf(model.CodeUnavailable, "monitors are not available on this node")
	}
	if _, err := s.monitors.HTTP.CheckURL(u.String()); err != nil {
		return "", err
	}
	return u.String(), nil
}
