//go:build !linux

package content

import "time"

// spent is the wall time f took where a thread's CPU time cannot be read.
func spent(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
