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
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return model.Errorf(model.CodeBadRequest, "Content-Type must be application/json")
		}
	}
	return primitive.DecodeRequest(http.MaxBytesReader(w, r.Body, MaxBodyBytes), v, "request body")
}

// errTooLarge is answered with 413.
var errTooLarge = primitive.ErrRequestTooLarge
