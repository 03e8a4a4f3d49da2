package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"webacq/internal/model"
)

// CompileSchema checks that raw is a JSON Schema object that can be used
// for extraction (references resolved locally, nothing fetched). Its
// errors have code bad_request and describe the schema's fault.
func CompileSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	return compileSchema(raw, maxSchemaDepth)
}

// envelopeDepth is how much deeper the envelope puts the caller's schema
// (properties, data, items).
const envelopeDepth = 3

// compileSchema is CompileSchema with subschemas nested at most depth
// levels.
func compileSchema(raw json.RawMessage, depth int) (*jsonschema.Resolved, error) {
	var probe any
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, model.Errorf(model.CodeBadRequest, "schema is not valid JSON")
	}
	if _, ok := probe.(map[string]any); !ok {
		return nil, model.Errorf(model.CodeBadRequest, "schema must be a JSON Schema object")
	}
	if err := checkTypes(probe); err != nil {
		return nil, model.Errorf(model.CodeBadRequest, "schema is not a valid JSON Schema: %s", err)
	}
	if err := checkLoops(probe, depth); err != nil {
		return nil, model.Errorf(model.CodeBadRequest, "schema cannot be used: %s", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, model.Errorf(model.CodeBadRequest, "schema is not a valid JSON Schema: %s", truncate(err.Error(), 300))
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, model.Errorf(model.CodeBadRequest, "schema is not a valid JSON Schema: %s", truncate(err.Error(), 300))
	}
	return r, nil
}

var (
	// schemaKeywords hold one subschema, schemaMaps a map of them and
	// schemaLists a list of them (or one, for items before 2020-12).
	schemaKeywords = []string{"not", "if", "then", "else", "additionalProperties", "contains", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "additionalItems", "items"}
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	typeNames   = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}
)

