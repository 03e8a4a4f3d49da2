package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"webacq/internal/metrics"
	"webacq/internal/store"
)

// routeLabel is what a route label may be.
var routeLabel = regexp.MustCompile(`^(/api/v1(/[a-z_-]+|/\{[a-z_]+\})*|/api/mcp|/console|other)$`)

// TestMetricsLabelsAreBounded: whatever paths, methods, keys and ids
// clients send, the request metrics carry only route patterns, known
// methods and status codes, so a node's series cannot grow with its
// traffic (issue 21: bounded labels only, a test enforces it).
func TestMetricsLabelsAreBounded(t *testing.T) {
	e := newEnv(t, store.SQLite)
	count := func() int {
		text, err := metrics.Text()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(text, "webacq_http_requests_total{")
	}
	e.get("/api/v1/health")
	base := count()
	for i := range 40 {
		marker := fmt.Sprintf("zz%03dzz", i)
		e.get("/api/v1/monitor/" + marker)
		e.get("/api/v1/nope-" + marker)
		e.get("/api/v1/monitor/" + marker + "/runs?cursor=" + marker)
		e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer mc_"+marker)
		req, _ := http.NewRequest("BREW"+marker[2:5], e.url+"/api/v1/health", nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}
	// A hundred workspaces, each calling once with its own key.
	for i := range 100 {
		w, err := e.store.CreateWorkspace(ctx, fmt.Sprintf("ws%03dzz", i), 0, false)
		if err != nil {
			t.Fatal(err)
		}
		key, _, err := e.store.CreateKey(ctx, w.ID, "k")
		if err != nil {
			t.Fatal(err)
		}
		e.do("GET", fmt.Sprintf("/api/v1/monitor/zz%03dzz/runs", 500+i), nil, "Authorization", "Bearer "+key)
	}
	// A thousand distinct URLs in all (with the 200 above).
	for i := range 800 {
		e.do("GET", fmt.Sprintf("/api/v1/zz%03dzz/page?u=zz%03dzz", i%1000, i), nil, "Authorization", "Bearer "+e.key)
	}
	if grown := count() - base; grown > 12 {
		t.Fatalf("1,100 requests to distinct paths, keys, workspaces and methods added %d request series, want a handful", grown)
	}
	text, err := metrics.Text()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`zz\d{3}zz|BREW`).FindString(text); m != "" {
		t.Fatalf("a client's path, key, workspace or method became a label: %q", m)
	}
	// The Prometheus text parser reads the whole scrape.
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	// Every route label is a route pattern or a fixed name (the series of
	// the package's other tests are in this process's registry too).
	f := fams["webacq_http_requests_total"]
	if f == nil || len(f.GetMetric()) == 0 {
		t.Fatal("no webacq_http_requests_total series")
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if v := l.GetValue(); l.GetName() == "route" && !routeLabel.MatchString(v) {
				t.Errorf("route label %q is neither a /api/v1 pattern nor a fixed name", v)
			}
		}
	}
	for _, want := range []string{
		`webacq_http_requests_total{method="GET",route="/api/v1/health",status="200"}`,
		`webacq_http_requests_total{method="GET",route="/api/v1/monitor/{id}",status="`,
		`webacq_http_requests_total{method="OTHER",route="other",status="`,
		`webacq_http_request_duration_seconds_bucket{route="/api/v1/health",le="0.005"}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
