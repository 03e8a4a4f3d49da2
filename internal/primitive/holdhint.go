package primitive

import (
	"fmt"

	"webacq/internal/billing"
)

// Hold hints: what a call's reservation was for and how to hold less,
// for the credits_exhausted answer (issue 22: a 402 that teaches). Each
// reads a normalised request; "" when there is no cheaper way to ask.

// autoHoldsBrowser says the tier "auto" holds the browser's price.
func autoHoldsBrowser(tier string, browser bool) bool { return tier == TierAuto && browser }

// HoldHint explains a fetch's hold.
func (r *FetchRequest) HoldHint(browser bool) string {
	switch {
	case autoHoldsBrowser(r.Tier, browser):
		return fmt.Sprintf(`this fetch holds %d credits, the browser tier's price, because "tier": "auto" may need the browser `+
			`(it keeps %d when plain HTTP does); send "tier": "http" to hold %d`, billing.FetchBrowser, billing.FetchHTTP, billing.FetchHTTP)
	case r.Tier == TierBrowser:
		return fmt.Sprintf(`"tier": "browser" holds %d credits; "tier": "http" holds %d`, billing.FetchBrowser, billing.FetchHTTP)
	}
	return ""
}

// HoldHint explains a crawl's hold.
func (r *GyreRequest) HoldHint(browser bool) string {
	page := r.pageCost(browser)
	hold := r.MaxCost(browser)
	var s string
	if r.MaxCredits != nil && hold == int64(*r.MaxCredits) {
		s = fmt.Sprintf(`this crawl holds its "maxCredits", %d, and keeps only what its pages cost; lower "maxCredits" (the crawl stops there)`, hold)
	} else {
		s = fmt.Sprintf(`this crawl holds %d credits ("maxPages" %d × %d, the most a page may cost) and keeps only what its pages cost; `+
			`set "maxCredits" to what you can spend (the crawl stops there) or lower "maxPages"`, hold, *r.MaxPages, page)
	}
	if autoHoldsBrowser(r.Tier, browser) || r.Tier == TierBrowser {
		s += fmt.Sprintf(`, or send "tier": "http" (%d a page instead of %d)`, billing.FetchHTTP, billing.FetchBrowser)
	}
	return s
}

// HoldHint explains a search's hold.
func (r *SearchRequest) HoldHint(browser bool) string {
	if !r.Fetch {
		return ""
	}
	limit := SearchDefaultLimit
	if r.Limit != nil {
		limit = *r.Limit
	}
	fr := r.subFetch("")
	if fr.Tier == "" {
		fr.Tier = TierAuto
	}
	return fmt.Sprintf(`this search holds %d credits: %d for the search and %d for each of the %d result pages it fetches ("limit"); `+
		`send "fetch": false (%d credit), lower "limit" or set "maxCredits"`,
		r.MaxCost(browser), billing.SearchBase, fr.MaxCost(browser), limit, billing.SearchBase)
}

// HoldHint explains an extraction's hold.
func (r *ExtractRequest) HoldHint(browser bool) string {
	if autoHoldsBrowser(r.Tier, browser) || r.Tier == TierBrowser {
		return fmt.Sprintf(`this extraction holds %d credits, its price when the page needs the browser; send "tier": "http" to hold %d`,
			billing.ExtractBrowser, billing.ExtractHTTP)
	}
	return ""
}
