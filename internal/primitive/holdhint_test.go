package primitive

import (
	"strings"
	"testing"
)

// Each hint names the field that holds less, and only when there is one.
func TestHoldHints(t *testing.T) {
	pages, credits, limit := 30, 12, 3
	for _, tt := range []struct {
		name    string
		hint    string
		want    []string
		wantNot []string
	}{
		{"fetch auto with a browser", (&FetchRequest{Tier: TierAuto}).HoldHint(true), []string{"holds 3", `"tier": "http" to hold 1`}, nil},
		{"fetch auto without a browser", (&FetchRequest{Tier: TierAuto}).HoldHint(false), nil, []string{"tier"}},
		{"fetch http", (&FetchRequest{Tier: TierHTTP}).HoldHint(true), nil, []string{"tier"}},
		{"gyre", (&GyreRequest{Tier: TierAuto, MaxPages: &pages}).HoldHint(true),
			[]string{"holds 90", `"maxPages" 30 × 3`, `"maxCredits"`, `"tier": "http" (1 a page instead of 3)`}, nil},
		{"gyre http", (&GyreRequest{Tier: TierHTTP, MaxPages: &pages}).HoldHint(true), []string{"holds 30", `"maxCredits"`}, []string{"tier"}},
		{"gyre capped", (&GyreRequest{Tier: TierHTTP, MaxPages: &pages, MaxCredits: &credits}).HoldHint(false),
			[]string{`holds its "maxCredits", 12`}, nil},
		{"search with pages", (&SearchRequest{Fetch: true, Limit: &limit}).HoldHint(false), []string{`"fetch": false`, `"limit"`}, nil},
		{"search", (&SearchRequest{}).HoldHint(true), nil, []string{"fetch"}},
		{"extract auto with a browser", (&ExtractRequest{Tier: TierAuto}).HoldHint(true), []string{`"tier": "http" to hold 5`}, nil},
	} {
		if len(tt.want) == 0 && tt.hint != "" {
			t.Errorf("%s: hint %q, want none", tt.name, tt.hint)
		}
		for _, w := range tt.want {
			if !strings.Contains(tt.hint, w) {
				t.Errorf("%s: hint %q does not say %q", tt.name, tt.hint, w)
			}
		}
		for _, w := range tt.wantNot {
			if strings.Contains(tt.hint, w) {
				t.Errorf("%s: hint %q says %q", tt.name, tt.hint, w)
			}
		}
	}
}
