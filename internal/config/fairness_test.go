package config

import (
	"strings"
	"testing"
	"time"
)

// TestMonitorFairnessSettings: the workspace share and the check-now
// interval have their defaults, take values, and refuse nonsense by name.
func TestMonitorFairnessSettings(t *testing.T) {
	c, err := Load(env())
	if err != nil || c.MonitorWorkspaceShare != 50 || c.CheckNowInterval != time.Minute {
		t.Fatalf("defaults: share %d, check-now %s, %v; want 50, 1m", c.MonitorWorkspaceShare, c.CheckNowInterval, err)
	}
	c, err = Load(env("WEBACQ_MONITOR_WORKSPACE_SHARE", "100", "WEBACQ_CHECK_NOW_INTERVAL", "0s"))
	if err != nil || c.MonitorWorkspaceShare != 100 || c.CheckNowInterval != 0 {
		t.Fatalf("share 100, check-now 0s: %d %s %v", c.MonitorWorkspaceShare, c.CheckNowInterval, err)
	}
	for _, kv := range [][2]string{{"WEBACQ_MONITOR_WORKSPACE_SHARE", "0"}, {"WEBACQ_MONITOR_WORKSPACE_SHARE", "101"},
		{"WEBACQ_CHECK_NOW_INTERVAL", "-1m"}, {"WEBACQ_CHECK_NOW_INTERVAL", "soon"}} {
		if _, err := Load(env(kv[0], kv[1])); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: %v, want an error naming it", kv[0], kv[1], err)
		}
	}
}
