package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"webacq/internal/mcp"
	"webacq/internal/model"
	"webacq/internal/store"
)

// rpcShape checks that a reply is one JSON-RPC response object and returns
// its members.
func rpcShape(t *testing.T, r reply) map[string]json.RawMessage {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, body %q: want a JSON-RPC object", ct, r.body)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", r.body, err)
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if string(m["jsonrpc"]) != `"2.0"` || m["id"] == nil || hasResult == hasError {
		t.Fatalf("body %s is not a JSON-RPC response", r.body)
	}
	return m
}

func TestHostCheckAgainstDNSRebinding(t *testing.T) {
	t.Parallel()
	type probe struct {
		host, origin string
		want         int
	}
	cases := []struct {
		name  string
		opts  mcp.Options
		probe []probe
	}{
		{"loopback listener", mcp.Options{Addr: "127.0.0.1:8080"}, []probe{
			{"evil.example.com", "http://evil.example.com", 403}, // the rebinding attack: its own name, its own origin
			{"evil.example.com:8080", "", 403},
			{"localhost:8080", "", 200},
			{"LOCALHOST.:9999", "", 200},
			{"127.0.0.1:1234", "http://127.0.0.1:3000", 200},
			{"[::1]:8080", "", 200},
			{"localhost:8080", "http://evil.example.com", 403},
			{"localhost:8080", "null", 403},
			{"localhost:8080", "https://console.example.com", 200}, // WEBACQ_MCP_ALLOWED_ORIGINS
		}},
		{"public name", mcp.Options{BaseURL: "https://api.example.com", AllowedHosts: []string{"mcp.example.org"},
			CanonicalHost: "www.example.net", Addr: "0.0.0.0:8080"}, []probe{
			{"api.example.com", "https://api.example.com", 200},
			{"API.example.com:443", "", 200},
			{"mcp.example.org", "https://mcp.example.org:8443", 200},
			{"www.example.net", "", 200},
			{"localhost:8080", "", 403}, // not a loopback listener
			{"evil.example.com", "", 403},
			{"api.example.com", "http://evil.example.com", 403},
			{"", "", 403},
		}},
		{"no names, public listener", mcp.Options{Addr: "0.0.0.0:8080"}, []probe{
			{"anything.example", "", 200},
			{"anything.example", "http://anything.example", 200}, // the request's own host
			{"anything.example", "http://evil.example.com", 403},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.AllowedOrigins = []string{"https://console.example.com"}
			e := newEnvWith(t, store.SQLite, c.opts)
			for _, p := range c.probe {
				req, _ := http.NewRequest("POST", e.url+"/api/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Host = p.host
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+e.key)
				if p.origin != "" {
					req.Header.Set("Origin", p.origin)
				}
				r := e.send(req)
				if r.status != p.want {
					t.Errorf("Host %q Origin %q: %d %s, want %d", p.host, p.origin, r.status, r.body, p.want)
					continue
				}
				m := rpcShape(t, r)
				if p.want == 403 && (r.rpc.Error == nil || string(m["id"]) != "null") {
					t.Errorf("Host %q Origin %q: refusal %s", p.host, p.origin, r.body)
				}
			}
		})
	}
	if h := mcp.New(nil, nil, nil, nil, mcp.Options{Addr: "0.0.0.0:8080"}); !h.AnyHost() {
		t.Error("no names and a public listener: AnyHost is false")
	}
	for _, o := range []mcp.Options{{Addr: "127.0.0.1:8080"}, {Addr: "[::1]:8080"}, {Addr: "localhost:80"},
		{Addr: ":8080", BaseURL: "https://api.example.com"}, {Addr: ":8080", AllowedHosts: []string{"a.example"}}} {
		if mcp.New(nil, nil, nil, nil, o).AnyHost() {
			t.Errorf("%+v: AnyHost is true", o)
		}
	}
}

