//go:build !linux

package secrets

// HideProcess does nothing here: there is no /proc to blank (macOS shows
// a process's arguments and environment to its user through sysctl;
// ROUGH_EDGES.md).
func HideProcess() error { return nil }
