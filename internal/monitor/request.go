package monitor

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/cascadia"

	"webacq/internal/model"
	"webacq/internal/primitive"
)

// Registration limits (spec 4.3 and 8; the rest are ours, documented in
// docs/MONITORS.md).
const (
	MinIntervalHours     = 1
	MaxIntervalHours     = 168
	DefaultIntervalHours = 24
	maxURLLen            = 2048
	maxLabelLen          = 200
	maxKeywords          = 50
	maxKeywordLen        = 100
	maxIntentLen         = 4000
	maxSelectors         = 20
	maxSelectorLen       = 500
	maxCompanyField      = 200
)

// RegisterRequest is the body of POST /api/v1/monitor/register.
type RegisterRequest struct {
	URL                string          `json:"url"`
	Label              *string         `json:"label"`
	Channels           []string        `json:"channels"`
	CheckIntervalHours *int            `json:"check_interval_hours"`
	DiscoveryKeywords  []string        `json:"discovery_keywords"`
	ExtractIntent      *string         `json:"extract_intent"`
	AcceptSelectors    []string        `json:"accept_selectors"`
	Company            *model.Company  `json:"company"`
	Alerts             json.RawMessage `json:"alerts"`
}

// PatchRequest is the body of PATCH /api/v1/monitor/:id: absent or null
// fields stay as they are; url and extract_intent cannot change.
type PatchRequest struct {
	Label              *string         `json:"label"`
	Channels           []string        `json:"channels"`
	CheckIntervalHours *int            `json:"check_interval_hours"`
	DiscoveryKeywords  []string        `json:"discovery_keywords"`
	AcceptSelectors    []string        `json:"accept_selectors"`
	Alerts             json.RawMessage `json:"alerts"`
	URL                json.RawMessage `json:"url"`
	ExtractIntent      json.RawMessage `json:"extract_intent"`
}

func badf(format string, args ...any) error {
	return model.Errorf(model.CodeBadRequest, format, args...)
}

// validateURL checks the monitored URL's form; the SSRF guard runs after.
func validateURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, badf("url is required")
	}
	if len(raw) > maxURLLen {
		return nil, badf("url is longer than %d characters", maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return nil, badf("url must be an absolute http(s) URL")
	}
	if u.User != nil {
		return nil, badf("url must not carry a user name or password")
	}
	return u, nil
}

// monitoredURL is the URL a registration watches, in the form it is
// stored and compared in: it passes the SSRF guard (numeric IPv4 spellings
// such as 2130706433 become dotted quads), then the page store's cleaning
// (scheme and host case, default port, fragment, dot segments, escapes of
// unreserved characters), so one page is one monitor however it is
// spelled. Names that are loopback by definition (localhost and
// *.localhost, RFC 6761) answer as the loopback address would: refused
// with the guard's error unless the node allows loopback.
func (s *Service) monitoredURL(raw string) (*url.URL, error) {
	u, err := validateURL(raw)
	if err != nil {
		return nil, err
	}
	if u, err = s.HTTP.CheckURL(u.String()); err != nil {
		return nil, err
	}
	if host := strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")); host == "localhost" || strings.HasSuffix(host, ".localhost") {
		loop := &url.URL{Scheme: u.Scheme, Host: "127.0.0.1", Path: "/"}
		if p := u.Port(); p != "" {
			loop.Host += ":" + p
		}
		if _, err := s.HTTP.CheckURL(loop.String()); err != nil {
			return nil, err
		}
	}
	clean, err := primitive.CleanURL(u.String())
	if err != nil {
		return nil, badf("url must be an absolute http(s) URL")
	}
	return url.Parse(clean)
}

func validateLabel(s string) (string, error) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxLabelLen {
		return "", badf("label is longer than %d characters", maxLabelLen)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", badf("label must not contain control characters")
	}
	return s, nil
}

func validateChannels(cs []string) ([]string, error) {
	if cs == nil {
		return []string{model.ChannelIRPage}, nil
	}
	if len(cs) == 0 {
		return nil, badf("channels must name at least one of: %s", strings.Join(model.Channels, ", "))
	}
	var out []string
	for _, c := range cs {
		if !slices.Contains(model.Channels, c) {
			return nil, badf("channels: unknown channel %q; allowed: %s", c, strings.Join(model.Channels, ", "))
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func validateInterval(h *int) (int, error) {
	if h == nil {
		return DefaultIntervalHours, nil
	}
	if *h < MinIntervalHours || *h > MaxIntervalHours {
		return 0, badf("check_interval_hours must be an integer from %d to %d", MinIntervalHours, MaxIntervalHours)
	}
	return *h, nil
}

func validateKeywords(ks []string) ([]string, error) {
	if len(ks) > maxKeywords {
		return nil, badf("discovery_keywords holds more than %d keywords", maxKeywords)
	}
	out := []string{}
	for i, k := range ks {
		k = strings.Join(strings.Fields(k), " ")
		if k == "" {
			return nil, badf("discovery_keywords[%d] is empty", i)
		}
		if utf8.RuneCountInString(k) > maxKeywordLen {
			return nil, badf("discovery_keywords[%d] is longer than %d characters", i, maxKeywordLen)
		}
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, k) }) {
			out = append(out, k)
		}
	}
	return out, nil
}

func validateIntent(s *string) (string, error) {
	if s == nil {
		return "", nil
	}
	v := strings.TrimSpace(*s)
	if utf8.RuneCountInString(v) > maxIntentLen {
		return "", badf("extract_intent is longer than %d characters", maxIntentLen)
	}
	return v, nil
}

func validateSelectors(ss []string) ([]string, error) {
	if len(ss) > maxSelectors {
		return nil, badf("accept_selectors holds more than %d selectors", maxSelectors)
	}
	out := []string{}
	for i, s := range ss {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, badf("accept_selectors[%d] is empty", i)
		}
		if len(s) > maxSelectorLen {
			return nil, badf("accept_selectors[%d] is longer than %d characters", i, maxSelectorLen)
		}
		if _, err := cascadia.Compile(s); err != nil {
			return nil, badf("accept_selectors[%d] is not a valid CSS selector: %s", i, s)
		}
		out = append(out, s)
	}
	return out, nil
}

func validateCompany(c *model.Company) (*model.Company, error) {
	if c == nil {
		return nil, nil
	}
	out := &model.Company{CIK: strings.TrimSpace(c.CIK), Ticker: strings.ToUpper(strings.TrimSpace(c.Ticker)),
		Name: strings.TrimSpace(c.Name)}
	for name, v := range map[string]string{"cik": out.CIK, "ticker": out.Ticker, "name": out.Name} {
		if len(v) > maxCompanyField {
			return nil, badf("company.%s is longer than %d characters", name, maxCompanyField)
		}
	}
	if out.CIK != "" && strings.Trim(out.CIK, "0123456789") != "" {
		return nil, badf("company.cik must be digits")
	}
	if *out == (model.Company{}) {
		return nil, nil
	}
	return out, nil
}

// immutable refuses a PATCH of a field fixed at registration.
func immutable(name string, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return badf("%s cannot change: delete the monitor and register it again", name)
}
