package alert

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/webhook"
)

// WebhookView is a workspace's webhook as shown (GET and POST
// /api/v1/monitor/webhook, the console): the secret never leaves.
type WebhookView struct {
	WebhookURL *string `json:"webhook_url"`
	SecretSet  bool    `json:"secret_set"`
	// WebhookSecret is a secret generated for this change, shown once in
	// its answer (DECISIONS.md, Webhooks); empty otherwise.
	WebhookSecret string `json:"webhook_secret,omitempty"`
}

func viewWebhook(c store.WebhookConfig) *WebhookView {
	v := &WebhookView{SecretSet: c.SealedSecret != ""}
	if c.URL != "" {
		v.WebhookURL = &c.URL
	}
	return v
}

// Webhook reads a workspace's webhook.
func (s *Service) Webhook(ctx context.Context, p *model.Principal) (*WebhookView, error) {
	c, err := s.Store.Webhook(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return viewWebhook(c), nil
}

// WebhookChange changes a workspace's webhook (spec 2.4): a nil field stays
// as it is; ClearURL clears the whole configuration, ClearSecret the secret.
type WebhookChange struct {
	URL         *string
	Secret      *string
	ClearURL    bool
	ClearSecret bool
}

// Secret bounds: long enough to resist guessing, short enough to store.
const (
	minSecretLen = 16
	maxSecretLen = 512
)

// SetWebhook applies a change to a workspace's webhook: the URL passes the
// SSRF guard, the secret is sealed with the workspace's box. A "whsec_"
// secret must decode. A webhook left without a secret gets a generated
// one, returned once in the answer, so that every delivery is signed.
func (s *Service) SetWebhook(ctx context.Context, p *model.Principal, ch WebhookChange) (*WebhookView, error) {
	c, err := s.Store.Webhook(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	switch {
	case ch.ClearURL:
		c = store.WebhookConfig{}
	case ch.URL != nil:
		if c.URL, err = s.checkWebhookURL(*ch.URL); err != nil {
			return nil, err
		}
	}
	switch {
	case ch.ClearSecret:
		c.SealedSecret = ""
	case ch.Secret != nil:
		sec := *ch.Secret
		if len(sec) < minSecretLen || len(sec) > maxSecretLen {
			return nil, badf("webhook_secret must be %d to %d characters", minSecretLen, maxSecretLen)
		}
		if err := webhook.CheckSecret(sec); err != nil {
			return nil, badf("webhook_secret: a secret that starts with whsec_ must go on with a base64 key: %s",
				strings.TrimPrefix(err.Error(), "webhook: "))
		}
		if !s.Secrets.HasKey() {
			return nil, badf("webhook secrets are kept encrypted: the operator must set WEBACQ_SECRET_KEY before a secret can be stored")
		}
		if c.SealedSecret, err = s.Secrets.Seal(sec, p.WorkspaceID); err != nil {
			return nil, err
		}
	}
	if c.SealedSecret != "" && c.URL == "" {
		return nil, badf("webhook_url is required with webhook_secret")
	}
	generated := ""
	if c.URL != "" && c.SealedSecret == "" {
		if !s.Secrets.HasKey() {
			return nil, badf("webhooks are signed with a secret kept encrypted: the operator must set WEBACQ_SECRET_KEY " +
				"before a webhook can be set")
		}
		if generated, err = webhook.NewSecret(); err != nil {
			return nil, err
		}
		if c.SealedSecret, err = s.Secrets.Seal(generated, p.WorkspaceID); err != nil {
			return nil, err
		}
	}
	if err := s.Store.SetWebhook(ctx, p.WorkspaceID, c); err != nil {
		return nil, err
	}
	v := viewWebhook(c)
	v.WebhookSecret = generated
	return v, nil
}

// checkWebhookURL accepts an absolute http(s) URL that passes the SSRF
// guard (which runs again at every delivery).
func (s *Service) checkWebhookURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || len(raw) > maxURLLen {
		return "", badf("webhook_url must be an absolute http(s) URL of at most 2,048 characters")
	}
	if u.User != nil {
		return "", badf("webhook_url must not carry a user name or password")
	}
	if _, err := s.HTTP.CheckURL(u.String()); err != nil {
		return "", err
	}
	return u.String(), nil
}

// OutcomeTest is the outcome of a test delivery (TestWebhook).
const OutcomeTest = "test"

// WebhookTest is what the receiver made of a test delivery.
type WebhookTest struct {
	URL        string
	DeliveryID string
	Signed     bool
	StatusCode int // 0: no answer
	Latency    time.Duration
	Response   string
	// ErrorCode says why there was no answer (a refused address, a timeout).
	ErrorCode string
	Error     string
}

// OK reports whether the receiver took the delivery (a 2xx).
func (t *WebhookTest) OK() bool { return t.StatusCode >= 200 && t.StatusCode < 300 }

// TestWebhook sends a sample payload (outcome "test", no monitor) to the
// workspace's webhook at once, signed as deliveries are, through the SSRF
// guard, and reports the answer. It is not a delivery: nothing is logged or
// retried, and a 410 turns nothing off.
func (s *Service) TestWebhook(ctx context.Context, p *model.Principal) (*WebhookTest, error) {
	c, err := s.Store.Webhook(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if c.URL == "" {
		return nil, badf("no webhook is set: set its URL first")
	}
	now := s.now()
	payload := Payload{DeliveryID: uuid.NewString(), CallerID: p.WorkspaceID, Label: "Test delivery", DetectedAt: now,
		Outcome: OutcomeTest, ChangeSignal: []model.Signal{}, PDFLinks: []string{},
		ContentPreview: "A test delivery sent from the console: no monitor changed."}
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	header := http.Header{"Content-Type": {"application/json"}}
	res := &WebhookTest{URL: c.URL, DeliveryID: payload.DeliveryID}
	if c.SealedSecret != "" {
		secret, err := s.Secrets.Open(c.SealedSecret, p.WorkspaceID)
		if err != nil {
			return nil, model.Wrap(model.CodeUnavailable, err, "the webhook secret does not open with WEBACQ_SECRET_KEY")
		}
		signed, err := webhook.Sign(secret, payload.DeliveryID, now, body)
		if err != nil {
			return nil, badf("the webhook secret cannot sign: %s", err.Error())
		}
		for k, v := range signed {
			header[k] = v
		}
		res.Signed = true
	}
	answer, err := s.HTTP.Post(ctx, c.URL, header, body, s.timeout())
	if err != nil {
		res.ErrorCode, res.Error = model.ErrorCode(err), model.ErrorMessage(err)
		return res, nil
	}
	res.StatusCode, res.Latency, res.Response = answer.StatusCode, answer.Duration, string(answer.Body)
	return res, nil
}
