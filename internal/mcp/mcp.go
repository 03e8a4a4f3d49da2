// Package mcp serves the five primitives as MCP tools at POST /api/mcp:
// streamable HTTP in stateless mode, a fresh server per request built with
// that request's key, and billing through the same code as the REST API.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
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

// JSON-RPC error codes of the transport.
const (
	codeUnauthorized     = -32001
	codeMethodNotAllowed = -32000
	codeInvalidRequest   = -32600
	codeParseError       = -32700
)

// Options configures the endpoint.
type Options struct {
	// AllowedOrigins lists browser origins (scheme://host[:port]) allowed
	// besides the service's own host; a request with any other Origin is
	// refused with 403 (DNS-rebinding protection).
	AllowedOrigins []string
	// MaxResultChars caps the text of one tool result; longer crawl results
	// are cut page by page with a marker (0: 200,000).
	MaxResultChars int
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

	jsonHandler, sseHandler http.Handler
}

// New builds the endpoint.
func New(st *store.Store, b *billing.Biller, prims Primitives, log *slog.Logger, opts Options) *Handler {
	if opts.MaxResultChars <= 0 {
		opts.MaxResultChars = 200_000
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	h := &Handler{store: st, biller: b, prims: prims, log: log, opts: opts}
	getServer := func(r *http.Request) *sdk.Server { return stateOf(r.Context()).server }
	h.jsonHandler = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	h.sseHandler = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless: true, DisableLocalhostProtection: true})
	return h
}

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

// ServeHTTP checks method, origin, key and framing, then hands the message
// to the SDK with a server built for this key.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	started := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		rpcError(w, http.StatusMethodNotAllowed, codeMethodNotAllowed, "method not allowed: the MCP endpoint takes POST only (no standalone SSE stream)")
		return
	}
	if !h.originAllowed(r) {
		rpcError(w, http.StatusForbidden, codeInvalidRequest, "origin not allowed")
		return
	}
	key, ok := credential(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="webacq"`)
		rpcError(w, http.StatusUnauthorized, codeUnauthorized, "unauthorized: send Authorization: Bearer mc_… or X-API-Key: mc_…")
		return
	}
	p, err := h.store.Authenticate(r.Context(), key)
	if err != nil {
		if model.ErrorCode(err) == model.CodeUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="webacq", error="invalid_token"`)
			rpcError(w, http.StatusUnauthorized, codeUnauthorized, "unauthorized: "+model.ErrorMessage(err))
			return
		}
		h.log.Error("mcp authenticate", "err", err, "request_id", w.Header().Get("X-Request-Id"))
		rpcError(w, http.StatusServiceUnavailable, -32603, "service unavailable")
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
	knownTool := false
	defer func() {
		if st.toolRan {
			return
		}
		status := status()
		switch {
		case status >= 400:
			call.ErrorCode = model.CodeBadRequest
		case knownTool:
			// The SDK refused the arguments before the tool ran.
			call.ErrorCode, status = model.CodeBadRequest, http.StatusBadRequest
		}
		if err := h.biller.Finish(r.Context(), call, 0, status); err != nil {
			h.log.Error("record mcp usage", "err", err, "request_id", st.requestID)
		}
	}()

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		rpcError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest, "request body is larger than 1 MiB")
		return
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		rpcError(w, http.StatusBadRequest, codeInvalidRequest, "batches are not supported: send one JSON-RPC message per POST")
		return
	}
	var peek struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if err := json.Unmarshal(trimmed, &peek); err != nil {
		rpcError(w, http.StatusBadRequest, codeParseError, "parse error: the body must be one JSON-RPC message")
		return
	}
	if peek.Method == "tools/call" {
		call.Target = peek.Params.Name
		if t, ok := toolsByName[peek.Params.Name]; ok {
			call.Endpoint, knownTool = t.endpoint, true
		}
	}
	st.server = h.newServer(st)
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}
	// JSON by default; an event stream for tools/call when the client asks.
	// The SDK insists on both types in Accept, so it is set for it.
	stream := peek.Method == "tools/call" && acceptsStream(r.Header.Values("Accept"))
	r.Header.Set("Accept", "application/json, text/event-stream")
	if stream {
		h.sseHandler.ServeHTTP(w, r)
	} else {
		h.jsonHandler.ServeHTTP(w, r)
	}
}

func (h *Handler) newServer(st *reqState) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "webacq", Version: h.opts.Version}, &sdk.ServerOptions{
		SupportedProtocolVersions: ProtocolVersions,
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		Instructions: "Web acquisition tools: svc_search finds pages, svc_fetch reads one page as markdown, " +
			"svc_gyre crawls a site, svc_map lists a site's URLs, svc_extract pulls structured data from a page. " +
			"Each call draws credits from the workspace of the API key.",
	})
	h.addTools(s, st)
	return s
}

// credential reads the key from the three forms the MCP endpoint accepts
// (spec 5.5): Bearer, X-API-Key, or a raw mc_ value in Authorization.
func credential(r *http.Request) (string, bool) {
	var key string
	if v := strings.TrimSpace(r.Header.Get("X-API-Key")); v != "" {
		key = v
	} else if v := strings.TrimSpace(r.Header.Get("Authorization")); v != "" {
		if scheme, rest, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Bearer") {
			key = strings.TrimSpace(rest)
		} else {
			key = v
		}
	}
	return key, model.WellFormedKey(key)
}

// originAllowed accepts requests without Origin (non-browser clients),
// from the request's own host, and from configured origins.
func (h *Handler) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if slices.Contains(h.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
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

// rpcError answers a JSON-RPC error with id null.
func rpcError(w http.ResponseWriter, status, code int, message string) {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"error":   map[string]any{"code": code, "message": message},
		"id":      nil,
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
