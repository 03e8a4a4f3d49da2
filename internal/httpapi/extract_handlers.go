package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"webacq/internal/model"
	"webacq/internal/monitor"
)

// extractRoutes mounts the extraction approval loop (spec 3.3, 4.3).
func (s *Server) extractRoutes() {
	s.handle("POST "+monitor.PreviewEndpoint, s.monitorOp(s.previewExtract))
	s.handle("POST /api/v1/monitor/{id}/approve-extract", s.monitorOp(s.approveExtract))
}

// previewExtract serves POST /api/v1/monitor/:id/preview-extract, whose
// body is optional: no body previews with the refinements so far.
func (s *Server) previewExtract(w http.ResponseWriter, r *http.Request, _ *model.Principal) (any, error) {
	var req monitor.PreviewRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errTooLarge
	}
	if err != nil {
		return nil, model.Errorf(model.CodeBadRequest, "the request body could not be read")
	}
	if len(bytes.TrimSpace(body)) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err := decode(w, r, &req); err != nil {
			return nil, err
		}
	}
	return s.monitors.PreviewExtract(r.Context(), s.biller, infoOf(r).call, r.PathValue("id"), req)
}

// approveExtract serves POST /api/v1/monitor/:id/approve-extract.
func (s *Server) approveExtract(w http.ResponseWriter, r *http.Request, p *model.Principal) (any, error) {
	var req monitor.ApproveRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	if err := s.monitors.ApproveExtract(r.Context(), p, r.PathValue("id"), req); err != nil {
		return nil, err
	}
	return map[string]bool{"approved": true}, nil
}
