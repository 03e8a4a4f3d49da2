package primitive

import (
	"context"
	"errors"
	"time"

	"webacq/internal/model"
	"webacq/internal/pdftext"
)

// pdfContext bounds the reading of a PDF by the request's deadline less a
// reserve (a quarter of the time left, at most pdfReserve) for stopping the
// reader and answering: a reading the request's time cannot hold is a
// document not read, answered within the timeout.
func pdfContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	reserve := min(pdfReserve, time.Until(deadline)/4)
	return context.WithDeadline(ctx, deadline.Add(-reserve))
}

// pdfReserve is the most of a request's time kept from its PDF reading.
const pdfReserve = time.Second

// pdfError gives a failed PDF reading its code: a reading the request's
// time stopped (pdfContext's reserve, or the request's own deadline) is a
// timeout, answered within the request's timeout, since more time may read
// it; anything else (a broken document, or one stopped by the reader's
// CPU, memory, page or size limits) an upstream_error. Each is refunded
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
