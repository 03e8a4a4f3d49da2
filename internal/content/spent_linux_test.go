package content

import (
	"runtime"
	"syscall"
	"time"
)

// spent runs f on a thread of its own and returns the CPU time that
// thread used: the work f did, whatever else the machine runs. The
// tests that bound a hostile input's cost use it rather than the wall
// clock, which a loaded CI machine stretched twentyfold (a 1 s render
// under -race took 21 s beside the other packages' tests). f must not
// hand its work to other goroutines; the collector's background
// marking is not counted, its assists are.
func spent(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadTime()
	f()
	return threadTime() - before
}

func threadTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
