package primitive

import (
	"context"
	"fmt"
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

	// The load of a shared machine changes from one conversion to the next:
	// a deadline set from one measure can fall before the conversion began
	// (the fetch of the megabyte outlasting it) or after it ended. So each
	// attempt measures the conversion alone again, sets the deadline to a
	// third of it, and passes when the request answered timeout well before
	// the conversion could have ended while the conversion still held the
	// budget. A request that waits for its conversion never passes.
	req := FetchRequest{URL: srv.URL, Tier: TierHTTP, Timeout: 120000}
	if err := req.Normalize(s.HTTP.CheckURL, false); err != nil {
		t.Fatal(err)
	}
	var why []string
	for attempt := 0; attempt < 4; attempt++ {
		req.Timeout = 120000
		start := time.Now()
		if _, err := s.Fetch(context.Background(), "", req); err != nil {
			t.Fatal(err)
		}
		alone := time.Since(start)
		if alone < 500*time.Millisecond {
			if attempt == 0 {
				t.Skipf("the conversion took only %v here: too fast to tell a deadline from its end", alone)
			}
			why = append(why, fmt.Sprintf("the conversion alone took only %v", alone))
			continue
		}
		req.Timeout = int((alone / 3).Milliseconds())
		start = time.Now()
		_, err := s.Fetch(context.Background(), "", req)
		took := time.Since(start)
		running, _, _ := budget.Stats()
		switch {
		case err == nil:
			why = append(why, fmt.Sprintf("the conversion ended before the deadline of %v (alone %v)", alone/3, alone))
		case model.ErrorCode(err) != model.CodeTimeout:
			t.Fatalf("err = %v, want timeout", err)
		case took > alone*3/4:
			why = append(why, fmt.Sprintf("answered after %v; the deadline was %v and the conversion alone takes %v", took, alone/3, alone))
		case running != 1:
			why = append(why, fmt.Sprintf("%d conversions held the budget just after the timeout (deadline %v), want the abandoned one", running, alone/3))
		default:
			waitFor(t, func() bool { r, _, _ := budget.Stats(); return r == 0 }, 5*alone)
			return
		}
		waitFor(t, func() bool { r, _, _ := budget.Stats(); return r == 0 }, 5*alone)
	}
	t.Fatalf("no attempt answered timeout while its conversion went on: %s", strings.Join(why, "; "))
}
