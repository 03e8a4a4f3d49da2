package primitive

import "testing"

// deepen recurses n times with a frame of about 128 bytes, as the
// conversion's walks do over a page's tree.
//
//go:noinline
func deepen(n int) int {
	var pad [96]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deepen(n-1) + int(pad[n%len(pad)])
}

// BenchmarkPageGoroutine compares a new goroutine that goes about 12 KiB
// deep on the runtime's smallest stack with one that calls growStack
// first: the stack copies growStack saves.
func BenchmarkPageGoroutine(b *testing.B) {
	for _, grow := range []bool{false, true} {
		name := "fresh"
		if grow {
			name = "grown"
		}
		b.Run(name, func(b *testing.B) {
			done := make(chan int)
			for b.Loop() {
				go func() {
					if grow {
						_ = growStack()
					}
					done <- deepen(90)
				}()
				<-done
			}
		})
	}
}
