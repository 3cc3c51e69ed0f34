package stackreserve

import "unsafe"

// Size is the stack [Grow] leaves a goroutine: the smallest power of two
// that holds its reserve and the runtime's guard.
const Size = 16 << 10

// reserve is Grow's frame: half of Size, so that the runtime (which
// doubles the stack until the frame and its guard fit) settles on Size.
const reserve = Size / 2

// Grow gives the calling goroutine a stack of Size (unless it has one as
// large already). Call it first thing in a goroutine that will run a deep
// chain; it costs zeroing the reserve.
//
//go:noinline
func Grow() {
	var pad [reserve]byte
	keep(&pad)
}

// keep takes the reserve's address so that the compiler keeps the frame
// (it does not escape: the reserve stays on the stack).
//
//go:noinline
func keep(*[reserve]byte) {}

// Fits reports whether a chain of calls using n more bytes of stack ran
// without the runtime moving the calling goroutine's stack (which it does
// to grow it): how a test checks that a goroutine was started with Grow.
func Fits(n int) bool {
	var here byte
	before := uintptr(unsafe.Pointer(&here))
	chain(n / chainFrame)
	return uintptr(unsafe.Pointer(&here)) == before
}

// chainFrame is the stack each link of Fits's chain takes, at least.
const chainFrame = 256

// chain calls itself n times, each call with a frame of chainFrame bytes.
//
//go:noinline
func chain(n int) byte {
	var b [chainFrame]byte
	b[n%chainFrame] = byte(n)
	if n <= 0 {
		return b[0]
	}
	return chain(n-1) + b[n%chainFrame]
}
