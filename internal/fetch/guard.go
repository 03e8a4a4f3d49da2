package fetch

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"

	"webacq/internal/model"
)

var (
	// loopback is what AllowPrivate opens.
	loopback = []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("::1/128"),
	}
	// privateSpace bounds what AllowRanges may open: loopback, RFC 1918,
	// CGNAT and unique-local. Link-local, multicast, unspecified, reserved
	// and translated (NAT64, 6to4) addresses stay refused whatever the
	// settings: no site worth fetching lives there, and translated forms
	// could carry any private IPv4 address.
	privateSpace = []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("fc00::/7"),
	}
	// metadata are the cloud instance-metadata and host-agent addresses,
	// which hand out credentials to whoever asks from the instance. They
	// are refused before any allowance is considered, because several sit
	// in ranges an operator may open (CGNAT, unique-local) or in public
	// space the default policy lets through.
	metadata = []netip.Prefix{
		netip.MustParsePrefix("169.254.0.0/16"),     // link-local: AWS, GCP, Azure, OCI, DigitalOcean, OpenStack, ECS (169.254.170.2), Scaleway (169.254.42.42)…
		netip.MustParsePrefix("fe80::/10"),          // link-local: OpenStack's fe80::a9fe:a9fe
		netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud, inside CGNAT
		netip.MustParsePrefix("168.63.129.16/32"),   // Azure WireServer, a public address
		netip.MustParsePrefix("192.0.0.192/32"),     // Oracle Cloud (classic)
		netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS instance metadata over IPv6, inside unique-local
		netip.MustParsePrefix("fd00:ec2::23/128"),   // AWS EKS Pod Identity Agent over IPv6
		netip.MustParsePrefix("fd20:ce::254/128"),   // Google Cloud metadata over IPv6
		netip.MustParsePrefix("fd00:42::42/128"),    // Scaleway metadata over IPv6
	}
)

// IsPrivateRange reports whether p lies wholly within the private space
// that Config.AllowRanges may open: loopback, RFC 1918, CGNAT (100.64/10)
// or unique-local (fc00::/7).
func IsPrivateRange(p netip.Prefix) bool {
	if !p.IsValid() {
		return false
	}
	p = p.Masked()
	for _, s := range privateSpace {
		if p.Bits() >= s.Bits() && s.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// guard decides which addresses outbound connections may reach. It runs in
// the dialer's Control hook, after DNS resolution, so it sees the address that
// is actually connected to: DNS rebinding and redirects cannot slip past it.
type guard struct {
	g *ssrf.Guardian
	// open are the ranges the configuration opens (loopback with
	// AllowPrivate, and the private ranges of AllowRanges), checked after
	// the metadata addresses and before the deny lists.
	open []netip.Prefix
	// allow lists exact addresses that pass regardless of the deny lists.
	// Only tests set it (through Config.allowAddrs), so that one loopback
	// test server can play a public site while another is refused.
	allow []netip.AddrPort
}

func newGuard(cfg Config) *guard {
	g := &guard{
		g:     ssrf.New(ssrf.WithAnyPort()), // sites run on many ports; the address is what matters
		allow: cfg.allowAddrs,
	}
	if cfg.AllowPrivate {
		g.open = append(g.open, loopback...)
	}
	for _, p := range cfg.AllowRanges {
		// A range outside the private space would open link-local or
		// translated addresses; config refuses it, and so does the guard.
		if IsPrivateRange(p) {
			g.open = append(g.open, p.Masked())
		}
	}
	return g
}

// checkAddrPort reports an error wrapping ssrf.ErrProhibitedIP when ap may
// not be connected to. IPv4-mapped IPv6 addresses are judged as the IPv4
// address they carry.
func (g *guard) checkAddrPort(ap netip.AddrPort) error {
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	for _, a := range g.allow {
		if a == ap {
			return nil
		}
	}
	ip := ap.Addr().WithZone("")
	for _, p := range metadata {
		if p.Contains(ip) {
			return fmt.Errorf("%w: %s is a cloud metadata or link-local address", ssrf.ErrProhibitedIP, ip)
		}
	}
	for _, p := range g.open {
		if p.Contains(ip) {
			return nil
		}
	}
	return g.g.SafeAddrPort(ap)
}

// control is the net.Dialer Control hook.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp4", "tcp6":
	default:
		return ssrf.ErrProhibitedNetwork
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return ssrf.ErrInvalidHostPort
	}
	return g.checkAddrPort(ap)
}

