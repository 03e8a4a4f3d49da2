package mcp_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"webacq/internal/store"
)

// A tools/call of a primitive counts as that primitive against the
// workspace's requests per minute; past it the tool answers the
// rate_limited error result (DECISIONS, Rate limits).
func TestToolCallsAreRateLimited(t *testing.T) {
	e := newEnv(t, store.SQLite)
	rpm := 2
	if err := e.store.SetRateLimits(ctx, e.ws.ID, &rpm, nil); err != nil {
		t.Fatal(err)
	}
	// The count is per minute: keep the three calls in one.
	if now := time.Now(); now.Second() >= 50 {
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute).Sub(now))
	}
	args := map[string]any{"url": "http://127.0.0.1:1/nothing-listens-here", "tier": "http"}
	for i := range 2 {
		if text, _ := e.callTool("svc_fetch", args); strings.HasPrefix(text, "rate_limited") {
			t.Fatalf("call %d of 2 at 2 rpm was limited: %s", i+1, text)
		}
	}
	text, isError := e.callTool("svc_fetch", args)
	if !isError || !regexp.MustCompile(`^rate_limited: .*retry after \d+ s$`).MatchString(text) {
		t.Fatalf("third call at 2 rpm: isError %v, %q", isError, text)
	}
}
