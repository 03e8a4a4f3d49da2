// Package config reads the service configuration from the environment once,
// validates it, and hands it on explicitly (never a global).
package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"webacq/internal/fetch"
)

// Config is everything an operator can set.
type Config struct {
	DatabaseURL string // WEBACQ_DATABASE_URL: sqlite:PATH or postgres://… (default DefaultDatabaseURL)
	// DefaultDatabase says DatabaseURL is the default (no setting): the
	// local database, whose secret key the node keeps beside it.
	DefaultDatabase bool
	Addr            string // WEBACQ_ADDR
	BaseURL         string // WEBACQ_BASE_URL: public URL of the service
	CanonicalHost   string // WEBACQ_CANONICAL_HOST: other hosts answer 307 to it
	SecretKey       string // WEBACQ_SECRET_KEY: encrypts webhook secrets and Slack URLs at rest
	// Alert transports (DECISIONS.md, Alert channels); empty: that channel
	// is off. SMTPURL and SMSToken are credentials: never logged.
	SMTPURL    string // WEBACQ_SMTP_URL: smtp://user:pass@host:587 (STARTTLS), smtps://…:465, ?tls=none
	SMTPFrom   string // WEBACQ_SMTP_FROM: sender address of alert email
	SMSURL     string // WEBACQ_SMS_URL: base of a Twilio-compatible Messages API
	SMSAccount string // WEBACQ_SMS_ACCOUNT
	SMSToken   string // WEBACQ_SMS_TOKEN
	SMSFrom    string // WEBACQ_SMS_FROM: sending number
	// AlertMessagesPerHour caps a workspace's email and SMS alert messages
	// in any hour (WEBACQ_ALERT_MESSAGES_PER_HOUR, default 100; 0 is the default).
	AlertMessagesPerHour int
	// Discovery channels (DECISIONS.md, Monitors): edgar_8k is on when
	// SECUserAgent is set; a wire channel when its feed URL is.
	EdgarDataURL      string // WEBACQ_EDGAR_DATA_URL (default https://data.sec.gov)
	EdgarWWWURL       string // WEBACQ_EDGAR_WWW_URL (default https://www.sec.gov)
	SECUserAgent      string // WEBACQ_SEC_USER_AGENT: "Name contact@example.com"
	BusinessWireFeed  string // WEBACQ_BUSINESSWIRE_FEED_URL
	GlobeNewswireFeed string // WEBACQ_GLOBENEWSWIRE_FEED_URL
	AllowPrivate      bool   // WEBACQ_ALLOW_PRIVATE=1: fetches may reach loopback (tests, local development)
	Chromium          string // WEBACQ_CHROMIUM: browser binary
	LogLevel          string // WEBACQ_LOG_LEVEL: debug|info|warn|error
	LogFormat         string // WEBACQ_LOG_FORMAT: text|json
	AccessLog         bool   // WEBACQ_ACCESS_LOG: one log line per request (default on)
	DebugAddr         string // WEBACQ_DEBUG_ADDR: serve net/http/pprof here (off when empty)
	MetricsAddr       string // WEBACQ_METRICS_ADDR: serve Prometheus /metrics here (off when empty)
	// MCPAllowedOrigins (WEBACQ_MCP_ALLOWED_ORIGINS, comma-separated) are the
	// browser origins besides the service's own host that may call /api/mcp.
	MCPAllowedOrigins []string
	// AllowedHosts (WEBACQ_ALLOWED_HOSTS, comma-separated host names) are
	// the names besides those of BaseURL and CanonicalHost that a request's
	// Host may carry on /api/mcp (DNS-rebinding protection).
	AllowedHosts []string
	// MCPMaxTokens (WEBACQ_MCP_MAX_TOKENS) caps the text of one MCP tool
	// result when the call does not say (its maxTokens argument), in tokens
	// of 4 bytes; 0 is the default, 20,000.
	MCPMaxTokens int
	// AllowPrivateRanges (WEBACQ_ALLOW_PRIVATE_RANGES, comma-separated
	// CIDRs) are the private ranges fetches may reach, each within RFC 1918,
	// CGNAT, unique-local or loopback space. Cloud metadata addresses stay
	// refused inside them.
	AllowPrivateRanges []netip.Prefix
	// TrustedProxies (WEBACQ_TRUSTED_PROXIES, comma-separated CIDRs or
	// addresses) are the load balancers in front of the service: from
	// them, the console takes the client's address from X-Forwarded-For
	// for its per-address sign-in limit.
	TrustedProxies []netip.Prefix

	UserAgent string // WEBACQ_USER_AGENT: sent with every fetch

	SearchProvider string // WEBACQ_SEARCH_PROVIDER: local (default), searxng or brave
	SearXNGURL     string // WEBACQ_SEARXNG_URL
	BraveAPIKey    string // WEBACQ_BRAVE_API_KEY

	LLMProvider        string        // WEBACQ_LLM_PROVIDER: openai or anthropic (empty: extract off)
	LLMBaseURL         string        // WEBACQ_LLM_BASE_URL
	LLMAPIKey          string        // WEBACQ_LLM_API_KEY
	LLMModel           string        // WEBACQ_LLM_MODEL
	LLMContextTokens   int           // WEBACQ_LLM_CONTEXT_TOKENS
	LLMMaxOutputTokens int           // WEBACQ_LLM_MAX_OUTPUT_TOKENS
	LLMTimeout         time.Duration // WEBACQ_LLM_TIMEOUT

	CrawlWorkers  int           // WEBACQ_CRAWL_WORKERS: concurrent requests of one crawl
	CrawlPerHost  int           // WEBACQ_CRAWL_PER_HOST: concurrent requests per host
	CrawlDelay    time.Duration // WEBACQ_CRAWL_DELAY: pause between requests to one host
	PageRetention time.Duration // WEBACQ_PAGE_RETENTION: how long acquired pages are kept

	// MemoryBudget (WEBACQ_MEMORY_BUDGET, bytes or a size such as 1GiB,
	// 512MiB) is what one node may use: conversions share 40 % of it and
	// the Go runtime's soft memory limit is 60 % of it.
	MemoryBudget   int64
	ConvertWorkers int // WEBACQ_CONVERT_WORKERS: conversions at once (0: 4 per CPU)
	ConvertQueue   int // WEBACQ_CONVERT_QUEUE: conversions waiting before callers get rate_limited (0: 512)

	BootstrapCredits int64         // WEBACQ_BOOTSTRAP_CREDITS: credits of workspace "default"
	ShutdownTimeout  time.Duration // WEBACQ_SHUTDOWN_TIMEOUT
	// The API listener's bounds on a client: ReadHeaderTimeout
	// (WEBACQ_READ_HEADER_TIMEOUT, default 10s) to send a request's
	// head, ReadTimeout (WEBACQ_READ_TIMEOUT, default 60s) to send the
	// whole request, body included, IdleTimeout (WEBACQ_IDLE_TIMEOUT,
	// default 120s) for a kept-alive connection between requests. A
	// client that trickles its request, or holds connections open, is
	// cut off at them and costs the node nothing after.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// ReservationTTL (WEBACQ_RESERVATION_TTL) is how long credits held by a
	// call in flight stay held unrenewed before any node refunds them (a
	// crashed node). A live node renews its calls' holds every third of it,
	// so calls may outlast it; 0 keeps the default (15 minutes).
	ReservationTTL time.Duration

	// Background work (River jobs).
	JobWorkers        int           // WEBACQ_JOB_WORKERS: monitor checks at once on this node (default 50; 0 on serve: API only)
	JobRescueAfter    time.Duration // WEBACQ_JOB_RESCUE_AFTER: a job running this long is taken for dead and retried (default 5m)
	JobPollInterval   time.Duration // WEBACQ_JOB_POLL_INTERVAL: how often an idle node looks for due jobs (default 100ms)
	MonitorPerHost    int           // WEBACQ_MONITOR_PER_HOST: concurrent checks of one host per node (default 4)
	MonitorTimeout    time.Duration // WEBACQ_MONITOR_TIMEOUT: one check's fetch (default 60s)
	SnapshotRetention time.Duration // WEBACQ_SNAPSHOT_RETENTION: how long run snapshots and diffs are kept (default 2160h)
	// LogRetention (WEBACQ_LOG_RETENTION; 0, the default, keeps them all)
	// is how long activity rows, and usage rows that drew no credits, are
	// kept; usage rows that drew credits are the ledger and stay.
	LogRetention time.Duration
	// DeliveryRetryWait (WEBACQ_DELIVERY_RETRY_WAIT, tests only) replaces
	// every wait of the webhook retry schedule (30s, 2m, … 24h), so that
	// crash tests see retries within seconds; 0 keeps the schedule.
	DeliveryRetryWait time.Duration

	// MonitorWorkspaceShare (WEBACQ_MONITOR_WORKSPACE_SHARE, percent, 1–100,
	// default 50) is the part of this node's check workers, and of each
	// host's slots, guaranteed to one workspace's checks; past it, a
	// workspace borrows only idle ones no other workspace waits for.
	MonitorWorkspaceShare int
	// CheckNowInterval (WEBACQ_CHECK_NOW_INTERVAL, default 1m; 0s turns the
	// limit off, for tests) is the least time between two check-nows of one
	// monitor.
	CheckNowInterval time.Duration
}

