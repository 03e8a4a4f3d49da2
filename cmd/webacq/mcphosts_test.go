package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestServeMCPHostCheck: serve hands its listen address and WEBACQ_ALLOWED_HOSTS
// to the MCP endpoint. On a loopback address a page on a rebound name (its
// own name in Host) is refused with 403; localhost and the allowed name are
// served, and no warning about open hosts is logged.
func TestServeMCPHostCheck(t *testing.T) {
	s := startServer(t, storetest.URL(t, store.SQLite), "WEBACQ_ALLOWED_HOSTS=mcp.example.org")
	post := func(host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", s.url+"/api/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post("evil.example.com:8080"); code != 403 || !strings.Contains(body, `"jsonrpc":"2.0"`) {
		t.Fatalf("rebound host: %d %s, want 403 with a JSON-RPC error", code, body)
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1", "mcp.example.org"} {
		if code, body := post(host); code != 200 || !strings.Contains(body, `"result":{}`) {
			t.Fatalf("Host %s: %d %s, want 200", host, code, body)
		}
	}
	if strings.Contains(s.stderr.String(), "accepts any Host") {
		t.Fatalf("a loopback server warned about open hosts:\n%s", s.stderr.String())
	}
}
