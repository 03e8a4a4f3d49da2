package billing_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var errRollback = errors.New("rollback")

// ChargeTx writes the rows of acts recorded in a caller's transaction and
// draws their credits there: paid acts keep both, an act the workspace
// cannot pay draws nothing, and concurrent charges never overdraw.
func TestChargeTx(t *testing.T) {
	eachStore(t, func(t *testing.T, s *store.Store, ws string) {
		now := time.Now().UTC()
		charge := func(credits int64, id string) billing.Charge {
			return billing.Charge{WorkspaceID: ws, Endpoint: "/api/v1/monitor/run", Via: "monitor", Method: "RUN",
				Target: "m1", RequestID: id, Tier: model.TierHTTP, Status: 200, Credits: credits,
				Started: now.Add(-time.Second), Finished: now}
		}
		// Two runs of one check: 1 + 3 credits from a balance of 10.
		if err := s.InTx(ctx, func(tx store.Tx) error {
			paid, err := billing.ChargeTx(ctx, s, tx, charge(1, "a"), charge(3, "b"))
			if err == nil && !paid {
				t.Error("a workspace with 10 credits could not pay 4")
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if bal, _ := s.Balance(ctx, ws); bal != 6 {
			t.Fatalf("balance %d after charging 4 of 10, want 6", bal)
		}
		us, _ := s.Usage(ctx, ws, model.LogFilter{})
		as, _ := s.Activity(ctx, ws, model.LogFilter{})
		if len(us) != 2 || len(as) != 2 {
			t.Fatalf("%d usage and %d activity rows, want 2 and 2", len(us), len(as))
		}
		var sum int64
		for i := range us {
			sum += us[i].Credits
			if us[i].DurationMS != 1000 || as[i].Via != "monitor" || as[i].Target != "m1" {
				t.Fatalf("rows %+v / %+v do not carry the charge", us[i], as[i])
			}
		}
		if sum != 4 {
			t.Fatalf("usage rows hold %d credits, want 4", sum)
		}

		// An act the workspace cannot pay: nothing drawn, the caller rolls back.
		err := s.InTx(ctx, func(tx store.Tx) error {
			paid, err := billing.ChargeTx(ctx, s, tx, charge(7, "c"))
			if err != nil {
				return err
			}
			if paid {
				t.Error("7 credits drawn from a balance of 6")
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatal(err)
		}
		if bal, _ := s.Balance(ctx, ws); bal != 6 {
			t.Fatalf("balance %d after an unpaid charge, want 6", bal)
		}

		// Twenty charges of one credit race for six.
		var wg sync.WaitGroup
		var mu sync.Mutex
		paidN := 0
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.InTx(ctx, func(tx store.Tx) error {
					paid, err := billing.ChargeTx(ctx, s, tx, charge(1, "r"+string(rune('a'+i))))
					if err != nil {
						return err
					}
					if !paid {
						return errRollback
					}
					mu.Lock()
					paidN++
					mu.Unlock()
					return nil
				})
				if err != nil && !errors.Is(err, errRollback) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if bal, _ := s.Balance(ctx, ws); bal != 0 || paidN != 6 {
			t.Fatalf("balance %d after %d paid charges, want 0 after 6", bal, paidN)
		}
		if us, _ := s.Usage(ctx, ws, model.LogFilter{}); len(us) != 8 {
			t.Fatalf("%d usage rows, want 8 (2 + 6 paid races; unpaid ones rolled back)", len(us))
		}
	})
}

func eachStore(t *testing.T, fn func(t *testing.T, s *store.Store, ws string)) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s, _, p := setup(t, dialect, 10)
		fn(t, s, p.WorkspaceID)
	})
}
