package alert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"webacq/internal/jobs"
	"webacq/internal/metrics"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/webhook"
)

// DeliverArgs is the job of one delivery. Its kind is the one monitor
// nodes queued before delivery had a package of its own, so that their
// queued jobs still run.
type DeliverArgs struct {
	DeliveryID string `json:"delivery_id"`
	// Base is the delivery's count of attempts before this job's series
	// (0 for the first; a redelivery's series starts where the last ended),
	// so that every series gets the whole retry schedule.
	Base int `json:"base,omitempty"`
	// Last makes the job's first attempt the series' last: the one more
	// attempt a delivery gets when it was left pending without a job
	// (RequeueOrphans).
	Last bool `json:"last,omitempty"`
}

// Kind names the job.
func (DeliverArgs) Kind() string { return "alert_delivery" }

// InsertOpts puts deliveries on the monitor queue.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: jobs.QueueMonitor, MaxAttempts: len(DefaultBackoff) + 1}
}

// AddWorkers registers the delivery worker.
func (s *Service) AddWorkers(w *river.Workers) {
	river.AddWorker(w, &deliverWorker{s: s})
	river.AddWorker(w, river.WorkFunc(s.requeueOrphans))
}

type deliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	s *Service
}

func (w *deliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return w.s.timeout() + 20*time.Second
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

// deliver makes one attempt of a delivery: only a 2xx counts; network
// errors, 5xx and 429 (after its Retry-After) are retried with backoff, then
// the delivery is failed; 410 turns the workspace's webhook off if the URL
// that answered is still the configured one; any other answer fails it at
// once. Deliveries of a monitor go out in order.
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
	// The series ends after the schedule, or at River's last attempt of
	// the job (attempts that ended before recording count there), so that
	// such attempts do not leave the delivery pending without a job. (A
	// node that dies during the job's last attempt still does, River
	// discarding the job; RequeueOrphans queues one more attempt for it,
	// and redeliver a new series.)
	final := attempt.Attempt-job.Args.Base > len(s.backoff()) || job.Attempt >= job.MaxAttempts || job.Args.Last
	fail := func(class string) error {
		attempt.ErrorClass = class
		return s.recordAttempt(ctx, d, model.DeliveryFailed, attempt)
	}
	if d.Kind != KindWebhook {
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
	res, err := s.HTTP.Post(ctx, cfg.URL, header, d.Payload, s.timeout())
	if err != nil {
		return s.retryOrFail(ctx, d, attempt, final, model.ErrorCode(err), model.ErrorCode(err) != model.CodeForbiddenURL, 0)
	}
	attempt.StatusCode, attempt.LatencyMS, attempt.Response = res.StatusCode, res.Duration.Milliseconds(), string(res.Body)
	if res.StatusCode == http.StatusGone {
		// Only the URL that answered is turned off: the user may have set
		// another since this attempt read the configuration.
		if _, err := s.Store.DisableWebhook(ctx, d.WorkspaceID, cfg.URL); err != nil {
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
		return s.recordAttempt(ctx, d, model.DeliveryDelivered, attempt)
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
		return s.recordAttempt(ctx, d, model.DeliveryFailed, attempt)
	}
	if err := s.recordAttempt(ctx, d, model.DeliveryPending, attempt); err != nil {
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
	var p Payload
	if err := json.Unmarshal(d.Payload, &p); err != nil {
		return s.retryOrFail(ctx, d, attempt, final, "payload_unreadable", false, 0)
	}
	var res Result
	var err error
	switch d.Kind {
	case KindSlack:
		u, oerr := s.Secrets.Open(d.Target, d.WorkspaceID)
		if oerr != nil {
			return s.retryOrFail(ctx, d, attempt, final, "secret_unreadable", false, 0)
		}
		r, perr := s.HTTP.Post(ctx, u, http.Header{"Content-Type": {"application/json"}}, p.Slack(), s.timeout())
		if perr != nil {
			return s.retryOrFail(ctx, d, attempt, final, model.ErrorCode(perr), model.ErrorCode(perr) != model.CodeForbiddenURL, 0)
		}
		attempt.StatusCode, attempt.LatencyMS, attempt.Response = r.StatusCode, r.Duration.Milliseconds(), string(r.Body)
		return s.answered(ctx, d, attempt, final, r.StatusCode, r.Header.Get("Retry-After"))
	case KindEmail:
		if s.Mail == nil {
			return s.retryOrFail(ctx, d, attempt, final, "no_transport", false, 0)
		}
		if refused, err := s.takeMessage(ctx, d, attempt); refused || err != nil {
			return err
		}
		res, err = s.Mail.SendEmail(ctx, d.Target, &p)
	case KindSMS:
		if s.SMS == nil {
			return s.retryOrFail(ctx, d, attempt, final, "no_transport", false, 0)
		}
		if refused, err := s.takeMessage(ctx, d, attempt); refused || err != nil {
			return err
		}
		res, err = s.SMS.SendSMS(ctx, d.Target, &p)
	default:
		return s.retryOrFail(ctx, d, attempt, final, "unknown_kind", false, 0)
	}
	attempt.StatusCode, attempt.LatencyMS, attempt.Response = res.Status, res.Latency.Milliseconds(), res.Response
	if err == nil {
		return s.recordAttempt(ctx, d, model.DeliveryDelivered, attempt)
	}
	var f *Failure
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

// Redeliver sends a settled delivery of the workspace's monitor again, as
// a new series of attempts with the whole retry schedule. It is
// idempotent: while the delivery is pending (its job queued or running) it
// queues nothing and answers the delivery as it is. An email or SMS past
// the workspace's messages per hour is rate_limited.
func (s *Service) Redeliver(ctx context.Context, p *model.Principal, monitorID, deliveryID string) (*model.Delivery, error) {
	d, err := s.Store.Delivery(ctx, deliveryID)
	if err != nil || d.MonitorID != monitorID || d.WorkspaceID != p.WorkspaceID {
		return nil, model.Errorf(model.CodeNotFound, "delivery not found")
	}
	if d.Status != model.DeliveryPending && (d.Kind == KindEmail || d.Kind == KindSMS) {
		wait, err := s.Store.QuotaWait(ctx, messagesQuota(d.WorkspaceID), s.messagesPerHour(), time.Hour)
		if err != nil {
			return nil, err
		}
		if wait > 0 {
			return nil, &model.Error{Code: model.CodeRateLimited, RetryAfter: wait, Message: fmt.Sprintf(
				"this workspace has sent its %d email and SMS messages of the past hour (WEBACQ_ALERT_MESSAGES_PER_HOUR); "+
					"retry after %d s", s.messagesPerHour(), int(wait.Seconds()+0.999))}
		}
	}
	err = s.Store.InTx(ctx, func(tx store.Tx) error {
		attempts, reset, err := s.Store.ResetDelivery(ctx, tx, d.ID, s.now())
		if err != nil || !reset {
			return err
		}
		_, err = s.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: d.ID, Base: attempts}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	d.Status = model.DeliveryPending
	return d, nil
}

// DefaultMessagesPerHour is the default cap of a workspace's email and SMS
// messages (WEBACQ_ALERT_MESSAGES_PER_HOUR).
const DefaultMessagesPerHour = 100

func (s *Service) messagesPerHour() int {
	if s.MessagesPerHour > 0 {
		return s.MessagesPerHour
	}
	return DefaultMessagesPerHour
}

// messagesQuota names a workspace's email and SMS quota in rate_limits.
func messagesQuota(workspaceID string) string { return "alert_messages:" + workspaceID }

// takeMessage takes one of the workspace's email and SMS messages of the
// hour before an attempt sends one. Past the cap the delivery is recorded
// failed, not sent, with the error class rate_limited (refused true).
func (s *Service) takeMessage(ctx context.Context, d *model.Delivery, attempt model.DeliveryAttempt) (refused bool, err error) {
	ok, _, err := s.Store.TakeQuota(ctx, messagesQuota(d.WorkspaceID), s.messagesPerHour(), time.Hour)
	if err != nil || ok {
		return false, err
	}
	attempt.ErrorClass = model.CodeRateLimited
	attempt.Response = fmt.Sprintf("not sent: this workspace has sent its %d email and SMS messages of the past hour "+
		"(WEBACQ_ALERT_MESSAGES_PER_HOUR)", s.messagesPerHour())
	return true, s.recordAttempt(ctx, d, model.DeliveryFailed, attempt)
}

// recordAttempt writes an attempt and the delivery's state after it, and
// counts it.
func (s *Service) recordAttempt(ctx context.Context, d *model.Delivery, status string, a model.DeliveryAttempt) error {
	if err := s.Store.RecordAttempt(ctx, d.ID, status, a); err != nil {
		return err
	}
	metrics.DeliveryAttempt(d.Kind, status)
	return nil
}
