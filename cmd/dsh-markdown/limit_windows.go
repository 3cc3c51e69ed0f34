package main

import "errors"

// capMemory does nothing: Windows has no rlimits (a Job Object could cap
// the process; this build sets none).
func capMemory() error { return errors.New("no memory cap on Windows") }
