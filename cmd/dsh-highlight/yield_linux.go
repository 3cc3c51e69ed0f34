package main

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// yieldCPU lowers the priority of every thread of this process. Linux
// keeps niceness per thread, and threads inherit their creator's, so once
// the threads the runtime has started are lowered, the ones it starts
// later are too. A thread started while the list is being walked (by one
// not lowered yet) is caught by walking it again, until a walk finds no
// thread it has not lowered.
func yieldCPU() error {
	done := map[int]bool{}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			err = syscall.Setpriority(syscall.PRIO_PROCESS, tid, niceness)
			if err != nil && !errors.Is(err, syscall.ESRCH) { // ESRCH: it has exited
				return err
			}
			done[tid], fresh = true, true
		}
		if !fresh {
			return nil
		}
	}
}
