package llm

import (
	"context"
	"strings"
	"testing"
	"time"

	"webacq/internal/model"
)

// TestSchemaLoopsRefused: a schema in which a subschema reaches itself
// without going into a property or an item is refused with bad_request
// before any model is asked. The validator followed such a loop until
// the stack overflowed, a fatal error that ended the whole node: one
// extract request of any workspace could stop it.
func TestSchemaLoopsRefused(t *testing.T) {
	for _, s := range []string{
		`{"$ref":"#"}`,
		`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"$ref":"#/properties/x"}]}}}`,
		`{"definitions":{"a":{"not":{"$ref":"#/definitions/a"}}},"properties":{"p":{"$ref":"#/definitions/a"}}}`,
		`{"$defs":{"a":{"if":{"$ref":"#/$defs/a"}}},"properties":{"p":{"$ref":"#/$defs/a"}}}`,
		`{"$defs":{"a":{"$anchor":"here","oneOf":[{"$ref":"#here"}]}},"properties":{"p":{"$ref":"#here"}}}`,
		`{"$defs":{"a":{"$dynamicAnchor":"node","$dynamicRef":"#node"}},"properties":{"p":{"$ref":"#/$defs/a"}}}`,
		`{"$defs":{"r":{"$id":"https://example.com/r","$defs":{"c":{"$ref":"#/$defs/c"}},"$ref":"#/$defs/c"}},"properties":{"p":{"$ref":"#/$defs/r"}}}`,
		`{"$defs":{"a~b/c":{"$ref":"#/$defs/a~0b~1c"}},"properties":{"p":{"$ref":"#/$defs/a~0b~1c"}}}`,
		`{"$defs":{"a b":{"$ref":"#/$defs/a%20b"}},"properties":{"p":{"$ref":"#/$defs/a%20b"}}}`,
		`{"dependentSchemas":{"p":{"$ref":"#"}},"properties":{"p":{"type":"string"}}}`,
	} {
		_, err := CompileSchema([]byte(s))
		if model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(model.ErrorMessage(err), "never end") {
			t.Errorf("%s: %v, want bad_request: validation would never end", s, err)
		}
	}
	// Recursion through a property or an item ends with the value: kept.
	for _, s := range []string{
		`{"type":"object","properties":{"name":{"type":"string"},"replies":{"type":"array","items":{"$ref":"#"}}}}`,
		`{"$defs":{"node":{"type":"object","properties":{"child":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`,
		`{"$defs":{"p":{"type":"number"}},"type":"object","properties":{"price":{"$ref":"#/$defs/p"}},"required":["price"]}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"},"y":{"$ref":"#/$defs/a"}}}`,
	} {
		if _, err := CompileSchema([]byte(s)); err != nil {
			t.Errorf("%s: %v, want it accepted", s, err)
		}
	}
	if _, err := CompileSchema([]byte(`{"$ref":"other.json"}`)); model.ErrorCode(err) != model.CodeBadRequest {
		t.Errorf("a reference out of the schema: %v, want bad_request", err)
	}

	// Through Extract, before the model is called; a recursive schema
	// that descends still validates a nested answer.
	f := newFakeProvider(t, func(i int, c call) (int, string) {
		return 200, chatAnswer(`{"found":true,"data":[{"name":"a","replies":[{"name":"b","replies":[{"name":"c"}]}]}]}`)
	})
	c := newOpenAI(t, f, nil)
	_, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices",
		Schema: []byte(`{"$defs":{"a":{"$ref":"#/$defs/a"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}`)})
	if model.ErrorCode(err) != model.CodeBadRequest || len(f.recorded()) != 0 {
		t.Errorf("extract with a looping schema: %v after %d calls, want bad_request before any", err, len(f.recorded()))
	}
	node := `{"type":"object","properties":{"name":{"type":"string"},"replies":{"type":"array","items":{"$ref":"#/$defs/node"}}}}`
	res, err := Extract(context.Background(), c, ExtractInput{Markdown: pricesPage, Intent: "prices",
		Schema: []byte(strings.TrimSuffix(node, "}") + `,"$defs":{"node":` + node + `}}`)})
	if err != nil || !res.Found || len(res.Data) != 1 {
		t.Errorf("recursive schema: %+v %v", res, err)
	}
}

// TestSchemaDepthBounded: a schema nested deeper than maxSchemaDepth is
// refused at once; resolving 1,700 levels (what the 64 KB request limit
// holds) took 5 s of CPU.
func TestSchemaDepthBounded(t *testing.T) {
	nested := func(n int) []byte {
		return []byte(strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n))
	}
	if _, err := CompileSchema(nested(maxSchemaDepth)); err != nil {
		t.Errorf("%d levels: %v", maxSchemaDepth, err)
	}
	start := time.Now()
	_, err := CompileSchema(nested(1700))
	if model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(model.ErrorMessage(err), "deeper than") {
		t.Errorf("1,700 levels: %v, want bad_request", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing 1,700 levels took %v", d)
	}
	// The envelope adds its levels to the caller's.
	if _, err := newEnvelope(nested(maxSchemaDepth)); err != nil {
		t.Errorf("envelope of %d levels: %v", maxSchemaDepth, err)
	}
}
