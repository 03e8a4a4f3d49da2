package store_test

import (
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// Renewed holds are not expired, however many; once no longer renewed they
// are all refunded by one call, past the number a round lists.
func TestRenewedHoldsStay(t *testing.T) {
	store.SmallBatches(t, 4, 5)
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		const n = 23
		w, _ := s.CreateWorkspace(ctx, "w", n+5, false)
		ids := make([]string, n)
		for i := range ids {
			r, err := s.Reserve(ctx, w.ID, 1, -time.Second) // already expired
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = r.ID
		}
		if err := s.RenewReservations(ctx, ids, time.Hour); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ExpireReservations(ctx); err != nil || got != 0 {
			t.Fatalf("ExpireReservations after renewal = %d, %v; want 0", got, err)
		}
		if b := balance(t, s, w.ID); b != 5 {
			t.Fatalf("balance %d, want 5 (every renewed hold kept)", b)
		}
		if err := s.RenewReservations(ctx, ids, -time.Second); err != nil { // their node stopped long ago
			t.Fatal(err)
		}
		if got, err := s.ExpireReservations(ctx); err != nil || got != n {
			t.Fatalf("ExpireReservations = %d, %v; want %d", got, err, n)
		}
		if b := balance(t, s, w.ID); b != n+5 {
			t.Fatalf("balance %d, want %d", b, n+5)
		}
	})
}
