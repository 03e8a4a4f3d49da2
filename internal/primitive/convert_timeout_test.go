package primitive

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"webacq/internal/acquire"
	"webacq/internal/fetch"
	"webacq/internal/model"
)

// A page that takes longer to convert than the request's time answers
// timeout at the deadline, not when the conversion ends, and its budget
// stays reserved until the conversion really ends.
func TestConversionOutlivingTheRequest(t *testing.T) {
	// 1 MB of <br>: about a second of conversion here, several under -race.
	page := "<html><body><article>" + strings.Repeat("<br>", 250000) + "</article></body></html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	budget := acquire.NewBudget(acquire.BudgetOptions{Memory: 4 << 30})
	s := &Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Log: slog.New(slog.DiscardHandler), Convert: budget}

	// How long the conversion takes alone, without a deadline.
	req := FetchRequest{URL: srv.URL, Tier: TierHTTP, Timeout: 120000}
	if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Fetch(context.Background(), "", req); err != nil {
		t.Fatal(err)
	}
	alone := time.Since(start)
	if alone < 500*time.Millisecond {
		t.Skipf("the conversion took only %v here: too fast to tell a deadline from its end", alone)
	}

	req.Timeout = int((alone / 4).Milliseconds())
	start = time.Now()
	_, err := s.Fetch(context.Background(), "", req)
	took := time.Since(start)
	if model.ErrorCode(err) != model.CodeTimeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	if took > alone*3/4 {
		t.Fatalf("answered after %v; the deadline was %v and the conversion alone takes %v", took, alone/4, alone)
	}
	if running, _, _ := budget.Stats(); running != 1 {
		t.Fatalf("%d conversions hold the budget just after the timeout, want the abandoned one", running)
	}
	waitFor(t, func() bool { r, _, _ := budget.Stats(); return r == 0 }, 5*alone)
}