// checkTypes reports a "type" that names no JSON type anywhere in a
// schema, the typo the resolver lets through ("str", "int", "list").
func checkTypes(v any) error {
	s, ok := v.(map[string]any)
	if !ok {
		return nil // true, false, or a fault the resolver reports
	}
	switch t := s["type"].(type) {
	case nil:
	case string:
		if !typeNames[t] {
			return fmt.Errorf("type %q is not one of null, boolean, object, array, number, integer, string", t)
		}
	case []any:
		for _, x := range t {
			if x, ok := x.(string); !ok || !typeNames[x] {
				return fmt.Errorf("type %v is not a list of JSON type names", t)
			}
		}
	default:
		return fmt.Errorf("type must be a string or a list of strings")
	}
	for _, k := range schemaKeywords {
		if err := checkTypes(s[k]); err != nil {
			return err
		}
	}
	for _, k := range schemaMaps {
		m, _ := s[k].(map[string]any)
		for _, sub := range m {
			if err := checkTypes(sub); err != nil {
				return err
			}
		}
	}
	for _, k := range schemaLists {
		l, _ := s[k].([]any)
		for _, sub := range l {
			if err := checkTypes(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// envelope is the schema of one model answer, {found, data: [item]}, and
// the item schema shown in the prompt.
type envelope struct {
	raw      json.RawMessage // the whole answer's schema, sent to the provider
	item     json.RawMessage // the schema of one object of data
	resolved *jsonschema.Resolved
}

// newEnvelope wraps the caller's schema (nil: free-form objects). An object
// schema describes one item of data; an array schema's items do; any other
// schema describes the field "value" of each item. $defs and definitions
// move to the envelope's root so that local references keep resolving.
func newEnvelope(user json.RawMessage) (*envelope, error) {
	item := map[string]any{"type": "object"}
	root := map[string]any{"type": "object"}
	if len(user) > 0 && string(user) != "null" {
		var u map[string]any
		if err := json.Unmarshal(user, &u); err != nil {
			return nil, model.Errorf(model.CodeBadRequest, "schema must be a JSON Schema object")
		}
		// "#" and "#/..." outside the definitions point at the caller's
		// root, which is no longer the document's root: they are
		// rewritten (in the definitions too) to point at a copy of it
		// among the envelope's definitions.
		toRoot := rootRefs(u, 0)
		for _, k := range []string{"$defs", "definitions"} {
			if d, ok := u[k]; ok {
				root[k] = d
				delete(u, k)
			}
		}
		if v, ok := u["$schema"]; ok {
			root["$schema"] = v
		}
		delete(u, "$schema")
		delete(u, "$id")
		if toRoot {
			defs, _ := root["$defs"].(map[string]any)
			if defs == nil {
				defs = map[string]any{}
				root["$defs"] = defs
			}
			defs[callerRoot] = u
		}
		item = itemSchema(u)
	}
	root["properties"] = map[string]any{
		"found": map[string]any{"type": "boolean", "description": "whether the page contains what was asked for"},
		"data":  map[string]any{"type": "array", "items": item},
	}
	root["required"] = []string{"found", "data"}
	root["additionalProperties"] = false
	full, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("llm: envelope: %w", err)
	}
	resolved, err := compileSchema(full, maxSchemaDepth+envelopeDepth)
	if err != nil {
		return nil, err
	}
	// Providers get the schema without $schema, which some refuse; the
	// draft only matters to validation here.
	delete(root, "$schema")
	raw, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("llm: envelope: %w", err)
	}
	itemRaw, err := json.Marshal(item)
	if err != nil {
		return nil, fmt.Errorf("llm: envelope: %w", err)
	}
	return &envelope{raw: raw, item: itemRaw, resolved: resolved}, nil
}

// callerRoot names the caller's schema among the envelope's $defs when
// its references point at its own root.
const callerRoot = "webacq_caller"

// rootRefs rewrites, in the schema v, every $ref to the caller's root
// ("#") or to a place under it other than its definitions ("#/properties/
// x", "#/items") so that it points at the same place under
// #/$defs/webacq_caller, and reports whether it rewrote any. Values that
// are data (const, enum, default, examples) are not read. depth is
// bounded by the schema's own depth check (compileSchema).
func rootRefs(v any, depth int) bool {
	if depth > maxSchemaDepth+envelopeDepth {
		return false
	}
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			switch k {
			case "const", "enum", "default", "examples":
				continue
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				// Names to schemas: a property named "default" is a
				// schema like any other.
				if m, ok := c.(map[string]any); ok {
					for _, sc := range m {
						if rootRefs(sc, depth+1) {
							changed = true
						}
					}
					continue
				}
			case "$ref":
				r, ok := c.(string)
				if !ok {
					continue
				}
				switch {
				case r == "#":
					t[k] = "#/$defs/" + callerRoot
					changed = true
				case strings.HasPrefix(r, "#/") && !strings.HasPrefix(r, "#/$defs/") && !strings.HasPrefix(r, "#/definitions/"):
					t[k] = "#/$defs/" + callerRoot + r[1:]
					changed = true
				}
				continue
			}
			if rootRefs(c, depth+1) {
				changed = true
			}
		}
	case []any:
		for _, c := range t {
			if rootRefs(c, depth+1) {
				changed = true
			}
		}
	}
	return changed
}

func itemSchema(u map[string]any) map[string]any {
	switch schemaType(u) {
	case "array":
		it, _ := u["items"].(map[string]any)
		if it == nil {
			return map[string]any{"type": "object"}
		}
		if t := schemaType(it); t == "object" || t == "" {
			return it
		}
		return valueItem(it)
	case "object", "":
		return u
	}
	return valueItem(u)
}

func valueItem(s map[string]any) map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"value": s},
		"required":   []string{"value"},
	}
}

// schemaType is a schema's single type, "object" for a schema with
// properties and no type, and "" when it does not say.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		// ["object", "null"] and the like: the non-null type decides.
		var one string
		for _, x := range t {
			if x, _ := x.(string); x != "" && x != "null" {
				if one != "" {
					return ""
				}
				one = x
			}
		}
		return one
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

