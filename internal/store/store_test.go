package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var ctx = context.Background()

func TestWorkspacesAndKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, err := s.CreateWorkspace(ctx, "acme", 100, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateWorkspace(ctx, "acme", 1, false); model.ErrorCode(err) != model.CodeConflict {
			t.Fatalf("duplicate workspace: got %v, want conflict", err)
		}
		got, err := s.WorkspaceByName(ctx, "acme")
		if err != nil || got.ID != w.ID || got.Credits != 100 || !got.Monitoring {
			t.Fatalf("WorkspaceByName = %+v, %v", got, err)
		}
		if _, err := s.WorkspaceByName(ctx, "nope"); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("unknown workspace: got %v, want not_found", err)
		}

		key, k, err := s.CreateKey(ctx, w.ID, "ci")
		if err != nil {
			t.Fatal(err)
		}
		if !model.WellFormedKey(key) || len(key) != 43 || k.Prefix != key[:12] {
			t.Fatalf("key %q prefix %q malformed", key, k.Prefix)
		}
		p, err := s.Authenticate(ctx, key)
		if err != nil || p.WorkspaceID != w.ID || p.KeyPrefix != k.Prefix {
			t.Fatalf("Authenticate = %+v, %v", p, err)
		}
		if _, err := s.Authenticate(ctx, model.NewKey()); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("unknown key: got %v, want unauthorized", err)
		}
		if err := s.RevokeKey(ctx, k.Prefix); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, key); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("revoked key: got %v, want unauthorized", err)
		}
		if err := s.RevokeKey(ctx, k.Prefix); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("second revoke: got %v, want not_found", err)
		}
		keys, err := s.Keys(ctx, w.ID)
		if err != nil || len(keys) != 1 || keys[0].RevokedAt == nil {
			t.Fatalf("Keys = %+v, %v", keys, err)
		}
	})
}

func TestKeysAreStoredHashed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, _ := s.CreateWorkspace(ctx, "w", 0, false)
		key, _, err := s.CreateKey(ctx, w.ID, "k")
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.CountMatching(ctx, "api_keys", key)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("plaintext key found in %d api_keys columns", n)
		}
	})
}

func TestBootstrapOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		var keys atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := store.Open(ctx, url)
				if err != nil {
					t.Error(err)
					return
				}
				defer s.Close()
				key, err := s.Bootstrap(ctx, 10000)
				if err != nil {
					t.Error(err)
				}
				if key != "" {
					keys.Add(1)
					if p, err := s.Authenticate(ctx, key); err != nil || p.WorkspaceName != "default" || !p.Monitoring {
						t.Errorf("bootstrap key: %+v, %v", p, err)
					}
				}
			}()
		}
		wg.Wait()
		if keys.Load() != 1 {
			t.Fatalf("bootstrap printed %d keys, want exactly 1", keys.Load())
		}
	})
}

func TestReserveNeverOverdraws(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, _ := s.CreateWorkspace(ctx, "w", 50, false)
		var ok, exhausted atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.Reserve(ctx, w.ID, 1, time.Minute)
				switch model.ErrorCode(err) {
				case model.CodeInternal:
					if err != nil {
						t.Error(err)
						return
					}
					ok.Add(1)
					u := &model.Usage{WorkspaceID: w.ID, KeyPrefix: "mc_x", Endpoint: "/x", Tier: "http", Status: 200, CreatedAt: s.Now()}
					a := &model.Activity{WorkspaceID: w.ID, KeyPrefix: "mc_x", Endpoint: "/x", Via: "http", Method: "POST", Status: 200, CreatedAt: s.Now()}
					if err := s.Settle(ctx, r, 1, u, a, ""); err != nil {
						t.Error(err)
					}
				case model.CodeCreditsExhausted:
					exhausted.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 50 || exhausted.Load() != 150 {
			t.Fatalf("got %d ok, %d exhausted; want 50, 150", ok.Load(), exhausted.Load())
		}
		c, err := s.Credits(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Balance != 0 || c.Spent24h != 50 {
			t.Fatalf("credits = %+v, want balance 0, spent 50", c)
		}
	})
}

