package config

import (
	"strings"
	"testing"
	"time"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	c, err := Load(env())
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != "sqlite:data/webacq.db" || !c.DefaultDatabase || c.Addr != "127.0.0.1:8080" || c.AllowPrivate || !c.AccessLog ||
		c.BootstrapCredits != 10000 || c.PageRetention != 720*time.Hour || c.LogRetention != 0 || c.SearchProvider != "local" || c.LLMProvider != "" ||
		c.ReadHeaderTimeout != 10*time.Second || c.ReadTimeout != time.Minute || c.IdleTimeout != 2*time.Minute {
		t.Fatalf("defaults: %+v", c)
	}
}

// The default database is in the user's data directory, wherever a
// command starts (issue 22).
func TestDefaultDatabaseLocation(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME", "/home/ann"}, "sqlite:/home/ann/.local/share/webacq/webacq.db"},
		{[]string{"HOME", "/home/ann", "XDG_DATA_HOME", "/data/ann"}, "sqlite:/data/ann/webacq/webacq.db"},
		{[]string{"HOME", "/home/ann", "XDG_DATA_HOME", "relative"}, "sqlite:/home/ann/.local/share/webacq/webacq.db"},
		{[]string{"HOME", "/home/ann", "WEBACQ_DATABASE_URL", "sqlite:/srv/w.db"}, "sqlite:/srv/w.db"},
	} {
		c, err := Load(env(tt.env...))
		if err != nil {
			t.Fatal(err)
		}
		if c.DatabaseURL != tt.want || c.DefaultDatabase == (len(tt.env) == 4 && tt.env[2] == "WEBACQ_DATABASE_URL") {
			t.Errorf("%v: %s (default %t), want %s", tt.env, c.DatabaseURL, c.DefaultDatabase, tt.want)
		}
	}
}

func TestValues(t *testing.T) {
	c, err := Load(env("WEBACQ_ALLOW_PRIVATE", "1", "WEBACQ_DATABASE_URL", "postgres://u@h/db",
		"WEBACQ_MCP_ALLOWED_ORIGINS", "https://a.example/, https://b.example", "WEBACQ_CRAWL_DELAY", "250ms",
		"WEBACQ_BASE_URL", "https://www.example.com/", "WEBACQ_CRAWL_PER_HOST", "2", "WEBACQ_LOG_RETENTION", "8760h",
		"WEBACQ_READ_HEADER_TIMEOUT", "2s", "WEBACQ_READ_TIMEOUT", "5s", "WEBACQ_IDLE_TIMEOUT", "300ms"))
	if err != nil {
		t.Fatal(err)
	}
	if c.ReadHeaderTimeout != 2*time.Second || c.ReadTimeout != 5*time.Second || c.IdleTimeout != 300*time.Millisecond {
		t.Fatalf("client timeouts: %s %s %s", c.ReadHeaderTimeout, c.ReadTimeout, c.IdleTimeout)
	}
	if !c.AllowPrivate || c.CrawlDelay != 250*time.Millisecond || c.LogRetention != 8760*time.Hour || c.CrawlPerHost != 2 || c.Scheme() != "https" ||
		len(c.MCPAllowedOrigins) != 2 || c.MCPAllowedOrigins[0] != "https://a.example" || c.BaseURL != "https://www.example.com" {
		t.Fatalf("values: %+v", c)
	}
}

