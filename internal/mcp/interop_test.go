package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"webacq/internal/store"
)

// TestTypeScriptClient runs the official MCP TypeScript SDK client against
// the endpoint: it connects over streamable HTTP with a bearer key, lists
// the five tools and calls svc_fetch on a page served on 127.0.0.1.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("interop test in -short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (scripts/setup.sh installs it)")
	}
	dir, _ := filepath.Abs("interop")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	e := newEnv(t, store.SQLite)
	s := site(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", e.url, e.key, s.URL+"/q3")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node client: %v\n%s\n%s", err, out, stderr)
	}
	var got struct {
		Server              struct{ Name string }
		Tools               []string
		FetchSchemaRequired []string
		IsError             bool
		Text                string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	want := []string{"svc_extract", "svc_fetch", "svc_gyre", "svc_map", "svc_search"}
	if got.Server.Name != "webacq" || !slices.Equal(got.Tools, want) || !slices.Equal(got.FetchSchemaRequired, []string{"url"}) {
		t.Fatalf("client saw server %q tools %v required %v", got.Server.Name, got.Tools, got.FetchSchemaRequired)
	}
	var page struct {
		Markdown string
		Tier     string
	}
	if got.IsError || json.Unmarshal([]byte(got.Text), &page) != nil || !strings.Contains(page.Markdown, "Revenue rose to 12.4 million") || page.Tier != "http" {
		t.Fatalf("svc_fetch through the TypeScript client: isError=%v %s", got.IsError, got.Text)
	}
	if b := e.balance(e.ws.ID); b != 99 {
		t.Fatalf("balance %d after one svc_fetch, want 99", b)
	}
}
