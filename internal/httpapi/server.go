// Package httpapi serves the REST API under /api/v1: routes in this file,
// handlers per resource, auth and envelope in one place each.
package httpapi

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/config"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
)

// Server is the HTTP API.
type Server struct {
	cfg    *config.Config
	store  *store.Store
	biller *billing.Biller
	billed *billed.Service
	log    *slog.Logger
	// monitors serves the monitor endpoints (nil: they answer unavailable).
	monitors *monitor.Service

	v1      *http.ServeMux
	handler http.Handler
	// patterns are the /api/v1 routes, in the order registered (the
	// OpenAPI document lists them).
	patterns    []string
	openAPIOnce sync.Once
	openAPIDoc  []byte
	openAPIErr  error
	mcp         http.Handler
	console     http.Handler
}

// SetMCP mounts the MCP endpoint at /api/mcp, behind the same request ids,
// access log, canonical-host redirect and body cap as the REST API.
func (s *Server) SetMCP(h http.Handler) { s.mcp = h }

// SetConsole mounts the web console at /console, behind the same request
// ids, access log, canonical-host redirect and body cap as the REST API.
func (s *Server) SetConsole(h http.Handler) { s.console = h }

// New builds the API on a store, a biller (which finishes every call and
// answers the account endpoints) and the billed primitives built on it.
func New(cfg *config.Config, st *store.Store, b *billing.Biller, svc *billed.Service, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, store: st, biller: b, billed: svc, log: log, v1: http.NewServeMux()}
	s.routes()
	return s
}

func (s *Server) routes() {
	s.handle("GET /api/v1/health", s.health)
	s.handle("GET /api/v1/credits", s.credits)
	s.handle("GET /api/v1/usage", s.usage)
	s.handle("GET /api/v1/activity", s.activity)
	s.handle("GET /api/v1/keys", s.listKeys)
	s.handle("POST /api/v1/keys", s.createKey)
	s.handle("DELETE /api/v1/keys/{prefix}", s.revokeKey)
	s.handle("POST /api/v1/fetch", s.fetch)
	s.handle("POST /api/v1/map", s.mapSite)
	s.handle("POST /api/v1/gyre", s.gyre)
	s.gyreJobRoutes()
	s.handle("POST /api/v1/search", s.search)
	s.handle("POST /api/v1/extract", s.extract)
	s.webhookRoutes()
	s.alertRoutes()
	s.extractRoutes()
	s.monitorRoutes()
	s.v1.HandleFunc("/api/v1/", s.noRoute)

	mux := http.NewServeMux()
	mux.Handle("/api/v1/", s.authenticate(s.v1))
	mux.HandleFunc("GET "+OpenAPIPath, s.serveOpenAPI)
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /readme", s.readme)
	mux.HandleFunc("/api/v1", s.noRoute)
	mux.HandleFunc("/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		if s.mcp == nil {
			http.NotFound(w, r)
			return
		}
		s.mcp.ServeHTTP(w, r)
	})
	mux.HandleFunc("/console/", s.serveConsole)
	mux.HandleFunc("/console", s.serveConsole)
	s.handler = s.outer(mux)
}

func (s *Server) serveConsole(w http.ResponseWriter, r *http.Request) {
	if s.console == nil {
		http.NotFound(w, r)
		return
	}
	s.console.ServeHTTP(w, r)
}

// handle registers an /api/v1 route; the usage and activity rows name its
// path as the endpoint.
func (s *Server) handle(pattern string, h http.HandlerFunc) {
	s.patterns = append(s.patterns, pattern)
	_, endpoint, _ := cut(pattern)
	class := billing.ClassOf(endpoint)
	s.v1.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := infoOf(r)
		in.route = endpoint
		if c := in.call; c != nil {
			c.Endpoint = endpoint
			if err := s.admit(w, r, c.Principal, class); err != nil {
				fail(w, r, s.log, err)
				return
			}
			if !ownSlot[pattern] {
				end, err := s.biller.StartCall(r.Context(), c.Principal, endpoint)
				if err != nil {
					fail(w, r, s.log, err)
					return
				}
				defer end()
			}
		}
		h(w, r)
	}))
}

// admit counts a request of a limited class against its workspace's
// limit (every node shares it) and sets the RateLimit-* headers, which
// every answer carries: a request that is not counted shows the
// primitives limit as this node last saw it.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, p *model.Principal, class string) error {
	var l billing.Limit
	var err error
	if class != "" {
		l, err = s.biller.Admit(r.Context(), p, class)
	} else {
		l = s.biller.Peek(p)
	}
	if l.Limit > 0 {
		limit, remaining, reset := l.Header(time.Now())
		h := w.Header()
		h.Set("RateLimit-Limit", limit)
		h.Set("RateLimit-Remaining", remaining)
		h.Set("RateLimit-Reset", reset)
	}
	return err
}

func cut(pattern string) (method, path string, ok bool) {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == ' ' {
			return pattern[:i], pattern[i+1:], true
		}
	}
	return "", pattern, false
}

// ServeHTTP serves the whole API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

var probeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// noRoute answers 405 when the path exists under another method, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range probeMethods {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.v1.Handler(probe); pattern != "/api/v1/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		for i, m := range allowed {
			if i == 0 {
				w.Header().Set("Allow", m)
			} else {
				w.Header().Add("Allow", m)
			}
		}
		writeJSON(w, http.StatusMethodNotAllowed, envelope{Error: "method " + r.Method + " not allowed here", Code: model.CodeBadRequest})
		in := infoOf(r)
		in.status = http.StatusMethodNotAllowed
		if in.call != nil {
			in.call.ErrorCode = model.CodeBadRequest
		}
		return
	}
	fail(w, r, s.log, model.Errorf(model.CodeNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path))
}