// isGuardError reports whether err (anywhere in its chain) is a refusal by the
// SSRF guard.
func isGuardError(err error) bool {
	return errors.Is(err, ssrf.ErrProhibitedIP) ||
		errors.Is(err, ssrf.ErrProhibitedPort) ||
		errors.Is(err, ssrf.ErrProhibitedNetwork) ||
		errors.Is(err, ssrf.ErrInvalidHostPort)
}

var defaultGuard = newGuard(Config{})

// CheckURL validates raw as a URL that may be fetched under the default
// policy (private addresses refused). It is a syntax-level check: the URL must
// be absolute http or https, have a host and carry no user information, else
// the error has code bad_request. A host written as a literal IP address,
// including the decimal, octal and hexadecimal IPv4 forms that browsers
// accept (http://2130706433/, http://0177.0.0.1/, http://0x7f.0.0.1/), is
// checked against the SSRF deny lists and refused with forbidden_url.
// Host names are not resolved here: the dialer checks the resolved address
// when it connects.
//
// The returned URL is normalised: lower-case scheme and host, and a numeric
// IPv4 host rewritten in dotted-decimal form.
func CheckURL(raw string) (*url.URL, error) {
	return checkURL(defaultGuard, raw)
}

// CheckURL is like the package-level CheckURL but applies the client's
// policy, so loopback literals pass when Config.AllowPrivate is set and
// private ones inside Config.AllowRanges.
func (c *Client) CheckURL(raw string) (*url.URL, error) {
	return checkURL(c.guard, raw)
}

func checkURL(g *guard, raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, model.Errorf(model.CodeBadRequest, "url is required")
	}
	if len(raw) > 8192 {
		return nil, model.Errorf(model.CodeBadRequest, "url is too long")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, model.Errorf(model.CodeBadRequest, "url must be absolute and use http or https")
	}
	if u.Opaque != "" {
		return nil, model.Errorf(model.CodeBadRequest, "url is not valid")
	}
	if u.User != nil {
		return nil, model.Errorf(model.CodeBadRequest, "url must not contain user information")
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return nil, model.Errorf(model.CodeBadRequest, "url must have a host")
	}
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, model.Errorf(model.CodeBadRequest, "url port is not valid")
		}
	}
	portNum := uint16(80)
	if u.Scheme == "https" {
		portNum = 443
	}
	if port != "" {
		n, _ := strconv.Atoi(port)
		portNum = uint16(n)
	}

	var ip netip.Addr
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return nil, model.Errorf(model.CodeBadRequest, "url host is not valid")
		}
		ip = a
	} else if looksNumericIPv4(host) {
		a, ok := parseIPv4Loose(host)
		if !ok {
			return nil, model.Errorf(model.CodeBadRequest, "url host is not valid")
		}
		ip = a
		host = a.String()
	} else if !validHostname(host) {
		return nil, model.Errorf(model.CodeBadRequest, "url host is not valid")
	}
	if ip.IsValid() {
		if err := g.checkAddrPort(netip.AddrPortFrom(ip, portNum)); err != nil {
			return nil, model.Wrap(model.CodeForbiddenURL, err, "url points to an address that is not allowed")
		}
		if ip.Is6() && !ip.Is4In6() {
			host = "[" + ip.String() + "]"
		} else {
			host = ip.Unmap().String()
		}
	}
	if port != "" {
		u.Host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	} else {
		u.Host = host
	}
	return u, nil
}

// validHostname accepts registered names: labels of letters, digits, '-' and
// '_', plus already-encoded non-ASCII (Go's HTTP client converts IDNs).
func validHostname(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r > 0x7f:
			default:
				return false
			}
		}
	}
	return true
}

// looksNumericIPv4 follows the WHATWG URL rule: a host whose last label is a
// number (decimal, or hex with 0x) is an IPv4 address, or invalid.
func looksNumericIPv4(h string) bool {
	labels := strings.Split(h, ".")
	last := labels[len(labels)-1]
	if last == "" && len(labels) > 1 {
		last = labels[len(labels)-2]
	}
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		for _, r := range last[2:] {
			if !isHex(r) {
				return false
			}
		}
		return true
	}
	for _, r := range last {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isHex(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f'
}

// parseIPv4Loose parses the IPv4 forms that browsers and inet_aton accept:
// one to four parts, each decimal, octal (leading 0) or hex (0x); the last
// part fills the remaining bytes.
func parseIPv4Loose(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
