package fetch

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzCheckURL: never panics; what it accepts is an absolute http(s) URL
// with a host, and never a literal address the guard refuses.
func FuzzCheckURL(f *testing.F) {
	for _, seed := range []string{
		"http://example.com/", "http://127.0.0.1/", "http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/",
		"http://[::ffff:127.0.0.1]/", "http://[fc00::1]:8080/", "http://169.254.169.254/latest", "https://user@host/",
		"javascript:alert(1)", "http://%31%32%37.0.0.1/", "http://127.1/", "HTTP://EXAMPLE.COM:443",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := CheckURL(raw)
		if err != nil {
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			t.Fatalf("CheckURL(%q) accepted %q", raw, u)
		}
		host := strings.Trim(u.Hostname(), "[]")
		if ip, err := netip.ParseAddr(host); err == nil {
			ip = ip.Unmap()
			if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() {
				t.Fatalf("CheckURL(%q) accepted the private address %s", raw, ip)
			}
		}
	})
}
