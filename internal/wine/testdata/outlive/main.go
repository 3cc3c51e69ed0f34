// Command outlive is the Wine session test's command: "outlive spawn
// MARKER READY" starts "outlive sleep MARKER READY" as a process of its
// own, waits until that one has made the file READY, and exits, leaving
// it running; "outlive sleep MARKER READY" makes READY and sleeps for five
// minutes. MARKER only names the process, for the test to find it.
package main

import (
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) != 4 {
		os.Exit(2)
	}
	marker, ready := os.Args[2], os.Args[3]
	switch os.Args[1] {
	case "spawn":
		if err := exec.Command(os.Args[0], "sleep", marker, ready).Start(); err != nil {
			os.Exit(1)
		}
		for range 600 {
			if _, err := os.Stat(ready); err == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		os.Exit(1)
	case "sleep":
		if err := os.WriteFile(ready, []byte("ready"), 0o644); err != nil {
			os.Exit(1)
		}
		time.Sleep(5 * time.Minute)
	default:
		os.Exit(2)
	}
}