// MinReservationTTL is the shortest WEBACQ_RESERVATION_TTL: holds are
// renewed every third of it, and a shorter one would turn renewals into a
// stream of writes that a busy database could not keep up with.
const MinReservationTTL = time.Second

// Defaults of DECISIONS.md.
const (
	DefaultAddr = "127.0.0.1:8080"
)

// DefaultDatabaseURL is the database of a node or command run without
// WEBACQ_DATABASE_URL: a SQLite file in the user's data directory
// ($XDG_DATA_HOME/webacq, else ~/.local/share/webacq), so that `make run`
// and every command find the same database whatever directory they are
// started in (issue 22). Without a home directory, ./data/webacq.db.
func DefaultDatabaseURL(getenv func(string) string) string {
	if d := strings.TrimSpace(getenv("XDG_DATA_HOME")); filepath.IsAbs(d) {
		return "sqlite:" + filepath.Join(d, "webacq", "webacq.db")
	}
	if h := strings.TrimSpace(getenv("HOME")); filepath.IsAbs(h) {
		return "sqlite:" + filepath.Join(h, ".local", "share", "webacq", "webacq.db")
	}
	return "sqlite:" + filepath.Join("data", "webacq.db")
}

// Load reads the configuration through getenv (os.Getenv in production).
func Load(getenv func(string) string) (*Config, error) {
	get := func(k, def string) string {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
		return def
	}
	c := &Config{
		DefaultDatabase:   strings.TrimSpace(getenv("WEBACQ_DATABASE_URL")) == "",
		DatabaseURL:       get("WEBACQ_DATABASE_URL", DefaultDatabaseURL(getenv)),
		Addr:              get("WEBACQ_ADDR", DefaultAddr),
		BaseURL:           strings.TrimRight(get("WEBACQ_BASE_URL", ""), "/"),
		CanonicalHost:     get("WEBACQ_CANONICAL_HOST", ""),
		SecretKey:         get("WEBACQ_SECRET_KEY", ""),
		SMTPURL:           get("WEBACQ_SMTP_URL", ""),
		SMTPFrom:          get("WEBACQ_SMTP_FROM", ""),
		SMSURL:            get("WEBACQ_SMS_URL", ""),
		SMSAccount:        get("WEBACQ_SMS_ACCOUNT", ""),
		SMSToken:          get("WEBACQ_SMS_TOKEN", ""),
		SMSFrom:           get("WEBACQ_SMS_FROM", ""),
		EdgarDataURL:      get("WEBACQ_EDGAR_DATA_URL", "https://data.sec.gov"),
		EdgarWWWURL:       get("WEBACQ_EDGAR_WWW_URL", "https://www.sec.gov"),
		SECUserAgent:      get("WEBACQ_SEC_USER_AGENT", ""),
		BusinessWireFeed:  get("WEBACQ_BUSINESSWIRE_FEED_URL", ""),
		GlobeNewswireFeed: get("WEBACQ_GLOBENEWSWIRE_FEED_URL", ""),
		Chromium:          get("WEBACQ_CHROMIUM", "chromium"),
		LogLevel:          get("WEBACQ_LOG_LEVEL", "info"),
		LogFormat:         get("WEBACQ_LOG_FORMAT", "text"),
		UserAgent:         get("WEBACQ_USER_AGENT", ""),
		DebugAddr:         get("WEBACQ_DEBUG_ADDR", ""),
		MetricsAddr:       get("WEBACQ_METRICS_ADDR", ""),

		SearchProvider: get("WEBACQ_SEARCH_PROVIDER", "local"),
		SearXNGURL:     get("WEBACQ_SEARXNG_URL", ""),
		BraveAPIKey:    get("WEBACQ_BRAVE_API_KEY", ""),
		LLMProvider:    get("WEBACQ_LLM_PROVIDER", ""),
		LLMBaseURL:     get("WEBACQ_LLM_BASE_URL", ""),
		LLMAPIKey:      get("WEBACQ_LLM_API_KEY", ""),
		LLMModel:       get("WEBACQ_LLM_MODEL", ""),
	}
	for _, o := range strings.Split(get("WEBACQ_MCP_ALLOWED_ORIGINS", ""), ",") {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" {
			c.MCPAllowedOrigins = append(c.MCPAllowedOrigins, o)
		}
	}
	for _, h := range strings.Split(get("WEBACQ_ALLOWED_HOSTS", ""), ",") {
		if h = strings.TrimSpace(h); strings.ContainsAny(h, "/ ") {
			return nil, fmt.Errorf("config: WEBACQ_ALLOWED_HOSTS %q: want host names such as api.example.com, not URLs", h)
		} else if h != "" {
			c.AllowedHosts = append(c.AllowedHosts, h)
		}
	}
	var err error
	if c.AllowPrivate, err = parseBool(get("WEBACQ_ALLOW_PRIVATE", "0")); err != nil {
		return nil, fmt.Errorf("config: WEBACQ_ALLOW_PRIVATE: %w", err)
	}
	if c.AllowPrivateRanges, err = parseRanges(get("WEBACQ_ALLOW_PRIVATE_RANGES", "")); err != nil {
		return nil, fmt.Errorf("config: WEBACQ_ALLOW_PRIVATE_RANGES: %w", err)
	}
	if c.TrustedProxies, err = parsePrefixes(get("WEBACQ_TRUSTED_PROXIES", "")); err != nil {
		return nil, fmt.Errorf("config: WEBACQ_TRUSTED_PROXIES: %w", err)
	}
	if c.AccessLog, err = parseBool(get("WEBACQ_ACCESS_LOG", "1")); err != nil {
		return nil, fmt.Errorf("config: WEBACQ_ACCESS_LOG: %w", err)
	}
	if c.BootstrapCredits, err = strconv.ParseInt(get("WEBACQ_BOOTSTRAP_CREDITS", "10000"), 10, 64); err != nil || c.BootstrapCredits < 0 {
		return nil, fmt.Errorf("config: WEBACQ_BOOTSTRAP_CREDITS must be a non-negative integer")
	}
	if c.PageRetention, err = time.ParseDuration(get("WEBACQ_PAGE_RETENTION", "720h")); err != nil || c.PageRetention <= 0 {
		return nil, fmt.Errorf("config: WEBACQ_PAGE_RETENTION must be a positive duration such as 720h")
	}
	c.JobWorkers, c.MonitorPerHost, c.AlertMessagesPerHour = 50, 4, 100
	c.MonitorWorkspaceShare, c.CheckNowInterval = 50, time.Minute
	c.JobRescueAfter, c.JobPollInterval, c.MonitorTimeout, c.SnapshotRetention = 5*time.Minute, 100*time.Millisecond,
		60*time.Second, 90*24*time.Hour
	c.ReadHeaderTimeout, c.ReadTimeout, c.IdleTimeout = 10*time.Second, 60*time.Second, 120*time.Second
	ints := []struct {
		name string
		dst  *int
	}{
		{"WEBACQ_LLM_CONTEXT_TOKENS", &c.LLMContextTokens}, {"WEBACQ_LLM_MAX_OUTPUT_TOKENS", &c.LLMMaxOutputTokens},
		{"WEBACQ_CRAWL_WORKERS", &c.CrawlWorkers}, {"WEBACQ_CRAWL_PER_HOST", &c.CrawlPerHost},
		{"WEBACQ_MCP_MAX_TOKENS", &c.MCPMaxTokens},
		{"WEBACQ_CONVERT_WORKERS", &c.ConvertWorkers}, {"WEBACQ_CONVERT_QUEUE", &c.ConvertQueue},
		{"WEBACQ_JOB_WORKERS", &c.JobWorkers}, {"WEBACQ_MONITOR_PER_HOST", &c.MonitorPerHost},
		{"WEBACQ_ALERT_MESSAGES_PER_HOUR", &c.AlertMessagesPerHour},
		{"WEBACQ_MONITOR_WORKSPACE_SHARE", &c.MonitorWorkspaceShare},
	}
	for _, f := range ints {
		if v := get(f.name, ""); v != "" {
			if *f.dst, err = strconv.Atoi(v); err != nil || *f.dst < 0 {
				return nil, fmt.Errorf("config: %s must be a non-negative integer", f.name)
			}
		}
	}
	if get("WEBACQ_MCP_MAX_RESULT_CHARS", "") != "" {
		return nil, fmt.Errorf("config: WEBACQ_MCP_MAX_RESULT_CHARS was replaced by WEBACQ_MCP_MAX_TOKENS (tokens of 4 bytes, default 20000)")
	}
	if n := c.MCPMaxTokens; n != 0 && (n < 1000 || n > 100_000) {
		return nil, fmt.Errorf("config: WEBACQ_MCP_MAX_TOKENS must be between 1000 and 100000")
	}
	durations := []struct {
		name string
		dst  *time.Duration
	}{{"WEBACQ_LLM_TIMEOUT", &c.LLMTimeout}, {"WEBACQ_CRAWL_DELAY", &c.CrawlDelay}, {"WEBACQ_RESERVATION_TTL", &c.ReservationTTL},
		{"WEBACQ_JOB_RESCUE_AFTER", &c.JobRescueAfter}, {"WEBACQ_JOB_POLL_INTERVAL", &c.JobPollInterval},
		{"WEBACQ_MONITOR_TIMEOUT", &c.MonitorTimeout}, {"WEBACQ_SNAPSHOT_RETENTION", &c.SnapshotRetention},
		{"WEBACQ_DELIVERY_RETRY_WAIT", &c.DeliveryRetryWait}, {"WEBACQ_CHECK_NOW_INTERVAL", &c.CheckNowInterval},
		{"WEBACQ_LOG_RETENTION", &c.LogRetention}, {"WEBACQ_READ_HEADER_TIMEOUT", &c.ReadHeaderTimeout},
		{"WEBACQ_READ_TIMEOUT", &c.ReadTimeout}, {"WEBACQ_IDLE_TIMEOUT", &c.IdleTimeout}}
	for _, f := range durations {
		if v := get(f.name, ""); v != "" {
			if *f.dst, err = time.ParseDuration(v); err != nil || *f.dst < 0 {
				return nil, fmt.Errorf("config: %s must be a duration such as 30s", f.name)
			}
		}
	}
	if c.MemoryBudget, err = parseSize(get("WEBACQ_MEMORY_BUDGET", "1GiB")); err != nil || c.MemoryBudget < 64<<20 {
		return nil, fmt.Errorf("config: WEBACQ_MEMORY_BUDGET must be a size of at least 64MiB, such as 1GiB or 512MiB")
	}
	if c.ShutdownTimeout, err = time.ParseDuration(get("WEBACQ_SHUTDOWN_TIMEOUT", "30s")); err != nil {
		return nil, fmt.Errorf("config: WEBACQ_SHUTDOWN_TIMEOUT: %w", err)
	}
	return c, c.validate()
}

