package store_test

import (
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// BenchmarkWriteRecords measures the group commit of free calls' rows: one
// op is one call's usage and activity rows, written in batches of 32.
func BenchmarkWriteRecords(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(d, func(b *testing.B) {
			s := storetest.Open(b, d)
			w, _ := s.CreateWorkspace(ctx, "w", 0, false)
			recs := make([]store.Record, 32)
			for i := range recs {
				recs[i] = store.Record{
					Usage: model.Usage{WorkspaceID: w.ID, KeyPrefix: "mc_abcdefghi", Endpoint: "/api/v1/health", Tier: "none",
						Status: 200, RequestID: "0123456789abcdef01234567", CreatedAt: time.Now()},
					Activity: model.Activity{WorkspaceID: w.ID, KeyPrefix: "mc_abcdefghi", Endpoint: "/api/v1/health", Via: "http",
						Method: "GET", Status: 200, RequestID: "0123456789abcdef01234567", CreatedAt: time.Now()},
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i += len(recs) {
				now := time.Now().UTC()
				for j := range recs {
					recs[j].Usage.CreatedAt, recs[j].Activity.CreatedAt = now, now
				}
				if err := s.WriteRecords(ctx, recs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAuthenticate measures the key lookup every request makes.
func BenchmarkAuthenticate(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(d, func(b *testing.B) {
			s := storetest.Open(b, d)
			w, _ := s.CreateWorkspace(ctx, "w", 0, false)
			key, _, _ := s.CreateKey(ctx, w.ID, "k")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Authenticate(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