func TestSettleRefundsUnused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, _ := s.CreateWorkspace(ctx, "w", 10, false)
		r, err := s.Reserve(ctx, w.ID, 7, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got := balance(t, s, w.ID); got != 3 {
			t.Fatalf("balance after reserve = %d, want 3", got)
		}
		if _, err := s.Reserve(ctx, w.ID, 4, time.Minute); model.ErrorCode(err) != model.CodeCreditsExhausted {
			t.Fatalf("overdraw: got %v, want credits_exhausted", err)
		}
		u := &model.Usage{WorkspaceID: w.ID, Endpoint: "/api/v1/gyre", Tier: "http", Status: 200, CreatedAt: s.Now()}
		a := &model.Activity{WorkspaceID: w.ID, Endpoint: "/api/v1/gyre", Via: "http", Method: "POST", Status: 200, CreatedAt: s.Now()}
		if err := s.Settle(ctx, r, 2, u, a, ""); err != nil {
			t.Fatal(err)
		}
		if got := balance(t, s, w.ID); got != 8 {
			t.Fatalf("balance after settle = %d, want 8", got)
		}
		us, err := s.Usage(ctx, w.ID, model.LogFilter{})
		if err != nil || len(us) != 1 || us[0].Credits != 2 {
			t.Fatalf("usage = %+v, %v", us, err)
		}
	})
}

func TestExpiredReservationsAreRefundedOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, _ := s.CreateWorkspace(ctx, "w", 10, false)
		if _, err := s.Reserve(ctx, w.ID, 4, -time.Second); err != nil { // a holder that died
			t.Fatal(err)
		}
		late, err := s.Reserve(ctx, w.ID, 3, -time.Second) // a holder that settles late
		if err != nil {
			t.Fatal(err)
		}
		live, err := s.Reserve(ctx, w.ID, 2, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.ExpireReservations(ctx)
		if err != nil || n != 2 {
			t.Fatalf("ExpireReservations = %d, %v; want 2", n, err)
		}
		if got := balance(t, s, w.ID); got != 8 {
			t.Fatalf("balance = %d, want 8 (live hold of 2 kept)", got)
		}
		u := &model.Usage{WorkspaceID: w.ID, Endpoint: "/x", Tier: "http", CreatedAt: s.Now()}
		a := &model.Activity{WorkspaceID: w.ID, Endpoint: "/x", Via: "http", CreatedAt: s.Now()}
		if err := s.Settle(ctx, late, 3, u, a, ""); err != nil {
			t.Fatal(err)
		}
		if got := balance(t, s, w.ID); got != 5 {
			t.Fatalf("balance after late settle = %d, want 5 (drawn again)", got)
		}
		if err := s.Settle(ctx, live, 0, u, a, ""); err != nil {
			t.Fatal(err)
		}
		if got := balance(t, s, w.ID); got != 7 {
			t.Fatalf("balance = %d, want 7", got)
		}
		if n, _ := s.ExpireReservations(ctx); n != 0 {
			t.Fatalf("second expiry refunded %d, want 0", n)
		}
	})
}