// ErrTruncated marks an answer that ends inside its JSON; a Client may
// return it for an answer the provider cut at the output limit.
var ErrTruncated = errors.New("the answer ended before its JSON was complete (cut off)")

// check parses a model answer, repairs what can be repaired (code fences,
// prose around the JSON, a bare data array, a single object), and
// validates it against the envelope.
func (e *envelope) check(answer string) (found bool, data []map[string]any, err error) {
	v, err := parseJSON(answer)
	if err != nil {
		return false, nil, err
	}
	m := normalize(v)
	if err := e.resolved.Validate(m); err != nil {
		return false, nil, fmt.Errorf("the JSON does not match the schema: %s", truncate(err.Error(), 600))
	}
	found, _ = m["found"].(bool)
	items, _ := m["data"].([]any)
	data = make([]map[string]any, 0, len(items))
	for _, it := range items {
		if o, ok := it.(map[string]any); ok {
			data = append(data, o)
		}
	}
	return found, data, nil
}

// normalize shapes a parsed answer as {found, data}. A found of false
// drops data (small models fill in placeholders), and so do items without
// a single non-empty value.
func normalize(v any) map[string]any {
	var m map[string]any
	switch x := v.(type) {
	case []any:
		m = map[string]any{"data": x}
	case map[string]any:
		_, hasData := x["data"]
		_, hasFound := x["found"]
		switch {
		case !hasData && !hasFound && empty(x):
			m = map[string]any{"found": false, "data": []any{}}
		case !hasData && !hasFound:
			m = map[string]any{"found": true, "data": []any{x}}
		default:
			m = x
		}
	default:
		return map[string]any{"found": v, "data": []any{}}
	}
	switch d := m["data"].(type) {
	case nil:
		m["data"] = []any{}
	case map[string]any:
		m["data"] = []any{d}
	}
	if items, ok := m["data"].([]any); ok {
		kept := items[:0:0]
		for _, it := range items {
			if !empty(it) {
				kept = append(kept, it)
			}
		}
		m["data"] = kept
		if _, ok := m["found"]; !ok {
			m["found"] = len(kept) > 0
		}
	}
	if f, ok := m["found"].(bool); ok && !f {
		m["data"] = []any{}
	}
	return m
}

// empty says whether an item carries no value at all.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		for _, y := range x {
			if !empty(y) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, y := range x {
			if !empty(y) {
				return false
			}
		}
		return true
	}
	return false
}

// parseJSON reads the JSON value of a model answer: the whole text, else
// the inside of a code fence, else the first balanced object or array in
// the text.
func parseJSON(answer string) (any, error) {
	s := strings.TrimSpace(answer)
	if s == "" {
		return nil, errors.New("the answer was empty")
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return v, nil
	}
	if f, ok := fenced(s); ok {
		if err := json.Unmarshal([]byte(f), &v); err == nil {
			return v, nil
		}
		s = f
	}
	start := strings.IndexAny(s, "{[")
	if start < 0 {
		return nil, errors.New("the answer holds no JSON object")
	}
	end, ok := balanced(s[start:])
	if !ok {
		return nil, ErrTruncated
	}
	if err := json.Unmarshal([]byte(s[start:start+end]), &v); err != nil {
		return nil, fmt.Errorf("the answer is not valid JSON: %v", err)
	}
	return v, nil
}

// fenced returns the body of the first ``` code fence in s; an unclosed
// fence runs to the end.
func fenced(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	rest := s[i+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[nl+1:] // the info string (json, JSON, …)
	} else {
		return "", false
	}
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest), true
}

// balanced returns the length of the JSON object or array that s starts
// with, skipping brackets inside strings; ok is false when s ends first.
func balanced(s string) (n int, ok bool) {
	depth := 0
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}
