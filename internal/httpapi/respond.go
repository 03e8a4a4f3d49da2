package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"webacq/internal/model"
)

// MaxBodyBytes caps request bodies (DECISIONS.md: 413 beyond 1 MiB).
const MaxBodyBytes = 1 << 20

type envelope struct {
	OK    bool   `json:"ok"`
	Data  any    `json:"data,omitempty"`
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

// respond writes a success envelope.
func respond(w http.ResponseWriter, r *http.Request, data any) {
	writeJSON(w, http.StatusOK, envelope{OK: true, Data: data})
	infoOf(r).status = http.StatusOK
}

// fail writes the error envelope for err. Errors without a code are
// internal: logged with the request id, answered with a generic message.
func fail(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := model.ErrorCode(err)
	status := model.Status(code)
	if errors.Is(err, errTooLarge) {
		status = http.StatusRequestEntityTooLarge
	}
	msg := model.ErrorMessage(err)
	if code == model.CodeInternal || code == model.CodeUnavailable {
		log.Error("request failed", "request_id", requestID(r), "method", r.Method, "path", r.URL.Path, "code", code, "err", err)
	}
	var me *model.Error
	if errors.As(err, &me) && me.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(me.RetryAfter.Seconds()+0.999)))
	}
	writeJSON(w, status, envelope{Error: msg, Code: code})
	in := infoOf(r)
	in.status = status
	if in.call != nil {
		in.call.ErrorCode = code
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"ok":false,"error":"internal error","code":"internal"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	// Two writes rather than append, which could copy a large body.
	w.Write(b)
	w.Write([]byte{'\n'})
}

// decode reads a JSON request body into v: one object, no unknown fields,
// no trailing data, at most MaxBodyBytes.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return model.Errorf(model.CodeBadRequest, "Content-Type must be application/json")
		}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if dec.More() {
		return model.Errorf(model.CodeBadRequest, "request body must hold a single JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return model.Errorf(model.CodeBadRequest, "request body must hold a single JSON object")
	}
	return nil
}

// errTooLarge is answered with 413.
var errTooLarge = model.Errorf(model.CodeBadRequest, "request body is larger than 1 MiB")

func decodeError(err error) error {
	var maxErr *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &maxErr):
		return errTooLarge
	case errors.Is(err, io.EOF):
		return model.Errorf(model.CodeBadRequest, "request body is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return model.Errorf(model.CodeBadRequest, "request body is truncated JSON")
	case errors.As(err, &syntax):
		return model.Errorf(model.CodeBadRequest, "malformed JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return model.Errorf(model.CodeBadRequest, "field %q must be %s, not %s", typ.Field, jsonType(typ.Type.Kind().String()), typ.Value)
		}
		return model.Errorf(model.CodeBadRequest, "request body must be a JSON object, not %s", typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return model.Errorf(model.CodeBadRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return model.Errorf(model.CodeBadRequest, "invalid JSON body")
}

func jsonType(kind string) string {
	switch kind {
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
