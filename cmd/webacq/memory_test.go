package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// A binary built without the race detector, for tests that measure a
// node's memory: the race detector multiplies every allocation's cost.
var plain struct {
	once sync.Once
	path string
	err  error
}

func plainBinary(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return binary
	}
	plain.once.Do(func() {
		plain.path = filepath.Join(filepath.Dir(binary), "webacq-plain")
		out, err := exec.Command("go", "build", "-o", plain.path, ".").CombinedOutput()
		if err != nil {
			plain.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
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
