package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"webacq/internal/model"
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

// maxTokensArgument is the one argument a tool takes beyond its REST body:
// the cap of its result (capResult), which only MCP has. Its name follows
// the REST body's (maxPages, maxCredits); like the body's fields it is
// matched without regard to case and null means "not given".
const maxTokensArgument = "maxTokens"

func init() {
	lo, hi := float64(MinMaxTokens), float64(HardMaxTokens)
	for _, s := range inputSchemas {
		s.Properties[maxTokensArgument] = &jsonschema.Schema{Types: []string{"null", "integer"}, Minimum: &lo, Maximum: &hi,
			Description: fmt.Sprintf("MCP only: the most tokens of text the result may hold, from %d to %d; default %d "+
				"(a token is 4 bytes). A longer result keeps whole items in order and says in its cut member what was left out",
				MinMaxTokens, HardMaxTokens, DefaultMaxTokens)}
	}
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

// takeMaxTokens takes the maxTokens argument out of a tool's arguments,
// returning the others (the REST body) and the cap (def when not given).
// Arguments that are not a JSON object are returned as they are, for
// decodeArguments to refuse in the REST body's words.
func takeMaxTokens(raw json.RawMessage, def int) (json.RawMessage, int, error) {
	members, err := objectInOrder(raw)
	if err != nil {
		return raw, def, nil
	}
	var rest []member
	var found json.RawMessage
	for _, m := range members {
		if strings.EqualFold(m.key, maxTokensArgument) {
			found = m.raw // the last one counts, as for a body's field
			continue
		}
		rest = append(rest, m)
	}
	if found == nil {
		return raw, def, nil
	}
	var v struct {
		MaxTokens *int `json:"maxTokens"`
	}
	body := joinObject([]member{{key: maxTokensArgument, raw: found}})
	if err := primitive.DecodeRequest(bytes.NewReader(body), &v, "arguments"); err != nil {
		return nil, 0, err
	}
	if v.MaxTokens == nil {
		return joinObject(rest), def, nil
	}
	if n := *v.MaxTokens; n < MinMaxTokens || n > HardMaxTokens {
		return nil, 0, model.Errorf(model.CodeBadRequest, "maxTokens must be between %d and %d", MinMaxTokens, HardMaxTokens)
	}
	return joinObject(rest), *v.MaxTokens, nil
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
