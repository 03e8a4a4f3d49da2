package mcp

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// hostPolicy is the DNS-rebinding protection of the endpoint (DECISIONS.md):
// which Host a request may name and which browser Origin may send it. A page
// on a rebound name (evil.example resolving to 127.0.0.1) reaches the
// service with its own name in Host, so naming the service's hosts is what
// tells such a request apart.
type hostPolicy struct {
	// names are the allowed host names, lower case, without port or
	// brackets. Empty: any Host is accepted.
	names   map[string]bool
	origins []string
}

// loopbackNames are allowed on any port when the service listens on a
// loopback address.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

func newHostPolicy(o Options) hostPolicy {
	p := hostPolicy{names: map[string]bool{}, origins: o.AllowedOrigins}
	if u, err := url.Parse(o.BaseURL); err == nil && u.Host != "" {
		p.add(u.Host)
	}
	p.add(o.CanonicalHost)
	for _, h := range o.AllowedHosts {
		p.add(h)
	}
	if listensOnLoopback(o.Addr) {
		for _, h := range loopbackNames {
			p.add(h)
		}
	}
	return p
}

func (p hostPolicy) add(host string) {
	if n := hostname(host); n != "" {
		p.names[n] = true
	}
}

// anyHost reports whether every Host is accepted: no base URL, canonical
// host or allowed host is configured and the service listens on a
// non-loopback address.
func (p hostPolicy) anyHost() bool { return len(p.names) == 0 }

// hostAllowed checks the request's Host; its port does not matter.
func (p hostPolicy) hostAllowed(r *http.Request) bool {
	return p.anyHost() || p.names[hostname(r.Host)]
}

// originAllowed accepts requests without Origin (non-browser clients),
// origins on an allowed host (on the request's own host when any host is
// accepted), and the configured origins.
func (p hostPolicy) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, o := range p.origins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if p.anyHost() {
		return strings.EqualFold(u.Host, r.Host)
	}
	return p.names[hostname(u.Host)]
}

// hostname is the host name of a Host header or host[:port] value: lower
// case, without port, brackets or a final dot ("" when there is none).
func hostname(hostport string) string {
	h := strings.TrimSpace(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// listensOnLoopback reports whether addr (host:port) is a loopback address.
func listensOnLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
