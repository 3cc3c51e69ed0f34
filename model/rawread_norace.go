//go:build !race

package model

// raceSyncRead does nothing outside race builds (see rawread_race.go).
func raceSyncRead(uintptr) {}
