// Package mcp serves the five primitives as MCP tools at POST /api/mcp:
// streamable HTTP in stateless mode, a fresh server per request built with
// that request's key, and billing through the same code as the REST API.
package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/store"
)

// Endpoint is the path of the MCP endpoint; calls other than tools/call are
// logged under it.
const Endpoint = "/api/mcp"

// ProtocolVersions are the MCP versions served (DECISIONS.md), newest first.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// maxBody caps a request body, as on the REST API.
const maxBody = 1 << 20

// Options configures the endpoint.
type Options struct {
	// BaseURL (WEBACQ_BASE_URL), CanonicalHost (WEBACQ_CANONICAL_HOST) and
	// AllowedHosts (WEBACQ_ALLOWED_HOSTS) name the hosts a request's Host may
	// carry; when Addr, the listen address, is a loopback address,
	// localhost, 127.0.0.1 and [::1] are allowed too. With none of them
	// every Host is accepted (AnyHost). This is the DNS-rebinding protection.
	BaseURL, CanonicalHost string
	AllowedHosts           []string
	Addr                   string
	// AllowedOrigins lists browser origins (scheme://host[:port]) allowed
	// besides those on an allowed host; a request with any other Origin is
	// refused with 403.
	AllowedOrigins []string
	// MaxTokens caps the text of a tool result when the call does not say
	// (its maxTokens argument): 0 is DefaultMaxTokens, and it is at most
	// HardMaxTokens. Tokens are counted by Tokens.
	MaxTokens int
	// Version is reported in initialize.
	Version string
}

// Handler is the MCP endpoint.
type Handler struct {
	store  *store.Store
	biller *billing.Biller
	prims  Primitives
	log    *slog.Logger
	opts   Options
	hosts  hostPolicy

	jsonHandler, sseHandler http.Handler
}

// New builds the endpoint.
func New(st *store.Store, b *billing.Biller, prims Primitives, log *slog.Logger, opts Options) *Handler {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	opts.MaxTokens = min(max(opts.MaxTokens, MinMaxTokens), HardMaxTokens)
	if opts.Version == "" {
		opts.Version = "dev"
	}
	h := &Handler{store: st, biller: b, prims: prims, log: log, opts: opts, hosts: newHostPolicy(opts)}
	getServer := func(r *http.Request) *sdk.Server { return stateOf(r.Context()).server }
	// Our own Host and Origin checks replace the SDK's localhost protection.
	h.jsonHandler = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	h.sseHandler = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless: true, DisableLocalhostProtection: true})
	return h
}

// AnyHost reports whether the endpoint accepts every Host: no base URL,
// canonical host or allowed host is configured and the service does not
// listen on a loopback address. serve warns about it at start.
func (h *Handler) AnyHost() bool { return h.hosts.anyHost() }

// reqState is what one POST carries through the SDK into the tools.
type reqState struct {
	server    *sdk.Server
	principal *model.Principal
	requestID string
	started   time.Time
	// toolRan is set when a tool handler took over the call's billing row.
	toolRan bool
}

type stateKey struct{}

func stateOf(ctx context.Context) *reqState {
	s, _ := ctx.Value(stateKey{}).(*reqState)
	return s
}