func TestInvalid(t *testing.T) {
	for _, kv := range [][]string{
		{"WEBACQ_DATABASE_URL", "mysql://x"},
		{"WEBACQ_ADDR", "8080"},
		{"WEBACQ_BASE_URL", "ftp://x"},
		{"WEBACQ_ALLOW_PRIVATE", "maybe"},
		{"WEBACQ_LOG_LEVEL", "loud"},
		{"WEBACQ_LOG_FORMAT", "xml"},
		{"WEBACQ_BOOTSTRAP_CREDITS", "-1"},
		{"WEBACQ_PAGE_RETENTION", "forever"},
		{"WEBACQ_CRAWL_WORKERS", "many"},
		{"WEBACQ_LLM_TIMEOUT", "soon"},
		{"WEBACQ_SHUTDOWN_TIMEOUT", "x"},
		{"WEBACQ_LOG_RETENTION", "1h"},
		{"WEBACQ_LOG_RETENTION", "-24h"},
		{"WEBACQ_READ_HEADER_TIMEOUT", "0s"}, // no bound at all in net/http
		{"WEBACQ_IDLE_TIMEOUT", "0s"},
		{"WEBACQ_READ_TIMEOUT", "5s"}, // under the head's 10s
		{"WEBACQ_READ_TIMEOUT", "0s"},
		{"WEBACQ_READ_HEADER_TIMEOUT", "soon"},
	} {
		if _, err := Load(env(kv...)); err == nil || !strings.Contains(err.Error(), "config:") {
			t.Errorf("%s=%s: got %v, want a config error", kv[0], kv[1], err)
		}
	}
}

func TestTrustedProxies(t *testing.T) {
	c, err := Load(env("WEBACQ_TRUSTED_PROXIES", "10.0.0.0/8, 203.0.113.7 ,fd00::/8"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.TrustedProxies {
		got = append(got, p.String())
	}
	if want := "10.0.0.0/8 203.0.113.7/32 fd00::/8"; strings.Join(got, " ") != want {
		t.Fatalf("trusted proxies = %v, want %s", got, want)
	}
	if _, err := Load(env("WEBACQ_TRUSTED_PROXIES", "lb.internal")); err == nil ||
		!strings.Contains(err.Error(), "WEBACQ_TRUSTED_PROXIES") {
		t.Errorf("a host name: %v, want a config error naming the setting", err)
	}
}

func TestAllowPrivateRanges(t *testing.T) {
	c, err := Load(env("WEBACQ_ALLOW_PRIVATE_RANGES", " 10.1.0.0/16, fd12:3456::/32,192.168.1.7 ,100.64.5.9/10"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.AllowPrivateRanges {
		got = append(got, p.String())
	}
	if want := "10.1.0.0/16 fd12:3456::/32 192.168.1.7/32 100.64.0.0/10"; strings.Join(got, " ") != want {
		t.Fatalf("ranges = %v, want %s", got, want)
	}
	if c.AllowPrivate {
		t.Fatal("ranges turned AllowPrivate on")
	}
	if c, err := Load(env()); err != nil || c.AllowPrivateRanges != nil {
		t.Fatalf("default: ranges %v, err %v", c.AllowPrivateRanges, err)
	}
	for _, v := range []string{"8.8.8.0/24", "0.0.0.0/0", "::/0", "10.0.0.0/7", "169.254.0.0/16", "168.63.129.16",
		"fe80::/10", "64:ff9b::/96", "2002::/16", "10.0.0.0/8, 1.1.1.1/32", "ten.0.0.0/8", "10.0.0.0/33", "fe80::1%eth0"} {
		_, err := Load(env("WEBACQ_ALLOW_PRIVATE_RANGES", v))
		if err == nil || !strings.Contains(err.Error(), "config: WEBACQ_ALLOW_PRIVATE_RANGES") {
			t.Errorf("%q: got %v, want a config error naming the setting", v, err)
		}
	}
}

func TestMCPMaxTokens(t *testing.T) {
	if c, err := Load(env("WEBACQ_MCP_MAX_TOKENS", "50000")); err != nil || c.MCPMaxTokens != 50000 {
		t.Fatalf("WEBACQ_MCP_MAX_TOKENS=50000: %v", err)
	}
	for _, kv := range [][]string{
		{"WEBACQ_MCP_MAX_TOKENS", "999"},
		{"WEBACQ_MCP_MAX_TOKENS", "100001"},
		// The old setting is refused, naming its replacement, rather than
		// ignored.
		{"WEBACQ_MCP_MAX_RESULT_CHARS", "200000"},
	} {
		if _, err := Load(env(kv...)); err == nil || !strings.Contains(err.Error(), "WEBACQ_MCP_MAX_TOKENS") {
			t.Errorf("%s=%s: got %v, want an error naming WEBACQ_MCP_MAX_TOKENS", kv[0], kv[1], err)
		}
	}
}
