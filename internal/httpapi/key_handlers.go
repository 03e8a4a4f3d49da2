package httpapi

import (
	"net/http"
	"strings"

	"webacq/internal/model"
)

// Key management over the API, so an agent can rotate its own keys. Any
// valid key manages its workspace's keys (spec 5.9: no per-key scopes).

type createKeyRequest struct {
	Name string `json:"name"`
}

type createdKey struct {
	Key string `json:"key"` // shown once
	model.APIKey
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := s.store.Keys(r.Context(), infoOf(r).call.Principal.WorkspaceID)
	if err != nil {
		fail(w, r, s.log, model.Wrap(model.CodeUnavailable, err, "database unavailable"))
		return
	}
	if keys == nil {
		keys = []model.APIKey{}
	}
	respond(w, r, map[string]any{"keys": keys})
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	var req createKeyRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, r, s.log, err)
		return
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" || len(req.Name) > 200 {
		fail(w, r, s.log, model.Errorf(model.CodeBadRequest, "name is required (at most 200 characters)"))
		return
	}
	key, k, err := s.store.CreateKey(r.Context(), infoOf(r).call.Principal.WorkspaceID, req.Name)
	if err != nil {
		fail(w, r, s.log, model.Wrap(model.CodeUnavailable, err, "database unavailable"))
		return
	}
	respond(w, r, createdKey{Key: key, APIKey: *k})
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	prefix := r.PathValue("prefix")
	infoOf(r).call.Target = prefix
	err := s.store.RevokeWorkspaceKey(r.Context(), infoOf(r).call.Principal.WorkspaceID, prefix)
	if err != nil && model.ErrorCode(err) != model.CodeNotFound {
		err = model.Wrap(model.CodeUnavailable, err, "database unavailable")
	}
	if err != nil {
		fail(w, r, s.log, err)
		return
	}
	respond(w, r, map[string]any{"revoked": true, "prefix": prefix})
}
