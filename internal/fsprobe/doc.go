// Package fsprobe holds test helpers that ask the file system a test runs
// on what it can do: make symlinks (Windows may not, and Wine 8.0's
// os.Symlink answers nil and makes nothing) and fold case (Windows, Wine's
// Z: and macOS by default). Tests use the answers to pick which cases
// apply, so one test file serves every platform.
package fsprobe