// Every refusal of the transport is a JSON-RPC error object with the
// status DECISIONS.md names, never plain text or the REST envelope.
func TestTransportErrorsAreJSONRPC(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	auth := []string{"Authorization", "Bearer " + e.key}
	cases := []struct {
		name   string
		body   string
		header []string
		status int
		code   int
		id     string // the id the error carries
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"nope/nope"}`, nil, 200, -32601, "5"},
		{"method not served", `{"jsonrpc":"2.0","id":"a","method":"prompts/list"}`, nil, 200, -32601, `"a"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, nil, 400, -32600, "5"},
		{"jsonrpc missing", `{"id":5,"method":"ping"}`, nil, 400, -32600, "5"},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":5,"method":"ping"}`, nil, 400, -32600, "5"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, nil, 400, -32600, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, nil, 400, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, 400, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, 400, -32600, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, -32600, "null"},
		{"method a number", `{"jsonrpc":"2.0","id":5,"method":7}`, nil, 400, -32600, "5"},
		{"duplicate member", `{"jsonrpc":"2.0","id":5,"method":"ping","method":"tools/call"}`, nil, 400, -32600, "null"},
		{"not an object", `"ping"`, nil, 400, -32600, "null"},
		{"null body", `null`, nil, 400, -32600, "null"},
		{"empty body", ``, nil, 400, -32700, "null"},
		{"malformed", `{"jsonrpc":"2.0",`, nil, 400, -32700, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":5,"method":"ping"} {}`, nil, 400, -32700, "null"},
		{"empty batch", `[]`, nil, 400, -32600, "null"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, nil, 400, -32600, "null"},
		{"params an array", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[]}`, nil, 200, -32602, "5"},
		{"call without params", `{"jsonrpc":"2.0","id":5,"method":"tools/call"}`, nil, 200, -32602, "5"},
		{"initialize without params", `{"jsonrpc":"2.0","id":5,"method":"initialize"}`, nil, 200, -32602, "5"},
		{"tool name a number", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}`, nil, 200, -32602, "5"},
		{"protocolVersion a number", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":5}}`, nil, 200, -32602, "5"},
		{"capabilities a string", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":"x"}}`, nil, 200, -32602, "5"},
		{"_meta a number", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":5}}`, nil, 200, -32602, "5"},
		{"unknown tool", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"svc_nope"}}`, nil, 200, -32602, "5"},
		{"too deep for the SDK", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":` + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + `}}`, nil, 400, -32600, "5"},
		{"wrong content type", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, []string{"Content-Type", "text/plain"}, 415, -32600, "null"},
		{"unsupported protocol version", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, []string{"MCP-Protocol-Version", "1999-01-01"}, 400, -32600, "null"},
		{"protocol version not served", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, []string{"MCP-Protocol-Version", "2026-07-28"}, 400, -32600, "null"},
		{"Last-Event-ID on POST", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, []string{"Last-Event-ID", "3"}, 400, -32600, "5"},
		{"oversized", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":"` + strings.Repeat("a", 2<<20) + `"}}`, nil, 413, -32600, "null"},
		{"conflicting keys", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, []string{"X-API-Key", model.NewKey()}, 401, -32001, "null"},
	}
	for _, c := range cases {
		r := e.post(c.body, append(slices.Clone(auth), c.header...)...)
		if r.status != c.status {
			t.Errorf("%s: status %d %.300s, want %d", c.name, r.status, r.body, c.status)
			continue
		}
		m := rpcShape(t, r)
		if r.rpc.Error == nil || r.rpc.Error.Code != c.code || string(m["id"]) != c.id || r.rpc.Error.Message == "" {
			t.Errorf("%s: %.300s, want code %d id %s", c.name, r.body, c.code, c.id)
		}
		if strings.Contains(r.rpc.Error.Message, "mcp.") || strings.Contains(r.rpc.Error.Message, "interface {}") {
			t.Errorf("%s: the message names Go types: %q", c.name, r.rpc.Error.Message)
		}
	}
	// None of them ran a tool or drew credits; each authenticated one is
	// logged as refused.
	if b := e.balance(e.ws.ID); b != 100 {
		t.Fatalf("balance %d after refused messages", b)
	}
	as, _ := e.activityOf(e.ws.ID, model.LogFilter{})
	if len(as) != len(cases)-1 {
		t.Errorf("%d activity rows for %d authenticated messages", len(as), len(cases)-1)
	}
	for _, a := range as {
		if a.ErrorCode != "bad_request" || a.Status < 400 || a.Credits != 0 {
			t.Errorf("row of a refused message: %+v", a)
		}
	}
}

