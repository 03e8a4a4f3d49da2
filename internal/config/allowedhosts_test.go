package config

import (
	"slices"
	"testing"
)

func TestAllowedHosts(t *testing.T) {
	c, err := Load(env("WEBACQ_ALLOWED_HOSTS", " api.example.com, mcp.example.org:8443 ,,"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"api.example.com", "mcp.example.org:8443"}; !slices.Equal(c.AllowedHosts, want) {
		t.Fatalf("AllowedHosts = %q, want %q", c.AllowedHosts, want)
	}
	if c, _ := Load(env()); c.AllowedHosts != nil {
		t.Fatalf("AllowedHosts without the setting = %q", c.AllowedHosts)
	}
	for _, bad := range []string{"https://api.example.com", "api.example.com/mcp", "api example.com"} {
		if _, err := Load(env("WEBACQ_ALLOWED_HOSTS", bad)); err == nil {
			t.Errorf("WEBACQ_ALLOWED_HOSTS=%q was accepted", bad)
		}
	}
}
