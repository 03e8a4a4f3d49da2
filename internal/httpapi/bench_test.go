package httpapi_test

import (
	"io"
	"net/http"
	"testing"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// BenchmarkHealth measures authenticated health calls in process: key lookup,
// envelope, and the usage and activity rows of every call.
func BenchmarkHealth(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			t := &testing.T{}
			_ = t
			e := newBenchEnv(b, dialect)
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			client := &http.Client{Transport: tr}
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				req, _ := http.NewRequest("GET", e.url+"/api/v1/health", nil)
				req.Header.Set("Authorization", "Bearer "+e.key)
				for pb.Next() {
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			})
		})
	}
}

var _ = store.SQLite