// Notifications (known or not) and responses from the client answer 202
// with no body; a tools/call sent as a notification runs nothing.
func TestNotificationsAnswer202(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	s := site(t)
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"svc_fetch","arguments":{"url":"` + s.URL + `/","tier":"http"}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}`,
	} {
		r := e.post(body, "Authorization", "Bearer "+e.key)
		if r.status != 202 || len(r.body) != 0 {
			t.Errorf("%s: %d %q, want 202 with no body", body, r.status, r.body)
		}
	}
	if b := e.balance(e.ws.ID); b != 100 {
		t.Fatalf("a notification ran a tool: balance %d", b)
	}
}

// Ids are echoed exactly as sent, even those the SDK reads through a
// float64 (beyond 2^53, beyond int64, in exponent form), in results and
// errors, and for a tools/call that asked for an event stream.
func TestIDsEchoedExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	s := site(t)
	ids := []string{"92233720368547758070", "1e30", "123456789012345678901234567890", "9007199254740993",
		"-9223372036854775809", "-0", "7.0", "1E+2", "0", "42", `"str"`, `"9007199254740993"`}
	for _, id := range ids {
		for _, c := range []struct {
			body   string
			accept string
			ok     string
		}{
			{`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`, "", `"result":{}`},
			{`{"jsonrpc":"2.0","id":` + id + `,"method":"nope"}`, "", `"code":-32601`},
			{`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"svc_nope"}}`, "", `"code":-32602`},
			{`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"svc_fetch","arguments":{"url":"` + s.URL + `/","tier":"http"}}}`,
				"application/json, text/event-stream", `Revenue rose`},
		} {
			header := []string{"Authorization", "Bearer " + e.key}
			if c.accept != "" {
				header = append(header, "Accept", c.accept)
			}
			r := e.post(c.body, header...)
			data := r.body
			if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
				data = lastEvent(r.body)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(data, &m); err != nil || string(m["id"]) != id || !bytes.Contains(data, []byte(c.ok)) {
				t.Errorf("id %s, %.80s: %d %.300s", id, c.body, r.status, r.body)
			}
		}
	}
}

// Argument-validation failures are tool errors `bad_request: <message>`,
// in the words of the REST API for the same body.
func TestArgumentErrorsAreBadRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	cases := []struct {
		tool string
		args string
		want string // the message; "" when REST's must equal MCP's
	}{
		{"svc_fetch", `{"url":5}`, ""},
		{"svc_fetch", `{"url":"http://127.0.0.1:1/","bogus":1}`, ""},
		{"svc_fetch", `{"url":"http://127.0.0.1:1/","onlyMainContent":"yes"}`, ""},
		{"svc_fetch", `{"url":"http://127.0.0.1:1/","formats":"markdown"}`, ""},
		{"svc_fetch", `{"url":"http://127.0.0.1:1/","headers":{"a":1}}`, ""},
		{"svc_fetch", `{"url":"http://127.0.0.1:1/","timeout":1.5}`, ""},
		{"svc_fetch", `{}`, "url is required"},
		{"svc_fetch", `{"url":null}`, "url is required"},
		{"svc_gyre", `{"url":"http://127.0.0.1:1/","maxPages":"ten"}`, ""},
		{"svc_map", `{"url":["x"]}`, ""},
		{"svc_search", `{"query":{"q":1}}`, ""},
		{"svc_extract", `{"url":"http://127.0.0.1:1/","schema":[1]}`, ""},
		{"svc_fetch", `"http://127.0.0.1:1/"`, "arguments must be a JSON object, not a string"},
		{"svc_fetch", `[1]`, "arguments must be a JSON object, not an array"},
	}
	endpoint := map[string]string{"svc_fetch": "fetch", "svc_gyre": "gyre", "svc_map": "map", "svc_search": "search", "svc_extract": "extract"}
	for _, c := range cases {
		r := e.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, c.tool, c.args),
			"Authorization", "Bearer "+e.key)
		var res struct {
			IsError bool `json:"isError"`
			Content []struct{ Type, Text string }
		}
		json.Unmarshal(r.rpc.Result, &res)
		if r.status != 200 || r.rpc.Error != nil || !res.IsError || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, "bad_request: ") {
			t.Errorf("%s %s: %d %s, want one text item bad_request: …", c.tool, c.args, r.status, r.body)
			continue
		}
		got := strings.TrimPrefix(res.Content[0].Text, "bad_request: ")
		want := c.want
		if want == "" {
			want = restError(t, e, endpoint[c.tool], c.args)
		}
		if got != want {
			t.Errorf("%s %s: MCP says %q, want %q", c.tool, c.args, got, want)
		}
	}
	as, _ := e.activityOf(e.ws.ID, model.LogFilter{Limit: 1, Endpoint: "/api/v1/fetch"})
	if len(as) != 1 || as[0].Via != "mcp" || as[0].ErrorCode != "bad_request" || as[0].Status != 400 || as[0].Credits != 0 {
		t.Fatalf("row of refused arguments: %+v", as)
	}
	if b := e.balance(e.ws.ID); b != 100 {
		t.Fatalf("refused arguments drew credits: balance %d", b)
	}
}

// restError posts body to a REST endpoint and returns the message of its
// bad_request answer.
func restError(t *testing.T, e *env, endpoint, body string) string {
	t.Helper()
	code, msg := restCall(t, e, endpoint, body)
	if code != "bad_request" {
		t.Fatalf("REST %s %s: code %q, want bad_request", endpoint, body, code)
	}
	return msg
}

func restCall(t *testing.T, e *env, endpoint, body string) (code, msg string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/api/v1/"+endpoint, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		OK    bool
		Error string
		Code  string
	}
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("REST %s: %s", endpoint, b)
	}
	return env.Code, env.Error
}

// For every tool and every property of its input schema, null is accepted
// by REST exactly when it is accepted by MCP and admitted by the schema.
func TestNullFieldsMatchREST(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	e.store.AddCredits(ctx, e.ws.ID, 1000)
	r := e.rpc("tools/list", map[string]any{})
	var list struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Properties map[string]struct {
					Type json.RawMessage `json:"type"`
				} `json:"properties"`
			} `json:"inputSchema"`
		}
	}
	if err := json.Unmarshal(r.rpc.Result, &list); err != nil || len(list.Tools) != 5 {
		t.Fatalf("tools/list: %v %s", err, r.body)
	}
	base := map[string]map[string]any{
		"svc_fetch":   {"url": "http://127.0.0.1:1/", "tier": "http"},
		"svc_map":     {"url": "http://127.0.0.1:1/"},
		"svc_gyre":    {"url": "http://127.0.0.1:1/", "tier": "http"},
		"svc_extract": {"url": "http://127.0.0.1:1/", "intent": "the dividend", "prompt": "find the dividend"}, // one suffices
		"svc_search":  {"query": "revenue"},
	}
	checked := 0
	for _, tl := range list.Tools {
		props := make([]string, 0, len(tl.InputSchema.Properties))
		for p := range tl.InputSchema.Properties {
			props = append(props, p)
		}
		sort.Strings(props)
		for _, p := range props {
			if p == "maxTokens" {
				continue // MCP only (the result's cap): REST has no such field
			}
			var types []string
			if json.Unmarshal(tl.InputSchema.Properties[p].Type, &types) != nil {
				var one string
				json.Unmarshal(tl.InputSchema.Properties[p].Type, &one)
				types = []string{one}
			}
			schemaNull := slices.Contains(types, "null") || len(tl.InputSchema.Properties[p].Type) == 0
			args := map[string]any{}
			for k, v := range base[tl.Name] {
				args[k] = v
			}
			args[p] = nil
			body, _ := json.Marshal(args)
			restCode, restMsg := restCall(t, e, strings.TrimPrefix(tl.Name, "svc_"), string(body))
			text, _ := e.callTool(tl.Name, args)
			mcpRefused := strings.HasPrefix(text, "bad_request: ")
			restRefused := restCode == "bad_request"
			if restRefused != mcpRefused || restRefused == schemaNull {
				t.Errorf("%s %s: null refused by REST %v (%s), by MCP %v (%q); schema admits null %v",
					tl.Name, p, restRefused, restMsg, mcpRefused, text, schemaNull)
			}
			if restRefused && text != "bad_request: "+restMsg {
				t.Errorf("%s %s: MCP %q, REST %q", tl.Name, p, text, restMsg)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d properties checked", checked)
	}
}

// A request naming two different keys is refused, whichever is valid; the
// same key twice is fine, as is another scheme beside X-API-Key.
func TestConflictingCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	w2, k2 := e.workspace("other", 100)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cases := []struct {
		header []string
		status int
	}{
		{[]string{"X-API-Key", e.key, "Authorization", "Bearer " + k2}, 401},
		{[]string{"X-API-Key", e.key, "Authorization", k2}, 401},
		{[]string{"X-API-Key", e.key, "Authorization", "Bearer " + model.NewKey()}, 401},
		{[]string{"X-API-Key", model.NewKey(), "Authorization", "Bearer " + e.key}, 401},
		{[]string{"X-API-Key", e.key, "Authorization", "Bearer " + e.key}, 200},
		{[]string{"X-API-Key", e.key, "Authorization", "Basic dXNlcjpwYXNz"}, 200},
	}
	for _, c := range cases {
		r := e.post(ping, c.header...)
		if r.status != c.status {
			t.Errorf("%v: %d %s, want %d", c.header, r.status, r.body, c.status)
			continue
		}
		if c.status == 401 {
			m := rpcShape(t, r)
			if r.rpc.Error == nil || r.rpc.Error.Code != -32001 || string(m["id"]) != "null" {
				t.Errorf("%v: %s", c.header, r.body)
			}
		}
	}
	// Two X-API-Key headers naming different keys.
	req, _ := http.NewRequest("POST", e.url+"/api/mcp", strings.NewReader(ping))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("X-API-Key", e.key)
	req.Header.Add("X-API-Key", k2)
	if r := e.send(req); r.status != 401 {
		t.Errorf("two X-API-Key headers: %d %s", r.status, r.body)
	}
	// Refused credentials are never logged against either workspace: the
	// two accepted pings are the only rows.
	if us, _ := e.usage(e.ws.ID, model.LogFilter{}); len(us) != 2 {
		t.Errorf("%d usage rows of %s, want 2", len(us), e.ws.Name)
	}
	if us, _ := e.usage(w2.ID, model.LogFilter{}); len(us) != 0 {
		t.Errorf("%d usage rows of %s, want 0", len(us), w2.Name)
	}
}
