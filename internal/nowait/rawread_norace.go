//go:build !race

package nowait

// raceSyncRead does nothing outside race builds (see rawread_race.go).
func raceSyncRead(uintptr) {}
