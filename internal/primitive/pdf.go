package primitive

import (
	"context"
	"errors"

	"webacq/internal/model"
	"webacq/internal/pdftext"
)

// pdfError gives a failed PDF reading its code: the request's deadline is
// a timeout, anything else (a broken document, or one stopped by the
// reader's CPU, memory, page or size limits) an upstream_error, refunded
// like every failed call.
func pdfError(err error) error {
	var le *pdftext.LimitError
	switch {
	case errors.As(err, &le):
		return model.Wrap(model.CodeUpstreamError, err, "the PDF was not read: "+le.Message)
	case errors.Is(err, context.DeadlineExceeded):
		return model.Wrap(model.CodeTimeout, err, "the PDF could not be read within the request's timeout")
	case errors.Is(err, context.Canceled):
		return model.Wrap(model.CodeUpstreamError, err, "reading the PDF was canceled")
	}
	return model.Wrap(model.CodeUpstreamError, err, "the PDF could not be read (broken or encrypted document)")
}
