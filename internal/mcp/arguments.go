package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"webacq/internal/primitive"
)

// inputSchemas are the tools' input schemas by tool name, generated once
// from the Go types the REST handlers decode.
var inputSchemas = map[string]*jsonschema.Schema{
	"svc_fetch":   inputSchema[primitive.FetchRequest](),
	"svc_map":     inputSchema[primitive.MapRequest](),
	"svc_extract": inputSchema[primitive.ExtractRequest](),
	"svc_gyre":    gyreInputSchema(),
	"svc_search":  inputSchema[primitive.SearchRequest](),
}

// inputSchema is the JSON Schema of a REST body type, with every optional
// property nullable: the REST decoder (encoding/json) takes null for any
// field as "not given", so the schema admits it too. Required properties
// stay non-null: null there is refused as missing.
func inputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(T), err))
	}
	for name, p := range s.Properties {
		if p == nil || slices.Contains(s.Required, name) {
			continue
		}
		switch {
		case p.Type != "":
			p.Types, p.Type = []string{"null", p.Type}, ""
		case len(p.Types) > 0 && !slices.Contains(p.Types, "null"):
			p.Types = append([]string{"null"}, p.Types...)
		}
	}
	return s
}

// decodeArguments decodes a tool's arguments into v by the rules of a REST
// body: one JSON object, no unknown fields, null as "not given". Absent
// arguments are an empty object. Failures are bad_request in the REST
// handler's words, with "arguments" for "request body".
func decodeArguments(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	return primitive.DecodeRequest(bytes.NewReader(raw), v, "arguments")
}
