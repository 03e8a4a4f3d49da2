package config

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestTuneRuntime(t *testing.T) {
	oldGC := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(oldGC)
		debug.SetMemoryLimit(oldLimit)
	})
	debug.SetMemoryLimit(math.MaxInt64)

	TuneRuntime(1<<30, func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("GOGC unset: gc percent %d, want %d", got, GCPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != (1<<30)/5*3 {
		t.Errorf("GOMEMLIMIT unset: limit %d, want %d", got, (1<<30)/5*3)
	}

	// The operator's settings win: the runtime has read them already.
	TuneRuntime(1<<30, func(k string) string { return map[string]string{"GOGC": "50", "GOMEMLIMIT": "2GiB"}[k] })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: gc percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: limit changed to %d", got)
	}
}
