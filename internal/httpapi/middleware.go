package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"webacq/internal/billing"
	"webacq/internal/metrics"
	"webacq/internal/model"
)

// reqInfo travels with a request through the middleware.
type reqInfo struct {
	id      string
	started time.Time
	status  int
	call    *billing.Call // set once the request is authenticated
	route   string        // the /api/v1 route pattern's path, once routed
}

type ctxKey struct{}

func infoOf(r *http.Request) *reqInfo {
	if in, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
		return in
	}
	return &reqInfo{} // outside the middleware (handlers called directly)
}

func requestID(r *http.Request) string { return infoOf(r).id }

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Status is the status written so far (0: none yet).
func (w *statusWriter) Status() int { return w.status }

// Flush sends buffered data (server-sent events of the MCP endpoint).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// outer gives every request an id, an access-log line, panic recovery, the
// canonical-host redirect and the body cap.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := &reqInfo{id: newRequestID(), started: time.Now()}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, in))
		w.Header().Set("X-Request-Id", in.id)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "request_id", in.id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					fail(sw, r, s.log, fmt.Errorf("panic: %v", v))
				}
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK // nothing written: net/http answers 200
			}
			metrics.Request(routeOf(r, in), r.Method, status, time.Since(in.started))
			if s.cfg.AccessLog {
				attrs := []any{"request_id", in.id, "method", r.Method, "path", r.URL.Path, "status", sw.status,
					"duration_ms", float64(time.Since(in.started).Microseconds()) / 1000}
				if in.call != nil {
					attrs = append(attrs, "workspace_id", in.call.Principal.WorkspaceID)
				}
				s.log.Info("request", attrs...)
			}
		}()
		if h := s.cfg.CanonicalHost; h != "" && !strings.EqualFold(r.Host, h) {
			target := s.cfg.Scheme() + "://" + h + r.URL.RequestURI()
			http.Redirect(sw, r, target, http.StatusTemporaryRedirect)
			return
		}
		// The MCP endpoint caps its body itself and answers in JSON-RPC.
		if r.ContentLength > MaxBodyBytes && r.URL.Path != "/api/mcp" {
			fail(sw, r, s.log, errTooLarge)
			return
		}
		next.ServeHTTP(sw, r)
	})
}

// authenticate guards /api/v1/*: a bearer key in the Authorization header is
// the only credential (spec section 5). A failed authentication is answered
// before anything runs and writes nothing. An authenticated request writes
// its usage and activity rows when it ends.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := infoOf(r)
		key, err := bearerKey(r.Header.Get("Authorization"))
		// Two Authorization headers naming different keys are refused, as on
		// MCP: the request is never run under a key its sender did not mean.
		if v := r.Header.Values("Authorization"); err == nil && slices.ContainsFunc(v[1:], func(s string) bool { return s != v[0] }) {
			err = model.Errorf(model.CodeUnauthorized, "conflicting credentials: the request names more than one key")
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="webacq"`)
			fail(w, r, s.log, err)
			return
		}
		p, err := s.store.Authenticate(r.Context(), key)
		if err != nil {
			if model.ErrorCode(err) == model.CodeUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="webacq", error="invalid_token"`)
			}
			fail(w, r, s.log, err)
			return
		}
		in.call = &billing.Call{
			Principal: p, Endpoint: r.URL.Path, Via: model.ViaHTTP, Method: r.Method,
			RequestID: in.id, Started: in.started,
		}
		defer func() {
			v := recover()
			if v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "request_id", in.id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if in.status == 0 {
					fail(w, r, s.log, fmt.Errorf("panic: %v", v))
				}
			}
			if in.status == 0 {
				in.status = http.StatusOK
			}
			// A no-op when the handler settled the call itself.
			if err := s.biller.Finish(r.Context(), in.call, 0, in.status); err != nil {
				s.log.Error("record usage", "request_id", in.id, "err", err)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// bearerKey returns the key of an `Authorization: Bearer mc_…` header. The
// `mc_` form is checked before any lookup.
func bearerKey(h string) (string, error) {
	if h == "" {
		return "", model.Errorf(model.CodeUnauthorized, "missing API key: send Authorization: Bearer mc_…")
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", model.Errorf(model.CodeUnauthorized, "unsupported authorization scheme: send Authorization: Bearer mc_…")
	}
	key = strings.TrimSpace(key)
	if !model.WellFormedKey(key) {
		return "", model.Errorf(model.CodeUnauthorized, "malformed API key: keys start with mc_")
	}
	return key, nil
}

// routeOf is the metrics label of a request: its /api/v1 route pattern, or
// a fixed name, never the path itself (which a client chooses).
func routeOf(r *http.Request, in *reqInfo) string {
	switch p := r.URL.Path; {
	case in.route != "":
		return in.route
	case p == "/api/mcp":
		return p
	case p == "/console" || strings.HasPrefix(p, "/console/"):
		return "/console"
	}
	return "other"
}