func TestLogsFilter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, _ := s.CreateWorkspace(ctx, "w", 10, false)
		other, _ := s.CreateWorkspace(ctx, "other", 10, false)
		key, k, _ := s.CreateKey(ctx, w.ID, "a")
		_ = key
		base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		var recs []store.Record
		for i := 0; i < 10; i++ {
			prefix, ep := "mc_aaaaaaaaa", "/api/v1/health"
			if i%2 == 1 {
				prefix, ep = "mc_bbbbbbbbb", "/api/v1/usage"
			}
			at := base.Add(time.Duration(i) * time.Minute)
			recs = append(recs, store.Record{
				Usage:    model.Usage{WorkspaceID: w.ID, KeyPrefix: prefix, Endpoint: ep, Tier: "none", Status: 200, CreatedAt: at},
				Activity: model.Activity{WorkspaceID: w.ID, KeyPrefix: prefix, Endpoint: ep, Via: "http", Method: "GET", Status: 200, CreatedAt: at},
				KeyID:    k.ID,
			})
		}
		recs = append(recs, store.Record{
			Usage:    model.Usage{WorkspaceID: other.ID, KeyPrefix: "mc_ccccccccc", Endpoint: "/api/v1/health", Tier: "none", CreatedAt: base},
			Activity: model.Activity{WorkspaceID: other.ID, KeyPrefix: "mc_ccccccccc", Endpoint: "/api/v1/health", Via: "http", CreatedAt: base},
		})
		if err := s.WriteRecords(ctx, recs); err != nil {
			t.Fatal(err)
		}
		all, err := s.Usage(ctx, w.ID, model.LogFilter{})
		if err != nil || len(all) != 10 {
			t.Fatalf("usage = %d rows, %v; want 10", len(all), err)
		}
		if !all[0].CreatedAt.Equal(base.Add(9 * time.Minute)) {
			t.Fatalf("newest first: got %v", all[0].CreatedAt)
		}
		cases := []struct {
			name string
			f    model.LogFilter
			want int
		}{
			{"prefix", model.LogFilter{KeyPrefix: "mc_bbbbbbbbb"}, 5},
			{"endpoint", model.LogFilter{Endpoint: "/api/v1/health"}, 5},
			{"since", model.LogFilter{Since: base.Add(5 * time.Minute)}, 5},
			{"before", model.LogFilter{Before: base.Add(2 * time.Minute)}, 2},
			{"limit", model.LogFilter{Limit: 3}, 3},
			{"combined", model.LogFilter{KeyPrefix: "mc_aaaaaaaaa", Since: base.Add(4 * time.Minute)}, 3},
		}
		for _, c := range cases {
			us, err := s.Usage(ctx, w.ID, c.f)
			if err != nil || len(us) != c.want {
				t.Errorf("usage %s: got %d, %v; want %d", c.name, len(us), err, c.want)
			}
			as, err := s.Activity(ctx, w.ID, c.f)
			if err != nil || len(as) != c.want {
				t.Errorf("activity %s: got %d, %v; want %d", c.name, len(as), err, c.want)
			}
		}
		keys, _ := s.Keys(ctx, w.ID)
		if keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(base.Add(9*time.Minute)) {
			t.Fatalf("last_used_at = %v, want the newest record's time", keys[0].LastUsedAt)
		}
	})
}

func balance(t *testing.T, s *store.Store, id string) int64 {
	t.Helper()
	w, err := s.Workspace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return w.Credits
}

// A revocation or an entitlement change made through another process's
// store (the command line) is seen by the very next lookup.
func TestChangesSeenAcrossStores(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		url := storetest.URL(t, dialect)
		server, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer server.Close()
		cli, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		w, _ := cli.CreateWorkspace(ctx, "w", 0, false)
		key, k, _ := cli.CreateKey(ctx, w.ID, "k")
		for i := 0; i < 3; i++ { // warm any cache
			if p, err := server.Authenticate(ctx, key); err != nil || p.Monitoring {
				t.Fatalf("Authenticate = %+v, %v", p, err)
			}
		}
		if err := cli.SetMonitoring(ctx, w.ID, true); err != nil {
			t.Fatal(err)
		}
		if p, err := server.Authenticate(ctx, key); err != nil || !p.Monitoring {
			t.Fatalf("entitlement change not seen: %+v, %v", p, err)
		}
		if err := cli.RevokeKey(ctx, k.Prefix); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Authenticate(ctx, key); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("revocation through another store not seen: %v", err)
		}
	})
}
