package console

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientAddrBehindTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, c := range []struct {
		name, peer string
		xff        []string
		trusted    []netip.Prefix
		want       string
	}{
		{"no proxy trusted: the peer", "10.0.0.5:4000", []string{"198.51.100.9"}, nil, "10.0.0.5"},
		{"an untrusted peer's header counts for nothing", "192.0.2.1:4000", []string{"198.51.100.9"}, trusted, "192.0.2.1"},
		{"the client the proxy saw", "10.0.0.5:4000", []string{"198.51.100.9"}, trusted, "198.51.100.9"},
		{"a client's own claim left of it is ignored", "10.0.0.5:4000", []string{"1.2.3.4, 198.51.100.9"}, trusted, "198.51.100.9"},
		{"proxies in a chain are skipped", "10.0.0.5:4000", []string{"198.51.100.9, 10.1.1.1", "10.2.2.2"}, trusted, "198.51.100.9"},
		{"IPv6 through an IPv6 proxy", "[fd00::1]:4000", []string{"2001:db8::7"}, trusted, "2001:db8::7"},
		{"IPv4-mapped addresses are IPv4", "[::ffff:10.0.0.5]:4000", []string{"::ffff:198.51.100.9"}, trusted, "198.51.100.9"},
		{"no header: the proxy", "10.0.0.5:4000", nil, trusted, "10.0.0.5"},
		{"a malformed hop: the proxy", "10.0.0.5:4000", []string{"198.51.100.9, junk"}, trusted, "10.0.0.5"},
		{"only proxies: the proxy", "10.0.0.5:4000", []string{"10.9.9.9"}, trusted, "10.0.0.5"},
	} {
		r, _ := http.NewRequest("POST", "http://x/console/signin", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := clientAddr(r, c.trusted); got != c.want {
			t.Errorf("%s: clientAddr = %q, want %q", c.name, got, c.want)
		}
	}
}
