package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
)

// SetMonitors mounts the monitor endpoints on a monitor service.
func (s *Server) SetMonitors(m *monitor.Service) { s.monitors = m }

func (s *Server) monitorRoutes() {
	s.handle("POST /api/v1/monitor/register", s.monitorOp(s.registerMonitor))
	s.handle("GET /api/v1/monitors", s.monitorOp(s.listMonitors))
	s.handle("GET /api/v1/monitor/{id}", s.monitorOp(s.getMonitor))
	s.handle("PATCH /api/v1/monitor/{id}", s.monitorOp(s.patchMonitor))
	s.handle("DELETE /api/v1/monitor/{id}", s.monitorOp(s.deleteMonitor))
	s.handle("POST /api/v1/monitor/{id}/pause", s.monitorOp(s.pauseMonitor))
	s.handle("POST /api/v1/monitor/{id}/resume", s.monitorOp(s.resumeMonitor))
	s.handle("POST /api/v1/monitor/{id}/check", s.monitorOp(s.checkMonitor))
	s.handle("GET /api/v1/monitor/{id}/runs", s.monitorOp(s.monitorRuns))
	s.handle("GET /api/v1/monitor/{id}/runs/{run_id}", s.monitorOp(s.monitorRun))
	s.handle("GET /api/v1/monitor/{id}/deliveries", s.monitorOp(s.monitorDeliveries))
	s.handle("POST /api/v1/monitor/{id}/deliveries/{delivery_id}/redeliver", s.monitorOp(s.redeliver))
}

// monitorView is GET /api/v1/monitor/:id: the spec's fields (2.2) and the
// registration settings.
type monitorView struct {
	*model.Monitor
	AnchorSet bool `json:"anchor_set"`
}

func viewOf(m *model.Monitor) monitorView { return monitorView{Monitor: m, AnchorSet: m.AnchorSet()} }

// monitorOp answers for the monitor endpoints: off without a monitor
// service, forbidden to a workspace without the monitoring entitlement,
// and the monitor id as the activity row's target.
func (s *Server) monitorOp(op func(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		call := infoOf(r).call
		if id := r.PathValue("id"); id != "" {
			call.Target = id
		}
		if s.monitors == nil {
			fail(w, r, s.log, model.Errorf(model.CodeUnavailable, "monitors are not available on this node"))
			return
		}
		if !call.Principal.Monitoring {
			fail(w, r, s.log, monitor.NotEntitled())
			return
		}
		data, err := op(w, r, call.Principal)
		if err != nil {
			if model.ErrorCode(err) == model.CodeInternal {
				err = model.Wrap(model.CodeUnavailable, err, "database unavailable")
			}
			fail(w, r, s.log, err)
			return
		}
		respond(w, r, data)
	}
}

func (s *Server) registerMonitor(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	var req monitor.RegisterRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	infoOf(r).call.Target = req.URL
	m, err := s.monitors.Register(r.Context(), p, req)
	if err != nil {
		return nil, err
	}
	infoOf(r).call.Target = m.ID
	return map[string]string{"monitor_id": m.ID, "status": m.Status}, nil
}

