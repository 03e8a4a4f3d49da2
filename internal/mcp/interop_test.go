package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"webacq/internal/mcp"
	"webacq/internal/store"
)

// TestTypeScriptClient runs the official MCP TypeScript SDK client against
// the endpoint: it connects over streamable HTTP with a bearer key, lists
// the five tools, calls svc_fetch on a page served on 127.0.0.1, and crawls
// a site of large pages with svc_gyre, reading the capped result and its
// marker (and the progress it was sent).
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
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
	s, big := site(t), bigSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", e.url, e.key, s.URL+"/q3", big.URL+"/p0")
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
		Crawl               struct {
			IsError    bool
			Bytes      int
			Progress   []float64
			Pages      []string
			TotalPages int
			ParseError string
			Cut        *struct {
				Message   string
				MaxTokens int
				LeftOut   int
				URLs      []string
			}
		}
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
	c := got.Crawl
	if c.IsError || c.ParseError != "" || c.TotalPages != 20 || c.Cut == nil || len(c.Pages) == 0 ||
		c.Cut.LeftOut+len(c.Pages) != 20 || len(c.Cut.URLs) != c.Cut.LeftOut || c.Cut.MaxTokens != mcp.DefaultMaxTokens ||
		!strings.Contains(c.Cut.Message, "svc_fetch") || !strings.Contains(c.Cut.Message, `"async": true`) {
		t.Fatalf("capped svc_gyre through the TypeScript client: %+v", c)
	}
	if c.Bytes > 4*mcp.DefaultMaxTokens {
		t.Fatalf("the client read %d bytes, more than %d tokens", c.Bytes, mcp.DefaultMaxTokens)
	}
	for i, u := range append(c.Pages, c.Cut.URLs...) {
		if u != fmt.Sprintf("%s/p%d", big.URL, i) {
			t.Fatalf("page %d is %s: kept and left out are not the crawl in order", i, u)
		}
	}
	t.Logf("crawl: %d bytes, %d pages kept, %d left out, progress %v", c.Bytes, len(c.Pages), c.Cut.LeftOut, c.Progress)
	// The client's onprogress saw the crawl's progress, strictly increasing
	// (the SDK drops none).
	if len(c.Progress) < 2 || c.Progress[len(c.Progress)-1] != 20 {
		t.Fatalf("progress %v, want it to reach 20", c.Progress)
	}
	for i := 1; i < len(c.Progress); i++ {
		if c.Progress[i] <= c.Progress[i-1] {
			t.Fatalf("progress %v", c.Progress)
		}
	}
	if b := e.balance(e.ws.ID); b != 79 {
		t.Fatalf("balance %d after one svc_fetch and a crawl of 20 pages, want 79", b)
	}
}
