package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/alert"
	"webacq/internal/jobs"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/webhook"
)

// DefaultBackoff is the wait before each retry of a delivery (DECISIONS.md,
// Webhooks); after the last, the delivery is failed.
var DefaultBackoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// defaultDeliveryTimeout bounds one attempt (Service.DeliveryTimeout).
const defaultDeliveryTimeout = 10 * time.Second

func (s *Service) deliveryTimeout() time.Duration {
	if s.DeliveryTimeout > 0 {
		return s.DeliveryTimeout
	}
	return defaultDeliveryTimeout
}

// DeliverArgs is the job of one delivery.
type DeliverArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind names the job.
func (DeliverArgs) Kind() string { return "alert_delivery" }

// InsertOpts puts deliveries on the monitor queue.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: jobs.QueueMonitor, MaxAttempts: len(DefaultBackoff) + 1}
}

// fires tells whether a run alerts (spec 3.2; DECISIONS.md: blocked and error
// too). A run that could not be paid alerts nobody.
func fires(run *model.Run) bool {
	if run.Error == model.CodeCreditsExhausted {
		return false
	}
	return run.Outcome != model.OutcomeUnchanged
}

// destinations are where m's alerts go: the workspace's webhook when one
// is set, then Slack, email and SMS as configured.
func (s *Service) destinations(ctx context.Context, m *model.Monitor) ([]target, error) {
	cfg, err := s.Store.Webhook(ctx, m.WorkspaceID)
	if err != nil {
		return nil, err
	}
	targets, err := s.alertTargets(ctx, m)
	if err != nil {
		return nil, err
	}
	if cfg.URL != "" {
		targets = append([]target{{kind: alert.KindWebhook}}, targets...)
	}
	return targets, nil
}

// queueAlert writes a run's deliveries to dests, and the jobs that send
// them, in the run's transaction.
func (s *Service) queueAlert(ctx context.Context, tx store.Tx, m *model.Monitor, run *model.Run, targets []target) error {
	if !fires(run) {
		return nil
	}
	for _, t := range targets {
		p := alert.Payload{DeliveryID: uuid.NewString(), MonitorID: m.ID, CallerID: m.WorkspaceID, Label: m.Label, URL: m.URL,
			DetectedAt: run.FinishedAt, Outcome: run.Outcome, TopScore: run.TopScore, Channel: run.Channel,
			ChangeSignal: run.ChangeSignal, PDFLinks: run.PDFLinks, ContentPreview: run.ContentPreview, Error: run.Error,
			ExtractedFields: run.ExtractedFields}
		if p.ChangeSignal == nil {
			p.ChangeSignal = []model.Signal{}
		}
		if p.PDFLinks == nil {
			p.PDFLinks = []string{}
		}
		if run.Outcome == model.OutcomePayloadTooLarge {
			p.SizeBytes = &run.SizeBytes
		}
		body, err := json.Marshal(p)
		if err != nil {
			return err
		}
		d := &model.Delivery{ID: p.DeliveryID, MonitorID: m.ID, WorkspaceID: m.WorkspaceID, RunID: run.ID, Kind: t.kind,
			Target: t.to, Status: model.DeliveryPending, Payload: body, CreatedAt: run.FinishedAt}
		if err := s.Store.InsertDelivery(ctx, tx, d); err != nil {
			return err
		}
		if _, err = s.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: d.ID}, nil); err != nil {
			return err
		}
	}
	return nil
}

type deliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	s *Service
}

func (w *deliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return w.s.deliveryTimeout() + 20*time.Second
}

// NextRetry waits the backoff of the attempt, give or take a tenth.
func (w *deliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	b := w.s.backoff()
	d := b[min(max(job.Attempt-1, 0), len(b)-1)]
	jitter := time.Duration(rand.Int64N(int64(d)/5+1)) - d/10
	return time.Now().Add(d + jitter)
}

func (w *deliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	return w.s.deliver(ctx, job)
}

