// Package confine takes from a helper process, for good, what it does not
// need: files, the network, and other processes' abstract sockets and
// signals (Landlock, as much as the kernel offers).
package confine

import "github.com/landlock-lsm/go-landlock/landlock"

// Process confines the calling process: no file access at all, no TCP
// bind or connect, no abstract UNIX sockets or signals outside its own
// Landlock domain. It is for helpers that need nothing but the pipes they
// already hold (dsh-highlight's lexers, dsh-code's VM and dsh-markdown's
// parser are compiled in, and their input is what the bridge sends), and
// bounds what a flaw in them, reached by a file the model reads, a program
// it writes or a page it fetches, could touch. Where the kernel has no
// Landlock it confines nothing and returns nil (best effort); threads
// started later inherit the confinement.
func Process() error {
	return landlock.V7.BestEffort().Restrict()
}
