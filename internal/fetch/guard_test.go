package fetch

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"webacq/internal/model"
)

// everyRange opens all of the private space, plus ranges outside it that
// the guard must ignore.
var everyRange = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0"), netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("168.63.129.0/24"), netip.MustParsePrefix("fe80::/10"),
}

// metadataAddrs are cloud metadata and host-agent addresses.
var metadataAddrs = []string{
	"169.254.169.254", "169.254.170.2", "169.254.170.23", "169.254.42.42", "100.100.100.200",
	"168.63.129.16", "192.0.0.192", "fd00:ec2::254", "fd00:ec2::23", "fd20:ce::254", "fd00:42::42",
	"fe80::a9fe:a9fe", "::ffff:169.254.169.254", "::ffff:100.100.100.200", "::ffff:168.63.129.16",
	"64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1",
}

func literalURL(addr string) string {
	a := netip.MustParseAddr(addr)
	if a.Is6() {
		return "http://[" + a.String() + "]/latest/meta-data/"
	}
	return "http://" + a.String() + "/latest/meta-data/"
}

// wantRefused checks that c refuses addr both as a URL literal and in the
// dialer's hook, which sees every resolved address of every tier.
func wantRefused(t *testing.T, c *Client, addr string) {
	t.Helper()
	if _, err := c.CheckURL(literalURL(addr)); model.ErrorCode(err) != model.CodeForbiddenURL {
		t.Errorf("CheckURL(%s): err = %v, want forbidden_url", addr, err)
	}
	a := netip.MustParseAddr(addr)
	network := "tcp4"
	if a.Is6() {
		network = "tcp6"
	}
	if err := c.guard.control(network, netip.AddrPortFrom(a, 80).String(), nil); !isGuardError(err) {
		t.Errorf("dial %s: err = %v, want a guard refusal", addr, err)
	}
}

func wantAllowed(t *testing.T, c *Client, addr string) {
	t.Helper()
	if _, err := c.CheckURL(literalURL(addr)); err != nil {
		t.Errorf("CheckURL(%s): %v, want it allowed", addr, err)
	}
	a := netip.MustParseAddr(addr)
	network := "tcp4"
	if a.Is6() {
		network = "tcp6"
	}
	if err := c.guard.control(network, netip.AddrPortFrom(a, 80).String(), nil); err != nil {
		t.Errorf("dial %s: %v, want it allowed", addr, err)
	}
}

func TestMetadataAlwaysRefused(t *testing.T) {
	for name, cfg := range map[string]Config{
		"default":       {},
		"allow private": {AllowPrivate: true},
		"every range":   {AllowPrivate: true, AllowRanges: everyRange},
	} {
		t.Run(name, func(t *testing.T) {
			c := New(cfg)
			for _, addr := range metadataAddrs {
				wantRefused(t, c, addr)
			}
		})
	}
}

func TestAllowPrivateOpensLoopbackOnly(t *testing.T) {
	c := New(Config{AllowPrivate: true})
	for _, addr := range []string{"127.0.0.1", "127.9.9.9", "::1"} {
		wantAllowed(t, c, addr)
	}
	for _, addr := range []string{"10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1", "fc00::1", "fd12:3456::1",
		"169.254.1.1", "0.0.0.0", "224.0.0.1", "::"} {
		wantRefused(t, c, addr)
	}
}

func TestAllowRanges(t *testing.T) {
	c := New(Config{AllowRanges: []netip.Prefix{
		netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("fd12::/16"),
		netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0"),
	}})
	for _, addr := range []string{"10.1.2.3", "fd12::1", "100.64.0.1", "::ffff:10.1.0.9", "8.8.8.8"} {
		wantAllowed(t, c, addr)
	}
	// Outside the named private ranges, loopback without AllowPrivate, and
	// what a public range in the list would have opened.
	for _, addr := range []string{"10.2.0.1", "192.168.1.1", "fc00::1", "127.0.0.1", "::1", "100.100.100.200",
		"169.254.1.1", "0.0.0.0", "224.0.0.1", "192.0.0.1", "64:ff9b::a00:1", "2002:a01:203::1", "fe80::1"} {
		wantRefused(t, c, addr)
	}

	// A real connection through a named range.
	srv, hits := countingServer(t, nil)
	c = New(Config{AllowRanges: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Timeout: 5 * time.Second})
	resp, err := c.Get(context.Background(), Request{URL: srv.URL})
	if err != nil || string(resp.Body) != "hello" {
		t.Fatalf("Get through an allowed range: %v", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("hits = %d, want 1", hits.Load())
	}
}

func TestIsPrivateRange(t *testing.T) {
	for p, want := range map[string]bool{
		"10.0.0.0/8": true, "10.1.2.0/24": true, "172.16.0.0/12": true, "172.31.0.0/16": true,
		"192.168.0.0/16": true, "100.64.0.0/10": true, "100.100.0.0/16": true, "127.0.0.0/8": true,
		"::1/128": true, "fc00::/7": true, "fd00:ec2::/32": true, "10.0.0.1/32": true,
		"10.0.0.0/7": false, "172.0.0.0/8": false, "0.0.0.0/0": false, "::/0": false, "169.254.0.0/16": false,
		"8.8.8.0/24": false, "168.63.129.16/32": false, "fe80::/10": false, "64:ff9b::/96": false,
		"2002::/16": false, "::ffff:10.0.0.0/104": false, "fc00::/6": false,
	} {
		if got := IsPrivateRange(netip.MustParsePrefix(p)); got != want {
			t.Errorf("IsPrivateRange(%s) = %t, want %t", p, got, want)
		}
	}
}

// TestRedirectToMetadata: a public site redirecting to a metadata address
// is refused at the hop, with every range open.
func TestRedirectToMetadata(t *testing.T) {
	public, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+strings.TrimPrefix(r.URL.Path, "/")+"/latest/meta-data/", http.StatusFound)
	})
	c := New(Config{AllowPrivate: true, AllowRanges: everyRange, Timeout: 5 * time.Second,
		allowAddrs: []netip.AddrPort{serverAddr(t, public)}})
	for _, host := range []string{"168.63.129.16", "100.100.100.200", "[fd00:ec2::254]", "169.254.169.254"} {
		_, err := c.Get(context.Background(), Request{URL: public.URL + "/" + host})
		wantCode(t, err, model.CodeForbiddenURL)
	}
}

// TestProxyRefusesMetadata: the browser tier's proxy dials through the
// same guard, for CONNECT tunnels and plain requests alike.
func TestProxyRefusesMetadata(t *testing.T) {
	c := New(Config{AllowPrivate: true, AllowRanges: everyRange, Timeout: 5 * time.Second})
	p, err := startProxy(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for _, req := range []string{
		"CONNECT 168.63.129.16:443 HTTP/1.1\r\nHost: 168.63.129.16:443\r\n\r\n",
		"CONNECT [fd00:ec2::254]:80 HTTP/1.1\r\nHost: [fd00:ec2::254]:80\r\n\r\n",
		"GET http://100.100.100.200/latest/meta-data/ HTTP/1.1\r\nHost: 100.100.100.200\r\n\r\n",
	} {
		conn, err := net.DialTimeout("tcp", p.ln.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q: status %d, want 403", strings.Fields(req)[1], resp.StatusCode)
		}
	}
}
