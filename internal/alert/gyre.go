package alert

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"webacq/internal/model"
	"webacq/internal/store"
)

// GyreCompleted is the webhook body of an asynchronous crawl that ended
// (DECISIONS, Async gyre), signed like a monitor alert.
type GyreCompleted struct {
	Event       string `json:"event"` // "gyre.completed"
	JobID       string `json:"job_id"`
	Status      string `json:"status"`
	TotalPages  int    `json:"totalPages"`
	CreditsUsed int64  `json:"creditsUsed"`
}

// EventGyreCompleted names the event of GyreCompleted.
const EventGyreCompleted = "gyre.completed"

// HasWebhook reports whether a workspace has a webhook. Read it before the
// transaction that queues the delivery (see Destinations).
func (s *Service) HasWebhook(ctx context.Context, workspaceID string) (bool, error) {
	if s == nil {
		return false, nil
	}
	cfg, err := s.Store.Webhook(ctx, workspaceID)
	if err != nil {
		return false, err
	}
	return cfg.URL != "", nil
}

// QueueGyre writes the delivery of a crawl job's end to the workspace's
// webhook, and the job that sends it, in tx: the outbox, as for monitor
// runs. The delivery is filed under the crawl job's id where a monitor's
// would be filed under the monitor's and the run's.
func (s *Service) QueueGyre(ctx context.Context, tx store.Tx, workspaceID string, p GyreCompleted) error {
	// The delivery id travels in the signature's headers, as for monitor
	// alerts; the body is the contract's, no more.
	p.Event = EventGyreCompleted
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	d := &model.Delivery{ID: uuid.NewString(), MonitorID: p.JobID, WorkspaceID: workspaceID, RunID: p.JobID, Kind: KindWebhook,
		Status: model.DeliveryPending, Payload: body, CreatedAt: s.now()}
	if err := s.Store.InsertDelivery(ctx, tx, d); err != nil {
		return err
	}
	_, err = s.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: d.ID}, nil)
	return err
}