// ServeHTTP checks method, host, origin, key and the message, answering
// every refusal as a JSON-RPC error object, then hands the message to the
// SDK with a server built for this key.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	started := time.Now()
	defer h.recoverPanic(w)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeFault(w, fault(http.StatusMethodNotAllowed, codeMethodNotAllowed, nil,
			"method not allowed: the MCP endpoint takes POST only (no standalone SSE stream)"))
		return
	}
	if !h.hosts.hostAllowed(r) {
		writeFault(w, fault(http.StatusForbidden, codeInvalidRequest, nil,
			"host not allowed: %s is not a name of this service (WEBACQ_BASE_URL, WEBACQ_ALLOWED_HOSTS)", quoteShort(r.Host)))
		return
	}
	if !h.hosts.originAllowed(r) {
		writeFault(w, fault(http.StatusForbidden, codeInvalidRequest, nil, "origin not allowed"))
		return
	}
	key, err := credential(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="webacq"`)
		writeFault(w, fault(http.StatusUnauthorized, codeUnauthorized, nil, "unauthorized: %s", model.ErrorMessage(err)))
		return
	}
	p, err := h.store.Authenticate(r.Context(), key)
	if err != nil {
		if model.ErrorCode(err) == model.CodeUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="webacq", error="invalid_token"`)
			writeFault(w, fault(http.StatusUnauthorized, codeUnauthorized, nil, "unauthorized: %s", model.ErrorMessage(err)))
			return
		}
		h.log.Error("mcp authenticate", "err", err, "request_id", w.Header().Get("X-Request-Id"))
		writeFault(w, fault(http.StatusServiceUnavailable, codeInternal, nil, "service unavailable"))
		return
	}

	st := &reqState{principal: p, requestID: w.Header().Get("X-Request-Id"), started: started}
	call := &billing.Call{Principal: p, Endpoint: Endpoint, Via: model.ViaMCP, Method: "POST",
		RequestID: st.requestID, Started: started}
	// The REST server's writer (which this endpoint is mounted behind)
	// remembers the status it answered; it is logged on the call's row.
	status := func() int {
		if s, ok := w.(interface{ Status() int }); ok && s.Status() != 0 {
			return s.Status()
		}
		return http.StatusOK
	}
	// refused: the message was answered with a JSON-RPC error, whatever the
	// HTTP status; knownTool: it called one of our tools.
	refused, knownTool := false, false
	defer func() {
		if st.toolRan {
			return
		}
		status := status()
		if status >= 400 || refused || knownTool {
			// A known tool that did not run was refused before it could.
			call.ErrorCode = model.CodeBadRequest
			status = max(status, http.StatusBadRequest)
		}
		if err := h.biller.Finish(r.Context(), call, 0, status); err != nil {
			h.log.Error("record mcp usage", "err", err, "request_id", st.requestID)
		}
	}()
	refuse := func(f *rpcFault) {
		refused = true
		writeFault(w, f)
	}

	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			refuse(fault(http.StatusUnsupportedMediaType, codeInvalidRequest, nil, "Content-Type must be application/json"))
			return
		}
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(ProtocolVersions, v) {
		refuse(fault(http.StatusBadRequest, codeInvalidRequest, nil, "unsupported MCP-Protocol-Version %s: this server speaks %s",
			quoteShort(v), strings.Join(ProtocolVersions, ", ")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
		refuse(fault(http.StatusRequestEntityTooLarge, codeInvalidRequest, nil, "request body is larger than 1 MiB"))
		return
	} else if err != nil {
		refuse(fault(http.StatusBadRequest, codeParseError, nil, "parse error: the body could not be read"))
		return
	}
	msg, f := parseMessage(body)
	if f != nil {
		refuse(f)
		return
	}
	if msg.accepted {
		// Notifications and responses change nothing on a stateless
		// server: accepted, with no body.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if msg.method == "tools/call" {
		call.Target = msg.toolName
		if t, ok := toolsByName[msg.toolName]; ok {
			call.Endpoint, knownTool = t.endpoint, true
		}
	}
	st.server = h.newServer(st)
	wire := msg.wire()
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	r.Body = io.NopCloser(bytes.NewReader(wire))
	r.ContentLength = int64(len(wire))
	r.Header.Set("Content-Type", "application/json")
	// JSON by default; an event stream for tools/call when the client asks,
	// unless the id was substituted: it is put back in a JSON answer (the
	// protocol lets the server choose either form).
	stream := msg.method == "tools/call" && acceptsStream(r.Header.Values("Accept")) && !msg.substituted()
	// The SDK insists on both types in Accept, so it is set for it.
	r.Header.Set("Accept", "application/json, text/event-stream")
	rw := &rpcWriter{ResponseWriter: w, id: msg.id, log: func(m string) {
		h.log.Error("mcp: the SDK answered an error without a JSON-RPC code", "err", m, "request_id", st.requestID)
	}}
	if stream {
		h.sseHandler.ServeHTTP(rw, r)
	} else {
		h.jsonHandler.ServeHTTP(rw, r)
	}
	rw.finish()
	refused = rw.answeredError
}

// recoverPanic answers a panic of the request's goroutine as a JSON-RPC
// internal error (the REST server's recovery would answer in its own
// envelope). Tool handlers recover their own panics (runSafely).
func (h *Handler) recoverPanic(w http.ResponseWriter) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	h.log.Error("mcp panic", "request_id", w.Header().Get("X-Request-Id"), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	if s, ok := w.(interface{ Status() int }); !ok || s.Status() == 0 {
		writeFault(w, fault(http.StatusInternalServerError, codeInternal, nil, "internal error"))
	}
}

func (h *Handler) newServer(st *reqState) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "webacq", Version: h.opts.Version}, &sdk.ServerOptions{
		SupportedProtocolVersions: ProtocolVersions,
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		Instructions: fmt.Sprintf("Web acquisition tools: svc_search finds pages, svc_fetch reads one page as markdown, "+
			"svc_gyre crawls a site, svc_map lists a site's URLs, svc_extract pulls structured data from a page. "+
			"Each call draws credits from the workspace of the API key. A result holds at most about %d tokens unless "+
			"the call's maxTokens asks for another cap (%d to %d); a longer one keeps whole pages in order and starts with "+
			"a cut member saying what was left out and how to get it.", h.opts.MaxTokens, MinMaxTokens, HardMaxTokens),
	})
	h.addTools(s, st)
	return s
}

// credential reads the key from the forms the MCP endpoint accepts (spec
// 5.5): Bearer, X-API-Key, or a raw mc_ value in Authorization. Headers
// that name different keys are refused rather than one of them chosen, so
// a request is never run under a key its sender did not mean.
func credential(r *http.Request) (string, error) {
	var keys, others []string
	for _, v := range r.Header.Values("X-API-Key") {
		if v = strings.TrimSpace(v); v != "" {
			keys = append(keys, v)
		}
	}
	for _, v := range r.Header.Values("Authorization") {
		v = strings.TrimSpace(v)
		switch scheme, rest, ok := strings.Cut(v, " "); {
		case ok && strings.EqualFold(scheme, "Bearer"):
			keys = append(keys, strings.TrimSpace(rest))
		case strings.HasPrefix(v, model.KeyPrefix):
			keys = append(keys, v)
		case v != "":
			others = append(others, v)
		}
	}
	switch {
	case len(keys) == 0 && len(others) == 0:
		return "", model.Errorf(model.CodeUnauthorized, "send Authorization: Bearer mc_… or X-API-Key: mc_…")
	case len(keys) == 0:
		return "", model.Errorf(model.CodeUnauthorized, "unsupported authorization scheme: send Authorization: Bearer mc_… or X-API-Key: mc_…")
	}
	for _, k := range keys[1:] {
		if k != keys[0] {
			return "", model.Errorf(model.CodeUnauthorized, "conflicting credentials: the request names more than one key")
		}
	}
	if !model.WellFormedKey(keys[0]) {
		return "", model.Errorf(model.CodeUnauthorized, "malformed API key: keys start with mc_")
	}
	return keys[0], nil
}

func acceptsStream(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				return true
			}
		}
	}
	return false
}
