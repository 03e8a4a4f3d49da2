//go:build linux

package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// sandboxSupported: prlimit and process groups exist here.
const sandboxSupported = true

// poppler reads body with pdftotext in a child process. prlimit sets the
// CPU-time and address-space limits on itself and then executes
// pdftotext, so the limits hold from pdftotext's first instruction; it
// also forbids core dumps and writing files (pipes are not files). The
// child leads its own process group, killed whole when ctx ends or when
// its output passes the text cap.
func (r *Reader) poppler(ctx context.Context, body []byte) (*Result, error) {
	lim := r.limits
	cpu := int64(math.Ceil(lim.CPU.Seconds())) // prlimit counts whole seconds
	cmd := exec.CommandContext(ctx, r.prlimit,
		fmt.Sprintf("--cpu=%d", cpu), fmt.Sprintf("--as=%d", lim.Memory), "--core=0", "--fsize=0",
		"--", r.pdftotext, "-enc", "UTF-8", "-bbox-layout", "-", "-")
	cmd.Env = []string{"LC_ALL=C.UTF-8"}
	cmd.Dir = os.TempDir()
	cmd.Stdin = bytes.NewReader(body)
	stderr := &capWriter{max: 8 << 10}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	kill := func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Cancel = kill
	// Wait returns this long after the child died even if something
	// still holds its pipes.
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("pdftext: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pdftext: start pdftotext: %w", err)
	}
	res, perr := parseBBox(stdout, lim.MaxText)
	if perr != nil {
		kill()
	}
	werr := cmd.Wait()

	switch {
	case perr != nil:
		return nil, perr
	case werr == nil:
		if res.words == 0 && strings.Contains(stderr.String(), "Error") {
			// pdftotext exits 0 on a page tree it refused (a loop, a
			// missing root): no text and an error said is a broken
			// document, not an empty one.
			return nil, fmt.Errorf("%w: %s", ErrUnreadable, stderr.excerpt())
		}
		res.Text = mendHyphens(res.Text)
		return &res.Result, nil
	case ctx.Err() != nil:
		return nil, ctxError(ctx)
	}
	ps := cmd.ProcessState
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		used := ps.UserTime() + ps.SystemTime()
		switch sig := ws.Signal(); {
		// The kernel kills at the CPU limit, though the child's accounted
		// time reads somewhat under it; the other killer, ctx, was ruled
		// out above.
		case (sig == syscall.SIGKILL || sig == syscall.SIGXCPU) && used >= lim.CPU/2:
			return nil, &LimitError{Message: fmt.Sprintf("it needed more than %s of CPU time", lim.CPU), Detail: fmt.Sprintf("signal %q after %s of CPU", sig, used)}
		case outOfMemory(stderr.String()):
			return nil, &LimitError{Message: fmt.Sprintf("it needed more than %d MiB of memory", lim.Memory>>20), Detail: stderr.excerpt()}
		default:
			return nil, fmt.Errorf("%w: pdftotext died of %v: %s", ErrUnreadable, sig, stderr.excerpt())
		}
	}
	if errors.Is(werr, exec.ErrWaitDelay) {
		return nil, fmt.Errorf("pdftext: pdftotext: %w", werr)
	}
	return nil, fmt.Errorf("%w: pdftotext: %v: %s", ErrUnreadable, werr, stderr.excerpt())
}

// outOfMemory reports poppler's words for a failed allocation.
func outOfMemory(stderr string) bool {
	return strings.Contains(stderr, "Out of memory") || strings.Contains(stderr, "bad_alloc")
}

// capWriter keeps the first max bytes written to it and drops the rest.
type capWriter struct {
	b   bytes.Buffer
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.b.String() }

// excerpt is the start of what was written, on one line, for the log.
func (w *capWriter) excerpt() string {
	s := strings.Join(strings.Fields(w.b.String()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
