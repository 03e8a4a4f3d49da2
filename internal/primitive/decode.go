package primitive

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"webacq/internal/model"
)

// MaxRequestBytes caps a request's JSON (a REST body or a tool call's
// arguments).
const MaxRequestBytes = 1 << 20

// ErrRequestTooLarge reports JSON over MaxRequestBytes (413 on REST).
var ErrRequestTooLarge = model.Errorf(model.CodeBadRequest, "request body is larger than 1 MiB")

// DecodeRequest reads one JSON object from r into v by the rules that every
// transport shares, so that REST and MCP take and refuse the same
// requests: one object, no unknown fields, nothing after it, null for a
// field meaning "not given". Failures are bad_request in words that name
// subject ("request body", "arguments"); a reader that stops at the size
// cap (http.MaxBytesReader) gives ErrRequestTooLarge.
func DecodeRequest(r io.Reader, v any, subject string) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, subject)
	}
	if _, err := dec.Token(); err != io.EOF {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return ErrRequestTooLarge
		}
		return model.Errorf(model.CodeBadRequest, "%s must hold a single JSON object", subject)
	}
	return nil
}

func decodeError(err error, subject string) error {
	var maxErr *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &maxErr):
		return ErrRequestTooLarge
	case errors.Is(err, io.EOF):
		return model.Errorf(model.CodeBadRequest, "%s is empty: send a JSON object", subject)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return model.Errorf(model.CodeBadRequest, "%s is truncated JSON", subject)
	case errors.As(err, &syntax):
		return model.Errorf(model.CodeBadRequest, "malformed JSON in %s at byte %d", subject, syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return model.Errorf(model.CodeBadRequest, "field %q must be %s, not %s", typ.Field, JSONType(typ.Type.Kind().String()), JSONValue(typ.Value))
		}
		return model.Errorf(model.CodeBadRequest, "%s must be a JSON object, not %s", subject, JSONValue(typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return model.Errorf(model.CodeBadRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return model.Errorf(model.CodeBadRequest, "%s is not valid JSON", subject)
}

// JSONValue says what the JSON decoder found, as people write it: "1.5"
// for "number 1.5", "a string" for "string".
func JSONValue(v string) string {
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	switch v {
	case "string", "number", "object", "array":
		return JSONType(map[string]string{"string": "string", "number": "float64", "object": "map", "array": "slice"}[v])
	case "bool":
		return "a boolean"
	}
	return v
}

// JSONType names a Go kind as a JSON type, as error messages say it.
func JSONType(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64":
		return "a whole number"
	case "uint", "uint8", "uint16", "uint32", "uint64", "uintptr":
		return "a whole number, 0 or more"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "a number"
}
