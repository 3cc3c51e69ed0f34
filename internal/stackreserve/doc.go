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
