package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// build compiles cmd/webacq into dir and returns the binary's path.
func build(dir string) (string, error) {
	bin := filepath.Join(dir, "webacq")
	out, err := exec.Command("go", "build", "-o", bin, "webacq/cmd/webacq").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// cli runs one command of the binary to completion and returns its stdout.
func cli(bin, dbURL string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("webacq %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// node is a running `webacq serve` or `webacq worker`.
type node struct {
	cmd       *exec.Cmd
	url       string
	debugAddr string
	logPath   string
	started   time.Time // when it was ready
	done      chan struct{}
}

func (n *node) pid() int { return n.cmd.Process.Pid }

// startNode starts `webacq serve` (or `webacq worker`) with env and waits
// until it listens (works); its log goes to logPath.
func startNode(bin, command, dbURL, logPath string, env []string) (*node, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	debug, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, command)
	cmd.Env = append(append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL, "WEBACQ_ADDR="+addr,
		"WEBACQ_DEBUG_ADDR="+debug), env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	n := &node{cmd: cmd, url: "http://" + addr, debugAddr: debug, logPath: logPath, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer logf.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var once sync.Once
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if strings.Contains(line, "msg=listening") || strings.Contains(line, `msg="worker started"`) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	go func() { cmd.Wait(); pw.Close(); close(n.done) }()
	select {
	case <-ready:
		n.started = time.Now()
		return n, nil
	case <-n.done:
		return nil, fmt.Errorf("webacq %s exited before it was ready; see %s", command, logPath)
	case <-time.After(60 * time.Second):
		n.stop()
		return nil, fmt.Errorf("webacq %s was not ready within 60 s; see %s", command, logPath)
	}
}

// stop asks the node to shut down and kills it if it does not in time.
func (n *node) stop() {
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(30 * time.Second):
		n.cmd.Process.Kill()
		<-n.done
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// procStatus reads a field of /proc/PID/status in kB (VmHWM, VmRSS).
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// clockTicks is USER_HZ, which is 100 on every Linux this runs on.
const clockTicks = 100

// cpuSeconds is the user plus system time a process has used.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after it are fixed.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks
}

// sampler keeps the largest VmRSS seen of a process until stopped; VmHWM
// is the kernel's own peak, read at the end.
type sampler struct {
	pid    int
	mu     sync.Mutex
	maxRSS int64
	cancel context.CancelFunc
	done   chan struct{}
}

func sample(pid int, every time.Duration) *sampler {
	ctx, cancel := context.WithCancel(context.Background())
	s := &sampler{pid: pid, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if kb, err := procStatus(pid, "VmRSS"); err == nil {
				s.mu.Lock()
				s.maxRSS = max(s.maxRSS, kb)
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// peak stops sampling and returns the kernel's peak (VmHWM) and the
// largest sampled VmRSS, in MB.
func (s *sampler) peak() (hwm, rss float64) {
	kb, _ := procStatus(s.pid, "VmHWM")
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(kb) / 1024, float64(s.maxRSS) / 1024
}
