package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
)

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	respond(w, r, map[string]string{"status": "ok"})
}

func (s *Server) credits(w http.ResponseWriter, r *http.Request) {
	s.flushLogs(r)
	c, err := s.store.Credits(r.Context(), infoOf(r).call.Principal.WorkspaceID)
	if err != nil {
		fail(w, r, s.log, model.Wrap(model.CodeUnavailable, err, "database unavailable"))
		return
	}
	respond(w, r, c)
}

// DefaultLogLimit is the page size of usage and activity listings.
const DefaultLogLimit = 100

// usagePage and activityPage are pages of the logs; next_before is the
// cursor "<time>_<id>" of the last row, passed back as before.
type usagePage struct {
	Usage      []model.Usage `json:"usage"`
	NextBefore *string       `json:"next_before"`
}

type activityPage struct {
	Activity   []model.Activity `json:"activity"`
	NextBefore *string          `json:"next_before"`
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	f, err := logFilter(r)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	s.flushLogs(r)
	rows, err := s.store.Usage(r.Context(), infoOf(r).call.Principal.WorkspaceID, f)
	if err != nil {
		fail(w, r, s.log, model.Wrap(model.CodeUnavailable, err, "database unavailable"))
		return
	}
	page := usagePage{Usage: rows}
	page.NextBefore = nextCursor(rows, f.Limit, func(u model.Usage) (time.Time, string) {
		return u.CreatedAt, strconv.FormatInt(u.ID, 10)
	})
	respond(w, r, page)
}

func (s *Server) activity(w http.ResponseWriter, r *http.Request) {
	f, err := logFilter(r)
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	s.flushLogs(r)
	rows, err := s.store.Activity(r.Context(), infoOf(r).call.Principal.WorkspaceID, f)
	if err != nil {
		fail(w, r, s.log, model.Wrap(model.CodeUnavailable, err, "database unavailable"))
		return
	}
	page := activityPage{Activity: rows}
	page.NextBefore = nextCursor(rows, f.Limit, func(a model.Activity) (time.Time, string) {
		return a.CreatedAt, strconv.FormatInt(a.ID, 10)
	})
	respond(w, r, page)
}

// logFilter reads key_prefix, endpoint, since, before and limit.
func logFilter(r *http.Request) (model.LogFilter, error) {
	q := r.URL.Query()
	f := model.LogFilter{KeyPrefix: q.Get("key_prefix"), Endpoint: q.Get("endpoint"), Limit: DefaultLogLimit}
	for name, dst := range map[string]*time.Time{"since": &f.Since, "before": &f.Before} {
		if v := q.Get(name); v != "" {
			if name == "before" {
				// A next_before as answered: "<time>_<id>".
				if at, id, ok := strings.Cut(v, "_"); ok {
					n, err := strconv.ParseInt(id, 10, 64)
					if err != nil || n < 1 {
						return f, model.Errorf(model.CodeBadRequest, "before must be a next_before as answered, or an RFC 3339 timestamp such as 2026-01-02T15:04:05Z")
					}
					v, f.BeforeID = at, n
				}
			}
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return f, model.Errorf(model.CodeBadRequest, "%s must be an RFC 3339 timestamp such as 2026-01-02T15:04:05Z", name)
			}
			*dst = t
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxLogLimit {
			return f, model.Errorf(model.CodeBadRequest, "limit must be an integer from 1 to %d", store.MaxLogLimit)
		}
		f.Limit = n
	}
	return f, nil
}

// flushLogs makes this node's queued log rows visible before a read of the
// logs, so a caller always sees its own earlier calls.
func (s *Server) flushLogs(r *http.Request) {
	if err := s.biller.Flush(r.Context()); err != nil {
		s.log.Warn("flush usage records", "err", err, "request_id", requestID(r))
	}
}