func (s *Service) backoff() []time.Duration {
	if len(s.Backoff) > 0 {
		return s.Backoff
	}
	return DefaultBackoff
}

// deliver makes one attempt of a delivery: only a 2xx counts; network
// errors, 5xx and 429 (after its Retry-After) are retried with backoff, then
// the delivery is failed; 410 turns the workspace's webhook off; any other
// answer fails it at once. Deliveries of a monitor go out in order.
func (s *Service) deliver(ctx context.Context, job *river.Job[DeliverArgs]) error {
	d, err := s.Store.Delivery(ctx, job.Args.DeliveryID)
	if model.ErrorCode(err) == model.CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != model.DeliveryPending {
		return nil
	}
	if earlier, err := s.Store.EarlierPending(ctx, d); err != nil {
		return err
	} else if earlier {
		return river.JobSnooze(5 * time.Second)
	}
	attempt := model.DeliveryAttempt{Attempt: d.Attempts + 1, At: s.now()}
	final := attempt.Attempt > len(s.backoff())
	fail := func(class string) error {
		attempt.ErrorClass = class
		return s.Store.RecordAttempt(ctx, d.ID, model.DeliveryFailed, attempt)
	}
	if d.Kind != alert.KindWebhook {
		return s.deliverChannel(ctx, d, attempt, final)
	}
	cfg, err := s.Store.Webhook(ctx, d.WorkspaceID)
	if err != nil {
		return err
	}
	if cfg.URL == "" {
		return fail("no_webhook")
	}
	secret := ""
	if cfg.SealedSecret != "" {
		if secret, err = s.Secrets.Open(cfg.SealedSecret, d.WorkspaceID); err != nil {
			return fail("secret_unreadable")
		}
	}
	header := http.Header{"Content-Type": {"application/json"}}
	if secret != "" {
		signed, err := webhook.Sign(secret, d.ID, attempt.At, d.Payload)
		if err != nil {
			return fail("secret_invalid")
		}
		for k, v := range signed {
			header[k] = v
		}
	}
	res, err := s.HTTP.Post(ctx, cfg.URL, header, d.Payload, s.deliveryTimeout())
	if err != nil {
		return s.retryOrFail(ctx, d, attempt, final, model.ErrorCode(err), model.ErrorCode(err) != model.CodeForbiddenURL, 0)
	}
	attempt.StatusCode, attempt.LatencyMS, attempt.Response = res.StatusCode, res.Duration.Milliseconds(), string(res.Body)
	if res.StatusCode == http.StatusGone {
		if err := s.Store.SetWebhook(ctx, d.WorkspaceID, store.WebhookConfig{SealedSecret: cfg.SealedSecret}); err != nil {
			return err
		}
		return fail("gone")
	}
	return s.answered(ctx, d, attempt, final, res.StatusCode, res.Header.Get("Retry-After"))
}

// answered records an attempt that got an HTTP answer: only a 2xx counts;
// 429 (after its Retry-After) and 5xx are retried; anything else fails.
func (s *Service) answered(ctx context.Context, d *model.Delivery, attempt model.DeliveryAttempt, final bool, code int,
	retryAfterHeader string) error {
	if code >= 200 && code < 300 {
		return s.Store.RecordAttempt(ctx, d.ID, model.DeliveryDelivered, attempt)
	}
	var wait time.Duration
	if code == http.StatusTooManyRequests {
		wait, _ = retryAfter(retryAfterHeader)
	}
	return s.retryOrFail(ctx, d, attempt, final, "http_"+strconv.Itoa(code), code == http.StatusTooManyRequests || code >= 500, wait)
}

