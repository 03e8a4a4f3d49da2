package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"webacq/internal/model"
	"webacq/internal/primitive"
)

// MaxBodyBytes caps request bodies (DECISIONS.md: 413 beyond 1 MiB).
const MaxBodyBytes = primitive.MaxRequestBytes

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
//
// The body is read as JSON whatever its Content-Type says among those a
// shell sends by default: none, application/json (or +json), and the
// form and plain-text types that `curl -d` and many HTTP clients set
// unless told otherwise (issue 22: pasted examples must work). Keys are
// bearer tokens, which a browser never attaches by itself, so accepting
// these simple types opens no cross-site hole (the console, which uses
// cookies, keeps its own rules). Other types (multipart, files) are
// refused.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	lenient := false
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")):
		case err == nil && (mt == "application/x-www-form-urlencoded" || mt == "text/plain"):
			lenient = true
		default:
			return model.Errorf(model.CodeBadRequest, "Content-Type must be application/json (a JSON object); got %q", ct)
		}
	}
	err := primitive.DecodeRequest(http.MaxBytesReader(w, r.Body, MaxBodyBytes), v, "request body")
	if lenient && err != nil && model.ErrorCode(err) == model.CodeBadRequest {
		if me, ok := err.(*model.Error); ok {
			return model.Errorf(model.CodeBadRequest, "%s (the body is read as JSON whatever its Content-Type: send a JSON object, e.g. curl -H 'Content-Type: application/json' -d '{\"url\":\"https://example.com\"}')", me.Message)
		}
	}
	return err
}

// errTooLarge is answered with 413.
var errTooLarge = primitive.ErrRequestTooLarge
