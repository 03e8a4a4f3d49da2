package main_test

import (
	"strings"
	"testing"
)

// TestAllowPrivateRangesSetting: WEBACQ_ALLOW_PRIVATE_RANGES reaches the
// fetch tier, and a public range stops the binary at start-up.
func TestAllowPrivateRangesSetting(t *testing.T) {
	srv := testSite(t)
	out, errOut, code := runWith(t, []string{"WEBACQ_ALLOW_PRIVATE_RANGES=127.0.0.0/8"}, "fetch", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "# Board declares dividend") {
		t.Fatalf("fetch within an allowed range: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	_, errOut, code = runWith(t, []string{"WEBACQ_ALLOW_PRIVATE_RANGES=10.0.0.0/8"}, "fetch", srv.URL+"/")
	if code == 0 || !strings.Contains(errOut, "forbidden_url") {
		t.Fatalf("fetch outside the allowed range: exit %d, %q", code, errOut)
	}
	_, errOut, code = runWith(t, []string{"WEBACQ_ALLOW_PRIVATE_RANGES=8.8.8.0/24"}, "fetch", srv.URL+"/")
	if code == 0 || !strings.Contains(errOut, "WEBACQ_ALLOW_PRIVATE_RANGES") || !strings.Contains(errOut, "not a private range") {
		t.Fatalf("public range: exit %d, %q", code, errOut)
	}
}
