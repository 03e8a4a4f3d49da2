//go:build !linux

package pdftext

import (
	"context"
	"errors"
)

// sandboxSupported: the limits rely on Linux's prlimit, so elsewhere the
// pure-Go reader runs.
const sandboxSupported = false

func (r *Reader) poppler(context.Context, []byte) (*Result, error) {
	return nil, errors.New("pdftext: pdftotext is not sandboxed on this system")
}
