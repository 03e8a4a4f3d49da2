package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"webacq/internal/model"
)

// logSink buffers log lines so that a busy server does not pay a write
// system call per request: it flushes every flushEvery, when the buffer
// fills, at once after a warning or an error, and on Close.
type logSink struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

const flushEvery = 100 * time.Millisecond

func newLogSink(w io.Writer) *logSink { return newLogSinkEvery(w, flushEvery) }

// newLogSinkEvery is newLogSink flushing every every.
func newLogSinkEvery(w io.Writer, every time.Duration) *logSink {
	s := &logSink{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.Flush()
			}
		}
	}()
	return s
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Flush writes out what is buffered.
func (s *logSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Flush()
}

// Close stops the ticker and flushes.
func (s *logSink) Close() error {
	close(s.stop)
	<-s.done
	return s.Flush()
}

// flushingHandler flushes the sink after every record at warning level or
// above, so the lines that matter are never held back.
type flushingHandler struct {
	slog.Handler
	sink *logSink
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.sink.Flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.sink}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.sink}
}

// redactingWriter redacts key-shaped strings (model.RedactKeys) in each
// write. slog handlers write one whole record per Write, so a key is never
// split across two writes.
type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte(model.KeyPrefix)) {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, model.RedactKeys(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
