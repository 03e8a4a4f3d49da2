package primitive

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Bounds of the Retry-After passed on from a site that answered 429. The
// service's rate_limited always carries one (DECISIONS.md); a site that
// names none, or an unreadable one, gets the default, and a site's wait is
// kept within reason so that one site cannot park a caller for days.
const (
	defaultSiteRetryAfter = time.Minute
	minSiteRetryAfter     = time.Second
	maxSiteRetryAfter     = time.Hour
)

// siteRetryAfter is the wait to pass on for a page with status answered
// at now with the Retry-After header value h: zero unless the status is
// 429. h is delay-seconds or an HTTP date (RFC 9110, section 10.2.3).
func siteRetryAfter(status int, h string, now time.Time) time.Duration {
	if status != http.StatusTooManyRequests {
		return 0
	}
	h = strings.TrimSpace(h)
	d := defaultSiteRetryAfter
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		// Compared as seconds: a Duration of a huge count would overflow.
		d = time.Duration(min(max(secs, 0), int64(maxSiteRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, minSiteRetryAfter), maxSiteRetryAfter)
}
