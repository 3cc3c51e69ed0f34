package chromatok

import "github.com/landlock-lsm/go-landlock/landlock"

// Confine takes from the calling process, for good, its access to files,
// the network, and other processes' abstract sockets and signals (Landlock,
// as much as the kernel offers; nothing where it has none). The helper
// needs nothing but the pipes it already holds: its lexers are compiled
// into the binary and its input is text the bridge sends. It runs
// chroma's regexps over whatever files the model reads, and this bounds
// what a flaw there could reach.
func Confine() error {
	return landlock.V7.BestEffort().Restrict()
}
