package primitive

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"webacq/internal/content/contenttest"
	"webacq/internal/fetch"
	"webacq/internal/model"
)

// TestFetchHostilePDF: a broken page tree is an upstream_error at once, and
// the request's deadline reaches the PDF reader, so a decompression bomb
// under a 500 ms timeout is stopped a reserve before it and answers
// timeout within the 500 ms instead of being read for tens of seconds.
func TestFetchHostilePDF(t *testing.T) {
	docs := map[string][]byte{"/self-kids.pdf": contenttest.SelfKidsPDF(), "/bomb.pdf": contenttest.FlateBombPDF(200 << 20)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(docs[r.URL.Path])
	}))
	defer srv.Close()
	s := &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Log: slog.New(slog.DiscardHandler)}
	for _, c := range []struct {
		path    string
		timeout int
		code    string
		message string
	}{
		{"/self-kids.pdf", 0, model.CodeUpstreamError, "broken"},
		{"/bomb.pdf", 500, model.CodeTimeout, "within the request's timeout"},
	} {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			req := FetchRequest{URL: srv.URL + c.path, Tier: TierHTTP, Timeout: c.timeout}
			if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			_, err := s.Fetch(context.Background(), "", req)
			if model.ErrorCode(err) != c.code || !strings.Contains(model.ErrorMessage(err), "PDF") ||
				!strings.Contains(model.ErrorMessage(err), c.message) {
				t.Errorf("err = %v (%s), want %s from the PDF reader saying %q", err, model.ErrorMessage(err), c.code, c.message)
			}
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("answered after %s", d)
			}
		})
	}
}
