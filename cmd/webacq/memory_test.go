package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A binary built without the race detector, for tests that measure a
// node's memory: the race detector multiplies every allocation's cost.
// TestMain starts its build beside the race binary's.
var plain struct {
	done chan struct{} // closed when the build has ended
	path string
	err  error
}

// startPlainBuild builds the plain binary into dir in the background (at
// once, without a build, when the tests run without the race detector).
func startPlainBuild(dir string) {
	plain.done = make(chan struct{})
	if !raceEnabled {
		close(plain.done)
		return
	}
	plain.path = filepath.Join(dir, "webacq-plain")
	go func() {
		defer close(plain.done)
		out, err := exec.Command("go", "build", "-o", plain.path, ".").CombinedOutput()
		if err != nil {
			plain.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	}()
}

func plainBinary(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return binary
	}
	<-plain.done
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	return plain.path
}

// peakRSS is the peak resident set of a process (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
