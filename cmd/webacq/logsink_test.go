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
	var out lockedBuffer
	sink := newLogSink(&out)
	log := slog.New(flushingHandler{slog.NewTextHandler(sink, nil), sink}).With("node", "a")
	log.Info("request")
	if strings.Contains(out.String(), "msg=request") {
		t.Fatal("an info line was written at once; it should wait for the next flush")
	}
	log.Error("boom")
	if s := out.String(); !strings.Contains(s, "msg=request") || !strings.Contains(s, "msg=boom node=a") {
		t.Fatalf("an error did not flush what was buffered: %q", s)
	}
	log.Info("later")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(out.String(), "msg=later") {
		if time.Now().After(deadline) {
			t.Fatal("the ticker never flushed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	log.Info("last")
	sink.Close()
	if !strings.Contains(out.String(), "msg=last") {
		t.Fatal("Close did not flush")
	}
}
