package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/primitive"
)

// OpenAPIPath is where the API describes itself (no key needed).
const OpenAPIPath = "/api/v1/openapi.json"

// bodies are the request and answer types of the routes, by pattern: the
// same Go types the handlers decode and answer, so that the document
// cannot drift from the code (TestOpenAPIDocument checks that every
// route is in it). A route absent here takes no body and answers an
// object described in words only.
var bodies = map[string]struct{ req, data reflect.Type }{
	"POST /api/v1/fetch":                        {typeOf[primitive.FetchRequest](), typeOf[primitive.FetchResult]()},
	"POST /api/v1/map":                          {typeOf[primitive.MapRequest](), typeOf[primitive.MapResult]()},
	"POST /api/v1/gyre":                         {typeOf[primitive.GyreRequest](), typeOf[primitive.GyreResult]()},
	"POST /api/v1/search":                       {typeOf[primitive.SearchRequest](), typeOf[primitive.SearchResult]()},
	"POST /api/v1/extract":                      {typeOf[primitive.ExtractRequest](), typeOf[primitive.ExtractResult]()},
	"GET /api/v1/credits":                       {nil, typeOf[model.CreditSummary]()},
	"POST /api/v1/keys":                         {typeOf[createKeyRequest](), typeOf[createdKey]()},
	"POST /api/v1/monitor/register":             {typeOf[monitor.RegisterRequest](), nil},
	"PATCH /api/v1/monitor/{id}":                {typeOf[monitor.PatchRequest](), nil},
	"POST " + monitor.PreviewEndpoint:           {typeOf[monitor.PreviewRequest](), nil},
	"POST /api/v1/monitor/{id}/approve-extract": {typeOf[monitor.ApproveRequest](), nil},
	"POST /api/v1/monitor/webhook":              {typeOf[webhookRequest](), nil},
	"POST /api/v1/alerts":                       {typeOf[map[string]any](), nil},
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// schemaOptions map the types whose Go form is not their JSON form.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	typeOf[json.RawMessage](): {},
	typeOf[time.Time]():       {Type: "string", Format: "date-time"},
	typeOf[time.Duration]():   {Type: "integer"},
	typeOf[map[string]any]():  {Type: "object"},
}}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// openAPI is the OpenAPI 3.1 document of the routes, built once.
func (s *Server) openAPI() ([]byte, error) {
	s.openAPIOnce.Do(func() { s.openAPIDoc, s.openAPIErr = buildOpenAPI(s.patterns) })
	return s.openAPIDoc, s.openAPIErr
}

func buildOpenAPI(patterns []string) ([]byte, error) {
	errorEnvelope := map[string]any{"type": "object", "required": []string{"ok", "error", "code"},
		"properties": map[string]any{
			"ok":    map[string]any{"const": false},
			"error": map[string]any{"type": "string"},
			"code": map[string]any{"type": "string", "enum": []string{model.CodeBadRequest, model.CodeUnauthorized, model.CodeForbidden,
				model.CodeNotFound, model.CodeCreditsExhausted, model.CodeForbiddenURL, model.CodeTimeout, model.CodeRateLimited,
				model.CodeUpstreamError, model.CodeUnavailable, model.CodeInternal}},
		}}
	paths := map[string]map[string]any{}
	for _, pattern := range patterns {
		method, path, _ := cut(pattern)
		b := bodies[pattern]
		data := map[string]any{"type": "object"}
		if b.data != nil {
			sc, err := jsonschema.ForType(b.data, schemaOptions)
			if err != nil {
				return nil, fmt.Errorf("openapi: %s answer: %w", pattern, err)
			}
			data = map[string]any{"$ref": "#/components/schemas/" + schemaName(b.data)}
			if err := addSchema(b.data, sc); err != nil {
				return nil, err
			}
		}
		op := map[string]any{
			"operationId": operationID(method, path),
			"summary":     method + " " + path,
			"responses": map[string]any{
				"200": map[string]any{"description": "ok: data holds the answer", "content": map[string]any{"application/json": map[string]any{
					"schema": map[string]any{"type": "object", "required": []string{"ok", "data"},
						"properties": map[string]any{"ok": map[string]any{"const": true}, "data": data}}}}},
				"default": map[string]any{"description": "an error: code names it (README, errors)", "content": map[string]any{
					"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}},
			},
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if b.req != nil {
			sc, err := jsonschema.ForType(b.req, schemaOptions)
			if err != nil {
				return nil, fmt.Errorf("openapi: %s body: %w", pattern, err)
			}
			if err := addSchema(b.req, sc); err != nil {
				return nil, err
			}
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{
				"schema": map[string]any{"$ref": "#/components/schemas/" + schemaName(b.req)}}}}
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(method)] = op
	}
	schemas.mu.Lock()
	comps := map[string]any{"Error": errorEnvelope}
	for k, v := range schemas.m {
		comps[k] = v
	}
	schemas.mu.Unlock()
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "webacq", "version": "1",
			"description": "Web acquisition for AI agents: search, fetch, gyre (crawl), extract and map, workspace keys and credits, monitors. Every answer is the envelope {ok, data} or {ok: false, error, code}. A JSON body is read as JSON whatever its Content-Type among none, application/json, application/x-www-form-urlencoded and text/plain."},
		"servers":  []any{map[string]any{"url": "/"}},
		"security": []any{map[string]any{"bearer": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas":         comps,
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "a workspace API key, mc_…"}},
		},
	}
	return json.MarshalIndent(doc, "", " ")
}

// schemas are the components, by name.
var schemas = struct {
	mu sync.Mutex
	m  map[string]*jsonschema.Schema
}{m: map[string]*jsonschema.Schema{}}

func addSchema(t reflect.Type, sc *jsonschema.Schema) error {
	schemas.mu.Lock()
	defer schemas.mu.Unlock()
	name := schemaName(t)
	if old, ok := schemas.m[name]; ok && old != sc {
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(sc)
		if string(a) != string(b) {
			return fmt.Errorf("openapi: two types named %s", name)
		}
	}
	schemas.m[name] = sc
	return nil
}

// schemaName names a type's component: its package and name.
func schemaName(t reflect.Type) string {
	if t.Name() == "" {
		return "Object"
	}
	pkg := t.PkgPath()
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	return strings.ToUpper(pkg[:1]) + pkg[1:] + strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
}

// operationID is method and path as one identifier.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, part := range strings.FieldsFunc(strings.TrimPrefix(path, "/api/v1/"), func(r rune) bool { return r == '/' || r == '-' || r == '{' || r == '}' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// serveOpenAPI answers the document.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := s.openAPI()
	if err != nil {
		s.log.Error("openapi", "err", err)
		http.Error(w, "the API description could not be built", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(doc)
}
