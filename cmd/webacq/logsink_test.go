package main

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogSink(t *testing.T) {
	// The ticker of this first sink never fires during the test: an info
	// line still in the sink was held back, not yet flushed by a tick that a
	// loaded machine let fall between the write and the look.
	var out lockedBuffer
	sink := newLogSinkEvery(&out, time.Hour)
	log := slog.New(flushingHandler{slog.NewTextHandler(sink, nil), sink}).With("node", "a")
	log.Info("request")
	if strings.Contains(out.String(), "msg=request") {
		t.Fatal("an info line was written at once; it should wait for the next flush")
	}
	log.Error("boom")
	if s := out.String(); !strings.Contains(s, "msg=request") || !strings.Contains(s, "msg=boom node=a") {
		t.Fatalf("an error did not flush what was buffered: %q", s)
	}
	log.Info("last")
	sink.Close()
	if !strings.Contains(out.String(), "msg=last") {
		t.Fatal("Close did not flush")
	}

	// The sink of serve flushes on its own, every flushEvery.
	var ticked lockedBuffer
	sink = newLogSink(&ticked)
	defer sink.Close()
	log = slog.New(flushingHandler{slog.NewTextHandler(sink, nil), sink})
	log.Info("later")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(ticked.String(), "msg=later") {
		if time.Now().After(deadline) {
			t.Fatal("the ticker never flushed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
