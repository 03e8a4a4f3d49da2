package store_test

import (
	"context"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestDeliveryOrderRunWebhooksAndPrune(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		s := storetest.Open(t, dialect)
		old := time.Now().UTC().Add(-100 * 24 * time.Hour).Truncate(time.Millisecond)
		add := func(id, run, kind, target string, at time.Time) *model.Delivery {
			d := &model.Delivery{ID: id, MonitorID: "m1", WorkspaceID: "w1", RunID: run, Kind: kind, Target: target,
				Status: model.DeliveryPending, Payload: []byte(`{}`), CreatedAt: at}
			if err := s.InTx(ctx, func(tx store.Tx) error { return s.InsertDelivery(ctx, tx, d) }); err != nil {
				t.Fatal(err)
			}
			return d
		}
		first := add("d1", "r1", "webhook", "", old)
		second := add("d2", "r2", "webhook", "", old.Add(time.Second))
		mailA := add("d3", "r2", "email", "a@example.com", old.Add(time.Second))
		mailB := add("d4", "r3", "email", "b@example.com", old.Add(2*time.Second))

		// Order holds per kind and target.
		for _, c := range []struct {
			d    *model.Delivery
			want bool
		}{{first, false}, {second, true}, {mailA, false}, {mailB, false}} {
			if got, err := s.EarlierPending(ctx, c.d); err != nil || got != c.want {
				t.Errorf("%s: earlier pending %v (%v), want %v", c.d.ID, got, err, c.want)
			}
		}
		if got, _ := s.Delivery(ctx, "d3"); got.Target != "a@example.com" || got.Kind != "email" {
			t.Errorf("read back %+v", got)
		}

		// A run's webhook delivery, and nothing for a run with only email.
		hooks, err := s.RunWebhooks(ctx, []string{"r1", "r2", "r3"})
		if err != nil || len(hooks) != 2 || hooks["r2"].DeliveryID != "d2" || hooks["r2"].Status != "pending" || hooks["r3"] != nil {
			t.Fatalf("run webhooks %v %v", hooks, err)
		}

		// Settled deliveries past the cutoff go with their attempts;
		// pending ones stay.
		for _, id := range []string{"d1", "d3"} {
			if err := s.RecordAttempt(ctx, id, model.DeliveryDelivered, model.DeliveryAttempt{Attempt: 1, StatusCode: 200, At: old}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RecordAttempt(ctx, "d4", model.DeliveryFailed, model.DeliveryAttempt{Attempt: 1, StatusCode: 550, At: time.Now().UTC()}); err != nil {
			t.Fatal(err)
		}
		n, err := s.PruneDeliveries(ctx, time.Now().UTC().Add(-90*24*time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("pruned %d (%v), want 2", n, err)
		}
		for id, kept := range map[string]bool{"d1": false, "d2": true, "d3": false, "d4": true} {
			_, err := s.Delivery(ctx, id)
			if (err == nil) != kept {
				t.Errorf("%s kept = %v (%v)", id, err == nil, err)
			}
		}
		ds, _ := s.Deliveries(ctx, "m1", time.Time{}, 10)
		for _, d := range ds {
			if d.ID == "d4" && len(d.Log) != 1 {
				t.Errorf("d4 lost its attempts: %+v", d.Log)
			}
		}
	})
}
