package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spill files (the whole output of a command longer than BashOutputCap)
// live in a folder of this process, os.TempDir()/dsh-bridge-spill/
// <pid>.<start>, where start is the process's start time in clock ticks
// (pids are reused; a pid with another start time is another process).
// A session's spill files are deleted when its tools are disposed; the
// folder of a process that died without cleaning up is swept by the next
// process to start (SweepSpills).

// spillRoot is the folder of every process's spill folder.
func spillRoot() string { return filepath.Join(os.TempDir(), "dsh-bridge-spill") }

var (
	spillOnce sync.Once
	spillDir  string
)

// ownSpillDir is this process's spill folder, created (0700) on first use.
func ownSpillDir() (string, error) {
	spillOnce.Do(func() {
		dir := filepath.Join(spillRoot(), fmt.Sprintf("%d.%d", os.Getpid(), startTicks(os.Getpid())))
		if err := os.MkdirAll(dir, 0o700); err == nil {
			spillDir = dir
		}
	})
	if spillDir == "" {
		return "", fmt.Errorf("cannot create the spill folder under %s", spillRoot())
	}
	return spillDir, nil
}

// startTicks is a process's start time (field 22 of /proc/<pid>/stat), or
// 0 when it cannot be read (the process is gone).
func startTicks(pid int) uint64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(fields[19], 10, 64) // field 22 overall
	return n
}

// SweepSpills removes the spill folders of processes that are gone, and
// spill files of older versions (dsh-bash-output-*.txt in the temporary
// folder) older than a day. It returns how many it removed.
func SweepSpills() int {
	removed := 0
	entries, _ := os.ReadDir(spillRoot())
	for _, e := range entries {
		pidStr, startStr, ok := strings.Cut(e.Name(), ".")
		pid, err1 := strconv.Atoi(pidStr)
		start, err2 := strconv.ParseUint(startStr, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		if pid == os.Getpid() || (alive(pid) && startTicks(pid) == start) {
			continue
		}
		if os.RemoveAll(filepath.Join(spillRoot(), e.Name())) == nil {
			removed++
		}
	}
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), "dsh-bash-output-*.txt"))
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > 24*time.Hour && os.Remove(p) == nil {
			removed++
		}
	}
	return removed
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// spillSet is one session's spill files, deleted together.
type spillSet struct {
	mu     sync.Mutex
	paths  []string
	closed bool
}

// create makes a new spill file owned by the set.
func (s *spillSet) create() (*os.File, error) {
	dir, err := ownSpillDir()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "bash-output-*.txt")
	if err != nil {
		return nil, err
	}
	if s == nil {
		return f, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed { // the session ended while the command ran
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("the session has ended")
	}
	s.paths = append(s.paths, f.Name())
	return f, nil
}

// removeAll deletes the set's files; later creations fail.
func (s *spillSet) removeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.paths {
		os.Remove(p)
	}
	s.paths, s.closed = nil, true
}

// RemoveOwnSpillDir deletes this process's spill folder (at exit, once
// every session is closed).
func RemoveOwnSpillDir() {
	if spillDir != "" {
		os.RemoveAll(spillDir)
	}
}
