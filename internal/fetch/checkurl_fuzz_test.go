package fetch

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzCheckURL: never panics; what it accepts is an absolute http(s) URL
// with a host, and never a literal address the guard refuses: no private
// address under the default policy, and no metadata, link-local, multicast
// or unspecified address even with every private range open.
func FuzzCheckURL(f *testing.F) {
	for _, seed := range []string{
		"http://example.com/", "http://127.0.0.1/", "http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/",
		"http://[::ffff:127.0.0.1]/", "http://[fc00::1]:8080/", "http://169.254.169.254/latest", "https://user@host/",
		"javascript:alert(1)", "http://%31%32%37.0.0.1/", "http://127.1/", "HTTP://EXAMPLE.COM:443",
		"http://168.63.129.16/", "http://[fd00:ec2::254]/", "http://100.100.100.200/", "http://1684242704/",
		"http://[::ffff:a83f:8110]/", "http://[fd20:ce::254]/", "http://10.1.2.3/",
	} {
		f.Add(seed)
	}
	open := New(Config{AllowPrivate: true, AllowRanges: everyRange})
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := CheckURL(raw)
		if err == nil {
			if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
				t.Fatalf("CheckURL(%q) accepted %q", raw, u)
			}
			if ip, ok := literalIP(u.Hostname()); ok && (ip.IsLoopback() || ip.IsPrivate() || isNeverAllowed(ip)) {
				t.Fatalf("CheckURL(%q) accepted the private address %s", raw, ip)
			}
		}
		u, err = open.CheckURL(raw)
		if err != nil {
			return
		}
		if ip, ok := literalIP(u.Hostname()); ok && isNeverAllowed(ip) {
			t.Fatalf("CheckURL(%q) with every range open accepted %s", raw, ip)
		}
	})
}

func literalIP(host string) (netip.Addr, bool) {
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return ip.Unmap(), err == nil
}

// isNeverAllowed is the test's own statement of what no setting opens.
func isNeverAllowed(ip netip.Addr) bool {
	if ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() {
		return true
	}
	for _, m := range metadataAddrs {
		if netip.MustParseAddr(m).Unmap() == ip {
			return true
		}
	}
	return false
}
