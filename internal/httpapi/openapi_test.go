package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"webacq/internal/store"
)

// The API describes itself at /api/v1/openapi.json without a key: an
// OpenAPI 3.1 document that an OpenAPI library loads and validates, that
// names every route the server answers, and against which real requests
// and answers of the primitives validate (issue 22, part 4). GET / links
// to it, the console and the README.
func TestOpenAPIDocument(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 50)
	res, err := http.Get(e.url + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("openapi.json without a key: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1", doc.OpenAPI)
	}
	for _, route := range []struct{ method, path string }{
		{"POST", "/api/v1/fetch"}, {"POST", "/api/v1/map"}, {"POST", "/api/v1/gyre"}, {"POST", "/api/v1/search"},
		{"POST", "/api/v1/extract"}, {"GET", "/api/v1/health"}, {"GET", "/api/v1/credits"}, {"DELETE", "/api/v1/keys/{prefix}"},
		{"POST", "/api/v1/monitor/register"}, {"GET", "/api/v1/monitor/{id}/runs/{run_id}"}, {"POST", "/api/v1/alerts"},
	} {
		item := doc.Paths.Find(route.path)
		if item == nil || item.GetOperation(route.method) == nil {
			t.Errorf("%s %s is not in the document", route.method, route.path)
		}
	}
	if op := doc.Paths.Find("/api/v1/fetch").Post; op.RequestBody == nil ||
		op.RequestBody.Value.Content.Get("application/json").Schema.Value.Properties["url"] == nil {
		t.Error("fetch's request body has no url property")
	}

	// Real calls validate against it, request and answer.
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	site := smallSite(t, 3)
	for _, c := range []struct{ path, body string }{
		{"/api/v1/fetch", `{"url":"` + site.URL + `/p0","tier":"http","formats":["markdown","links"]}`},
		{"/api/v1/map", `{"url":"` + site.URL + `/","limit":2}`},
		{"/api/v1/gyre", `{"url":"` + site.URL + `/p0","maxPages":2,"tier":"http"}`},
		{"/api/v1/search", `{"query":"revenue"}`},
	} {
		req, _ := http.NewRequest("POST", e.url+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+e.key)
		req.Header.Set("Content-Type", "application/json")
		vreq, _ := http.NewRequest("POST", "http://localhost"+c.path, strings.NewReader(c.body))
		vreq.Header = req.Header.Clone()
		route, params, err := router.FindRoute(vreq)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("%s request: %v", c.path, err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.path, res.StatusCode, body)
		}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
			Body: io.NopCloser(bytes.NewReader(body))}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s answer does not match the document: %v", c.path, err)
		}
	}

	res, err = http.Get(e.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	home, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, link := range []string{`href="/console"`, `href="/api/v1/openapi.json"`, `href="/readme"`} {
		if res.StatusCode != 200 || !strings.Contains(string(home), link) {
			t.Errorf("GET /: %d, no %s", res.StatusCode, link)
		}
	}
	res, err = http.Get(e.url + "/readme")
	if err != nil {
		t.Fatal(err)
	}
	readme, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(string(readme), "# webacq") {
		t.Errorf("GET /readme: %d %.40q", res.StatusCode, readme)
	}
}
