// Package pdftext reads the text of PDF documents from untrusted sources.
//
// Where poppler's pdftotext and util-linux's prlimit are installed (the
// setup script installs both), a document is read by pdftotext in a child
// process with a CPU-time and an address-space limit, killed with its
// process group when the caller's context ends, its output read through a
// cap. Elsewhere a pure-Go reader runs in process, hardened with a page
// cap, a loop check on the page tree, a cap on decompressed content bytes
// and context checks between pages and between content operators.
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// Defaults of Limits.
const (
	// DefaultCPU is well under the 30 s default fetch timeout, so that a
	// document built to burn CPU is stopped by its own limit and reported
	// as such. pdftotext reads a 36-page TeX manual in 0.16 s of CPU, so
	// real documents of a couple of thousand pages fit.
	DefaultCPU = 10 * time.Second
	// DefaultMemory bounds the child's address space; pdftotext reads a
	// long real document in under 64 MiB.
	DefaultMemory = 512 << 20
	// DefaultMaxText is the service's 25 MB document limit
	// (fetch.DefaultMaxBodyBytes) applied to the text read.
	DefaultMaxText = 25 << 20
	// DefaultMaxPages bounds the pages the pure-Go reader reads.
	DefaultMaxPages = 2000
	// DefaultMaxInflated bounds the decompressed bytes of all the content
	// streams the pure-Go reader interprets.
	DefaultMaxInflated = 64 << 20
)

// Limits bound one reading. Zero fields take the defaults above.
type Limits struct {
	CPU         time.Duration // CPU time of the pdftotext child
	Memory      int64         // address space of the pdftotext child, in bytes
	MaxText     int64         // bytes of text kept; more stops the reading
	MaxPages    int           // pages read by the pure-Go reader
	MaxInflated int64         // decompressed content bytes read by the pure-Go reader
}

func (l Limits) withDefaults() Limits {
	if l.CPU <= 0 {
		l.CPU = DefaultCPU
	}
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.MaxText <= 0 {
		l.MaxText = DefaultMaxText
	}
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxInflated <= 0 {
		l.MaxInflated = DefaultMaxInflated
	}
	return l
}

// ErrUnreadable reports a document that is not a readable PDF: broken,
// encrypted, or one whose page tree loops or lies about its size.
var ErrUnreadable = errors.New("pdftext: unreadable pdf")

// ErrLimit is matched (errors.Is) by every *LimitError.
var ErrLimit = errors.New("pdftext: limit reached")

// LimitError reports a reading stopped by one of its limits.
type LimitError struct {
	// Message says which limit in words a client may read, e.g. "it
	// needed more than 10s of CPU time".
	Message string
	// Detail is for the log.
	Detail string
}

func (e *LimitError) Error() string {
	if e.Detail == "" {
		return "pdftext: " + e.Message
	}
	return "pdftext: " + e.Message + ": " + e.Detail
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Result is the text of a document.
type Result struct {
	// Text holds the paragraphs in reading order: lines joined by "\n",
	// paragraphs and pages separated by a blank line.
	Text string
	// Title and Author come from the document information dictionary.
	Title, Author string
}

// Reader reads PDF text within its limits. It is safe for concurrent use;
// at most GOMAXPROCS readings run at once, others wait for a slot under
// their context, so that many hostile documents at once cost a bounded
// number of cores and child processes.
type Reader struct {
	pdftotext string // empty: the pure-Go reader
	prlimit   string
	limits    Limits
	slots     chan struct{}
}

// New returns a Reader with the limits lim (zero fields: defaults) that
// uses pdftotext when it and prlimit are found on PATH on a system that
// can sandbox them, and the pure-Go reader otherwise.
func New(lim Limits) *Reader {
	r := NewFallback(lim)
	if !sandboxSupported {
		return r
	}
	p, err1 := exec.LookPath("pdftotext")
	l, err2 := exec.LookPath("prlimit")
	if err1 == nil && err2 == nil {
		r.pdftotext, r.prlimit = p, l
	}
	return r
}

// NewFallback returns a Reader that always uses the pure-Go reader.
func NewFallback(lim Limits) *Reader {
	return &Reader{limits: lim.withDefaults(), slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

var (
	defaultOnce   sync.Once
	defaultReader *Reader
)

// Default returns the Reader with the default limits, looking for
// pdftotext once per process.
func Default() *Reader {
	defaultOnce.Do(func() { defaultReader = New(Limits{}) })
	return defaultReader
}

// Sandboxed reports whether r reads with pdftotext in a child process.
func (r *Reader) Sandboxed() bool { return r.pdftotext != "" }

// Limits returns r's limits, defaults filled in.
func (r *Reader) Limits() Limits { return r.limits }

// Read reads the text of the PDF body. Its errors match ErrUnreadable,
// ErrLimit, or, when ctx ended first, ctx.Err().
func (r *Reader) Read(ctx context.Context, body []byte) (*Result, error) {
	if len(body) == 0 {
		return nil, fmt.Errorf("%w: empty document", ErrUnreadable)
	}
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxError(ctx)
	}
	release := func() { <-r.slots }
	if r.pdftotext != "" {
		defer release()
		return r.poppler(ctx, body)
	}
	return r.fallback(ctx, body, release)
}

func ctxError(ctx context.Context) error {
	return fmt.Errorf("pdftext: reading stopped: %w", ctx.Err())
}
