// Package stackreserve grows a new goroutine's stack in one step, before
// the deep call chain that would otherwise grow it several times.
//
// A goroutine starts with a small stack (2 KiB, or the runtime's running
// average) and the runtime doubles it, copying every frame, each time a
// call would overflow it. A goroutine that runs a tool call through the
// pipeline's wrappers, guards and JSON encoders reaches a 16 KiB stack
// after three such copies, each of them walking the whole chain of frames
// to move its pointers. [Grow] makes one call whose frame needs the room:
// the runtime sizes the new stack for it at once, and copies only the few
// shallow frames below.
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
