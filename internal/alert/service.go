package alert

import (
	"log/slog"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/secretbox"
	"webacq/internal/store"
)

// Service delivers the alerts of monitor runs: the outbox (outbox.go), one
// sender per kind with its retries (deliver.go), the delivery log and
// redelivery, and the workspace's webhook (webhook.go) and alert channels
// (settings.go). Safe for concurrent use.
type Service struct {
	Store *store.Store
	// Queue runs the delivery jobs; the worker is registered with
	// AddWorkers.
	Queue *jobs.Queue
	// HTTP posts webhooks and Slack messages through the SSRF guard.
	HTTP *fetch.Client
	// Secrets seals and opens webhook secrets and Slack URLs.
	Secrets *secretbox.Box
	// Mail and SMS are the operator's transports (nil: not configured;
	// setting that channel is bad_request).
	Mail *Mailer
	SMS  *SMS
	// Backoff replaces DefaultBackoff (tests).
	Backoff []time.Duration
	// Timeout bounds one webhook or Slack attempt (default 10 s).
	Timeout time.Duration
	// MessagesPerHour caps a workspace's email and SMS messages in any
	// hour (WEBACQ_ALERT_MESSAGES_PER_HOUR; 0: DefaultMessagesPerHour).
	MessagesPerHour int
	Log             *slog.Logger

	// orphanGrace is the sweep's grace (Periodic).
	orphanGrace time.Duration
}

// DefaultBackoff is the wait before each retry of a delivery (DECISIONS.md,
// Webhooks); after the last, the delivery is failed.
var DefaultBackoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// defaultTimeout bounds one attempt (Service.Timeout).
const defaultTimeout = 10 * time.Second

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return defaultTimeout
}

func (s *Service) backoff() []time.Duration {
	if len(s.Backoff) > 0 {
		return s.Backoff
	}
	return DefaultBackoff
}

// now is the store's clock, which tests may replace.
func (s *Service) now() time.Time { return s.Store.Now().UTC().Truncate(time.Millisecond) }

func badf(format string, args ...any) error {
	return model.Errorf(model.CodeBadRequest, format, args...)
}

// maxURLLen bounds webhook and Slack URLs.
const maxURLLen = 2048
