package primitive

// workStack is the stack a crawl's page goroutines are given when they
// start: enough for the conversion's walks over a page's tree and for the
// HTTP client's calls without growing again on most pages.
const workStack = 16 << 10

// stackFrame is the frame of growStack: larger than the runtime's
// smallest stack (8 KiB), so that a goroutine still on it grows once, to
// workStack (the runtime doubles a stack until the frame fits), and
// smaller than workStack by more than the runtime's guard and the few
// frames below it, so that it grows no further.
const stackFrame = workStack * 3 / 4

// growStack gives the calling goroutine a stack of workStack bytes at
// once, while only its first frames are on it. A goroutine starts on the
// runtime's smallest stack and grows it by doubling, each time copying
// the whole stack and adjusting every frame's pointers; a page's
// goroutine (new for each page: a worker's and its conversion's) did so
// two or three times a page, deep in the walks or the client, for about
// 1 % of a crawl's instructions. One growth here copies a frame or two.
// A goroutine whose stack is already that large pays for zeroing the
// frame only.
//
//go:noinline
func growStack() byte {
	var frame [stackFrame]byte
	return frame[stackIndex]
}

// stackIndex keeps the compiler from dropping growStack's frame: the
// index it reads is not known before run time.
var stackIndex int