func (c *Config) validate() error {
	if !strings.HasPrefix(c.DatabaseURL, "sqlite:") && !strings.HasPrefix(c.DatabaseURL, "postgres://") &&
		!strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return fmt.Errorf("config: WEBACQ_DATABASE_URL must be sqlite:PATH or postgres://…")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("config: WEBACQ_ADDR %q: want host:port", c.Addr)
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("config: WEBACQ_BASE_URL %q: want an absolute http(s) URL", c.BaseURL)
		}
	}
	if c.MonitorPerHost < 1 {
		return fmt.Errorf("config: WEBACQ_MONITOR_PER_HOST must be at least 1")
	}
	if c.MonitorWorkspaceShare < 1 || c.MonitorWorkspaceShare > 100 {
		return fmt.Errorf("config: WEBACQ_MONITOR_WORKSPACE_SHARE must be a percentage from 1 to 100")
	}
	if c.JobRescueAfter < 10*time.Second || c.JobPollInterval < time.Millisecond || c.MonitorTimeout < time.Second ||
		c.SnapshotRetention < time.Hour {
		return fmt.Errorf("config: WEBACQ_JOB_RESCUE_AFTER (≥10s), WEBACQ_JOB_POLL_INTERVAL (≥1ms), " +
			"WEBACQ_MONITOR_TIMEOUT (≥1s) and WEBACQ_SNAPSHOT_RETENTION (≥1h) are out of range")
	}
	if c.LogRetention != 0 && c.LogRetention < 24*time.Hour {
		return fmt.Errorf("config: WEBACQ_LOG_RETENTION %s: 0 keeps the logs, or at least 24h", c.LogRetention)
	}
	if c.ReadHeaderTimeout < 100*time.Millisecond || c.ReadTimeout < c.ReadHeaderTimeout || c.IdleTimeout < 100*time.Millisecond {
		// 0 would mean no bound at all in net/http: one client could
		// hold a connection open for ever.
		return fmt.Errorf("config: WEBACQ_READ_HEADER_TIMEOUT and WEBACQ_IDLE_TIMEOUT must be at least 100ms, " +
			"and WEBACQ_READ_TIMEOUT at least WEBACQ_READ_HEADER_TIMEOUT")
	}
	if c.ReservationTTL != 0 && c.ReservationTTL < MinReservationTTL {
		return fmt.Errorf("config: WEBACQ_RESERVATION_TTL %s: must be at least %s", c.ReservationTTL, MinReservationTTL)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("config: WEBACQ_LOG_LEVEL %q: want debug, info, warn or error", c.LogLevel)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		return fmt.Errorf("config: WEBACQ_LOG_FORMAT %q: want text or json", c.LogFormat)
	}
	return nil
}

// Scheme is the public scheme of the service: that of BaseURL, else http.
func (c *Config) Scheme() string {
	if u, err := url.Parse(c.BaseURL); err == nil && u.Scheme != "" {
		return u.Scheme
	}
	return "http"
}

// parseRanges reads comma-separated CIDRs (a bare address is a range of
// one) and refuses any that reaches beyond private space, so that a typo
// cannot open the public internet's reserved corners or a metadata range.
func parseRanges(s string) ([]netip.Prefix, error) {
	ps, err := parsePrefixes(s)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if !fetch.IsPrivateRange(p) {
			return nil, fmt.Errorf("%s is not a private range: each must lie within 10.0.0.0/8, 172.16.0.0/12, "+
				"192.168.0.0/16, 100.64.0.0/10, 127.0.0.0/8, fc00::/7 or ::1", p)
		}
	}
	return ps, nil
}

// parsePrefixes reads comma-separated CIDRs; a bare address is a range of one.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not a CIDR range such as 10.0.0.0/8 or an address", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// parseSize reads a byte count: a plain integer, or one with a binary unit
// (KiB, MiB, GiB) or a decimal one (KB, MB, GB).
func parseSize(v string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q", v)
	}
	return n * mult, nil
}
