package httpapi_test

import (
	"net/http"
	"testing"

	"webacq/internal/store"
)

// Two Authorization headers naming different keys are refused (as on the
// MCP endpoint), whichever of them is valid; the same header twice is fine.
func TestConflictingAuthorizationHeaders(t *testing.T) {
	e := newEnv(t, store.SQLite)
	other, _, err := e.store.CreateKey(ctx, e.ws.ID, "other")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		keys []string
		want int
	}{
		{[]string{e.key, e.key}, 200},
		{[]string{e.key, other}, 401},
		{[]string{e.key, "mc_nope"}, 401},
	} {
		req, _ := http.NewRequest("GET", e.url+"/api/v1/health", nil)
		for _, k := range c.keys {
			req.Header.Add("Authorization", "Bearer "+k)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Authorization %q: %d, want %d", c.keys, res.StatusCode, c.want)
		}
	}
}