// retryOrFail records a failed attempt: a temporary failure is retried
// (after wait when the receiver asked for one, else with backoff) until the
// last attempt; a permanent one fails the delivery.
func (s *Service) retryOrFail(ctx context.Context, d *model.Delivery, attempt model.DeliveryAttempt, final bool, class string,
	temporary bool, wait time.Duration) error {
	attempt.ErrorClass = class
	if !temporary || final {
		return s.Store.RecordAttempt(ctx, d.ID, model.DeliveryFailed, attempt)
	}
	if err := s.Store.RecordAttempt(ctx, d.ID, model.DeliveryPending, attempt); err != nil {
		return err
	}
	if wait > 0 {
		return river.JobSnooze(wait)
	}
	return fmt.Errorf("delivery %s: %s", d.ID, class)
}

// deliverChannel makes one attempt of a Slack, email or SMS delivery, by
// the webhook's rules.
func (s *Service) deliverChannel(ctx context.Context, d *model.Delivery, attempt model.DeliveryAttempt, final bool) error {
	var p alert.Payload
	if err := json.Unmarshal(d.Payload, &p); err != nil {
		return s.retryOrFail(ctx, d, attempt, final, "payload_unreadable", false, 0)
	}
	var res alert.Result
	var err error
	switch d.Kind {
	case alert.KindSlack:
		u, oerr := s.Secrets.Open(d.Target, d.WorkspaceID)
		if oerr != nil {
			return s.retryOrFail(ctx, d, attempt, final, "secret_unreadable", false, 0)
		}
		r, perr := s.HTTP.Post(ctx, u, http.Header{"Content-Type": {"application/json"}}, p.Slack(), s.deliveryTimeout())
		if perr != nil {
			return s.retryOrFail(ctx, d, attempt, final, model.ErrorCode(perr), model.ErrorCode(perr) != model.CodeForbiddenURL, 0)
		}
		attempt.StatusCode, attempt.LatencyMS, attempt.Response = r.StatusCode, r.Duration.Milliseconds(), string(r.Body)
		return s.answered(ctx, d, attempt, final, r.StatusCode, r.Header.Get("Retry-After"))
	case alert.KindEmail:
		if s.Mail == nil {
			return s.retryOrFail(ctx, d, attempt, final, "no_transport", false, 0)
		}
		res, err = s.Mail.SendEmail(ctx, d.Target, &p)
	case alert.KindSMS:
		if s.SMS == nil {
			return s.retryOrFail(ctx, d, attempt, final, "no_transport", false, 0)
		}
		res, err = s.SMS.SendSMS(ctx, d.Target, &p)
	default:
		return s.retryOrFail(ctx, d, attempt, final, "unknown_kind", false, 0)
	}
	attempt.StatusCode, attempt.LatencyMS, attempt.Response = res.Status, res.Latency.Milliseconds(), res.Response
	if err == nil {
		return s.Store.RecordAttempt(ctx, d.ID, model.DeliveryDelivered, attempt)
	}
	var f *alert.Failure
	if !errors.As(err, &f) {
		return s.retryOrFail(ctx, d, attempt, final, "error", true, 0)
	}
	return s.retryOrFail(ctx, d, attempt, final, f.Class, f.Temporary, 0)
}

// retryAfter reads a Retry-After of seconds, bounded to a day.
func retryAfter(v string) (time.Duration, bool) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false
	}
	return min(time.Duration(n)*time.Second, 24*time.Hour), true
}

// Redeliver sends a delivery again, as a new series of attempts.
func (s *Service) Redeliver(ctx context.Context, p *model.Principal, monitorID, deliveryID string) (*model.Delivery, error) {
	m, err := s.Get(ctx, p, monitorID)
	if err != nil {
		return nil, err
	}
	d, err := s.Store.Delivery(ctx, deliveryID)
	if err != nil || d.MonitorID != m.ID {
		return nil, model.Errorf(model.CodeNotFound, "delivery not found")
	}
	err = s.Store.InTx(ctx, func(tx store.Tx) error {
		if err := s.Store.ResetDelivery(ctx, tx, d.ID, s.now()); err != nil {
			return err
		}
		_, err := s.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: d.ID}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	d.Status = model.DeliveryPending
	return d, nil
}
