package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"webacq/internal/model"
)

// TestExtractHostileAnswers: the model's server is the operator's, but
// what the model writes follows the page, a stranger's. An answer over
// maxResponseBytes, JSON nested 100,000 deep (in the model's content or
// as the whole answer) and an answer that trickles forever each end the
// extraction with a coded error that says what happened, within the
// call's timeout.
func TestExtractHostileAnswers(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, tt := range []struct {
		name, body, msgHas string
	}{
		{"over the size limit", chatAnswer(strings.Repeat("x", maxResponseBytes)), "answered more than 8 MB"},
		{"JSON 100,000 deep in the content", chatAnswer(deep), "did not return valid JSON"},
		{"JSON 100,000 deep as the answer", deep, "something other than a chat completion"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, func(i int, c call) (int, string) { return 200, tt.body })
			c := newOpenAI(t, f, func(cfg *Config) { cfg.Timeout = 20 * time.Second })
			_, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema})
			if code := model.ErrorCode(err); code != model.CodeUnavailable || !strings.Contains(model.ErrorMessage(err), tt.msgHas) {
				t.Errorf("got %s %q, want unavailable saying %q", code, model.ErrorMessage(err), tt.msgHas)
			}
			if n := len(f.recorded()); n > 2 {
				t.Errorf("%d calls, want at most the call and one repair", n)
			}
		})
	}
	t.Run("trickled", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.Write([]byte(`{"choices":[{"message":{"content":"`))
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for range 6000 { // a minute at most
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
				}
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
			}
		}))
		defer srv.Close()
		c, err := New(Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "m", Timeout: 500 * time.Millisecond}, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices", Schema: widgetSchema})
		if model.ErrorCode(err) != model.CodeTimeout {
			t.Errorf("got %v, want timeout", err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("the trickled answer held the extraction %v, want about the 500 ms timeout", d)
		}
	})
}