func (s *Server) getMonitor(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	m, err := s.monitors.Get(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewOf(m), nil
}

func (s *Server) patchMonitor(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	var req monitor.PatchRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	m, err := s.monitors.Patch(r.Context(), p, r.PathValue("id"), req)
	if err != nil {
		return nil, err
	}
	return viewOf(m), nil
}

func (s *Server) deleteMonitor(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	if err := s.monitors.Delete(r.Context(), p, r.PathValue("id")); err != nil {
		return nil, err
	}
	return map[string]bool{"deleted": true}, nil
}

func (s *Server) pauseMonitor(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	m, err := s.monitors.Pause(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewOf(m), nil
}

func (s *Server) resumeMonitor(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	m, err := s.monitors.Resume(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewOf(m), nil
}

func (s *Server) checkMonitor(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	m, err := s.monitors.CheckNow(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"monitor_id": m.ID, "status": m.Status, "queued": true, "next_check_at": m.NextCheckAt}, nil
}

// cursorPage reads the limit (default 20, at most 100) and the before
// cursor of a paginated list: a next_before as answered ("<time>_<id>"),
// or an ISO 8601 timestamp alone.
func cursorPage(r *http.Request) (limit int, before store.Cursor, err error) {
	limit = 20
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > 100 {
			return 0, before, model.Errorf(model.CodeBadRequest, "limit must be an integer from 1 to 100")
		}
		limit = n
	}
	if v := q.Get("before"); v != "" {
		at, id, _ := strings.Cut(v, "_")
		if before.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return 0, before, model.Errorf(model.CodeBadRequest,
				"before must be a next_before as answered, or an ISO 8601 timestamp such as 2026-11-23T10:00:00Z")
		}
		before.ID = id
	}
	return limit, before, nil
}

// nextCursor is the cursor of the next page, "<time>_<id>" of the last
// item, when the page is full, else nil (no more pages).
func nextCursor[T any](items []T, limit int, at func(T) (time.Time, string)) *string {
	if len(items) < limit || len(items) == 0 {
		return nil
	}
	t, id := at(items[len(items)-1])
	c := t.UTC().Format(time.RFC3339Nano) + "_" + id
	return &c
}

type monitorsPage struct {
	Monitors   []monitorView `json:"monitors"`
	NextBefore *string       `json:"next_before"`
}

func (s *Server) listMonitors(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	limit, before, err := cursorPage(r)
	if err != nil {
		return nil, err
	}
	ms, err := s.store.MonitorsAfter(r.Context(), p.WorkspaceID, before, limit)
	if err != nil {
		return nil, err
	}
	out := monitorsPage{Monitors: make([]monitorView, len(ms))}
	for i, m := range ms {
		out.Monitors[i] = viewOf(m)
	}
	out.NextBefore = nextCursor(ms, limit, func(m *model.Monitor) (time.Time, string) { return m.CreatedAt, m.ID })
	return out, nil
}

type runsPage struct {
	Runs       []*model.Run `json:"runs"`
	NextBefore *string      `json:"next_before"`
}

func (s *Server) monitorRuns(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	limit, before, err := cursorPage(r)
	if err != nil {
		return nil, err
	}
	m, err := s.monitors.Get(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	runs, err := s.store.RunsAfter(r.Context(), m.ID, before, limit)
	if err != nil {
		return nil, err
	}
	if err := s.withWebhooks(r.Context(), runs...); err != nil {
		return nil, err
	}
	out := runsPage{Runs: runs}
	if out.Runs == nil {
		out.Runs = []*model.Run{}
	}
	out.NextBefore = nextCursor(runs, limit, func(r *model.Run) (time.Time, string) { return r.StartedAt, r.ID })
	return out, nil
}

func (s *Server) monitorRun(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	m, err := s.monitors.Get(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	run, err := s.store.Run(r.Context(), m.ID, r.PathValue("run_id"))
	if err != nil {
		return nil, err
	}
	return run, s.withWebhooks(r.Context(), run)
}

// withWebhooks fills each run's webhook delivery and its status.
func (s *Server) withWebhooks(ctx context.Context, runs ...*model.Run) error {
	ids := make([]string, len(runs))
	for i, run := range runs {
		ids[i] = run.ID
	}
	hooks, err := s.store.RunWebhooks(ctx, ids)
	if err != nil {
		return err
	}
	for _, run := range runs {
		run.Webhook = hooks[run.ID]
	}
	return nil
}

// deliveriesPage is a page of deliveries; next_before is the cursor
// "<time>_<id>" of the last one (a run's deliveries share their time).
type deliveriesPage struct {
	Deliveries []*model.Delivery `json:"deliveries"`
	NextBefore *string           `json:"next_before"`
}

func (s *Server) monitorDeliveries(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	limit, before, err := cursorPage(r)
	if err != nil {
		return nil, err
	}
	m, err := s.monitors.Get(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	ds, err := s.store.DeliveriesBefore(r.Context(), m.ID, before.At, before.ID, limit)
	if err != nil {
		return nil, err
	}
	out := deliveriesPage{Deliveries: ds}
	if out.Deliveries == nil {
		out.Deliveries = []*model.Delivery{}
	}
	out.NextBefore = nextCursor(ds, limit, func(d *model.Delivery) (time.Time, string) { return d.CreatedAt, d.ID })
	return out, nil
}

func (s *Server) redeliver(_ http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	d, err := s.monitors.Alerts.Redeliver(r.Context(), p, r.PathValue("id"), r.PathValue("delivery_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"delivery_id": d.ID, "status": d.Status, "queued": true}, nil
}
