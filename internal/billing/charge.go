package billing

import (
	"context"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
)

// Charge is one billed act that is recorded inside a caller's transaction
// rather than through a Call's reservation: a monitor run, a preview. It
// carries what the act's usage and activity rows say.
type Charge struct {
	WorkspaceID string
	KeyPrefix   string
	Endpoint    string
	Via         string
	Method      string
	Target      string // URL or monitor id the act is about
	RequestID   string
	Tier        string // model.TierNone when no tier did the work
	Status      int
	ErrorCode   string
	Credits     int64
	Started     time.Time
	Finished    time.Time
}

// rows are the charge's usage and activity rows.
func (c *Charge) rows() (model.Usage, model.Activity) {
	tier := c.Tier
	if tier == "" {
		tier = model.TierNone
	}
	// A key sent in a path or a query must not be stored whole.
	endpoint, target := model.RedactKeys(c.Endpoint), model.RedactKeys(c.Target)
	u := model.Usage{
		WorkspaceID: c.WorkspaceID, KeyPrefix: c.KeyPrefix, Endpoint: endpoint, Credits: c.Credits, Tier: tier,
		Status: c.Status, DurationMS: c.Finished.Sub(c.Started).Milliseconds(), RequestID: c.RequestID,
		CreatedAt: c.Finished,
	}
	a := model.Activity{
		WorkspaceID: c.WorkspaceID, KeyPrefix: c.KeyPrefix, Endpoint: endpoint, Via: c.Via, Method: c.Method,
		Target: target, Status: c.Status, ErrorCode: c.ErrorCode, Credits: c.Credits, RequestID: c.RequestID,
		CreatedAt: c.Finished,
	}
	return u, a
}

// ChargeTx is the charge path of acts recorded in the caller's transaction
// tx: it writes the usage and activity rows of every charge, then draws
// their credits from the workspace in one statement (the balance checked
// and decremented together, so it never goes below zero). It reports
// whether the workspace could pay; when it could not, nothing was drawn and
// the caller must roll tx back (the rows were written in it).
//
// The draw comes last: on PostgreSQL it locks the workspace's row, which
// every act of the workspace needs, so the lock is held only until the
// caller commits. All charges must be of one workspace.
func ChargeTx(ctx context.Context, s *store.Store, tx store.Tx, charges ...Charge) (paid bool, err error) {
	if len(charges) == 0 {
		return true, nil
	}
	us := make([]model.Usage, len(charges))
	as := make([]model.Activity, len(charges))
	var total int64
	for i := range charges {
		us[i], as[i] = charges[i].rows()
		total += charges[i].Credits
	}
	if err := s.LogTx(ctx, tx, us, as); err != nil {
		return false, err
	}
	return s.DrawCredits(ctx, tx, charges[0].WorkspaceID, total)
}
