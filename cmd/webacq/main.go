// Command webacq is the web-acquisition service: API, MCP endpoint, workers
// and the operator's command line in one binary.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(Run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// Run runs one command line and returns the exit status.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	m := &Main{Getenv: getenv, Stdout: stdout, Stderr: stderr}
	defer m.Close()
	if err := m.Run(ctx, args); err != nil {
		fmt.Fprintln(stderr, "webacq:", err)
		return 1
	}
	return 0
}
