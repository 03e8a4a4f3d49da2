package alert

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"webacq/internal/model"
	"webacq/internal/store"
)

// Target is one destination of an alert: a kind and, for the channels, the
// sealed Slack URL, the address or the number.
type Target struct{ Kind, To string }

// Fires tells whether a run alerts (spec 3.2; DECISIONS.md: blocked and
// error too). A run that could not be paid alerts nobody.
func Fires(run *model.Run) bool {
	if run.Error == model.CodeCreditsExhausted {
		return false
	}
	return run.Outcome != model.OutcomeUnchanged
}

// Destinations are where m's alerts go: the workspace's webhook when one
// is set, then Slack, email and SMS as configured. The caller reads them
// before its transaction: on PostgreSQL a read from the pool inside it
// could wait for a connection that other transactions hold. A nil Service
// (a monitor service built without alerts, in tests) has none.
func (s *Service) Destinations(ctx context.Context, m *model.Monitor) ([]Target, error) {
	if s == nil {
		return nil, nil
	}
	cfg, err := s.Store.Webhook(ctx, m.WorkspaceID)
	if err != nil {
		return nil, err
	}
	targets, err := s.channelTargets(ctx, m)
	if err != nil {
		return nil, err
	}
	if cfg.URL != "" {
		targets = append([]Target{{Kind: KindWebhook}}, targets...)
	}
	return targets, nil
}

// QueueRun writes a run's deliveries to targets, and the jobs that send them,
// in the run's transaction: the outbox. A run that does not fire writes
// nothing.
func (s *Service) QueueRun(ctx context.Context, tx store.Tx, m *model.Monitor, run *model.Run, targets []Target) error {
	if !Fires(run) || len(targets) == 0 {
		return nil
	}
	for _, t := range targets {
		p := Payload{DeliveryID: uuid.NewString(), MonitorID: m.ID, CallerID: m.WorkspaceID, Label: m.Label, URL: m.URL,
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
		d := &model.Delivery{ID: p.DeliveryID, MonitorID: m.ID, WorkspaceID: m.WorkspaceID, RunID: run.ID, Kind: t.Kind,
			Target: t.To, Status: model.DeliveryPending, Payload: body, CreatedAt: run.FinishedAt}
		if err := s.Store.InsertDelivery(ctx, tx, d); err != nil {
			return err
		}
		if _, err = s.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: d.ID}, nil); err != nil {
			return err
		}
	}
	return nil
}

// channelTargets is where m's alerts go besides the webhook: the
// workspace's channels, each replaced by the monitor's own when it has one.
func (s *Service) channelTargets(ctx context.Context, m *model.Monitor) ([]Target, error) {
	a, err := s.Store.AlertSettings(ctx, m.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if len(m.Alerts) > 0 {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(m.Alerts, &o); err != nil {
			return nil, err
		}
		if v, ok := o[model.AlertSlackURL]; ok {
			if err := json.Unmarshal(v, &a.SealedSlackURL); err != nil {
				return nil, err
			}
		}
		for key, to := range map[string]*[]string{model.AlertEmailTo: &a.EmailTo, model.AlertSMSTo: &a.SMSTo} {
			if v, ok := o[key]; ok {
				if err := json.Unmarshal(v, to); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []Target
	if a.SealedSlackURL != "" {
		out = append(out, Target{KindSlack, a.SealedSlackURL})
	}
	for _, e := range a.EmailTo {
		out = append(out, Target{KindEmail, e})
	}
	for _, n := range a.SMSTo {
		out = append(out, Target{KindSMS, n})
	}
	return out, nil
}
