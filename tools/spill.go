package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Spill files (the whole output of a command longer than BashOutputCap)
// live in a folder of this process, os.TempDir()/dsh-bridge-spill-<uid>/
// <pid>.<start>, where start is the process's start time in clock ticks
// (pids are reused; a pid with another start time is another process).
// A session's spill files are deleted when its tools are disposed; the
// folder of a process that died without cleaning up is swept by the next
// process to start (SweepSpills).
//
// The temp folder is one sandboxed commands may write. One could plant a
// symlink in the place of either folder (to a folder a shell sources
// whole, ~/.bashrc.d, and then print a script long enough to spill), or
// swap a folder for one after it was made: every spill file is therefore
// made, and every folder swept, through an os.Root opened on a folder
// checked to be a real one of this user's alone, so no path reaches
// outside it, whatever is renamed meanwhile.

// spillRoot is the folder of every process's spill folder under tmp.
func spillRoot(tmp string) string {
	return filepath.Join(tmp, "dsh-bridge-spill-"+strconv.Itoa(os.Getuid()))
}

// spillFolder is a process's spill folder, made on first use.
type spillFolder struct {
	tmp  string // the temp folder; "" is os.TempDir() at first use
	once sync.Once
	root *os.Root // spillRoot
	own  *os.Root // <pid>.<start> in it
	name string   // own's name in root
	path string   // own's path
	err  error
}

// ownSpills is this process's.
var ownSpills = &spillFolder{}

// open makes and opens the folder, once.
func (s *spillFolder) open() (*os.Root, string, error) {
	s.once.Do(func() {
		if s.tmp == "" {
			s.tmp = os.TempDir()
		}
		s.name = fmt.Sprintf("%d.%d", os.Getpid(), startTicks(os.Getpid()))
		if s.root, s.err = openOwnFolder(spillRoot(s.tmp), true); s.err != nil {
			return
		}
		s.own, s.err = makeOwnSub(s.root, s.name)
		s.path = filepath.Join(spillRoot(s.tmp), s.name)
	})
	if s.err != nil {
		return nil, "", fmt.Errorf("cannot create the spill folder under %s: %w", spillRoot(s.tmp), s.err)
	}
	return s.own, s.path, nil
}

// remove deletes the folder and closes it (at exit, once every session
// is closed).
func (s *spillFolder) remove() {
	if s.own == nil {
		return
	}
	s.own.Close()
	s.root.RemoveAll(s.name)
	s.root.Close()
	s.own, s.root, s.err = nil, nil, errors.New("closed")
}

// openOwnFolder opens path as an os.Root, making it (0700) when create
// is set and it is missing, only if it is a real folder (not a symlink) of
// this user's that no one else may write, and still the same folder once
// open.
func openOwnFolder(path string, create bool) (*os.Root, error) {
	if create {
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := ownFolder(before); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	if after, err := r.Stat("."); err != nil || !os.SameFile(before, after) {
		r.Close()
		return nil, fmt.Errorf("%s was replaced while it was opened", path)
	}
	return r, nil
}

// makeOwnSub makes the folder name in r and opens it; whatever else was
// in that place (a symlink, a file) is removed first.
func makeOwnSub(r *os.Root, name string) (*os.Root, error) {
	if fi, err := r.Lstat(name); err == nil && ownFolder(fi) != nil {
		if err := r.RemoveAll(name); err != nil {
			return nil, err
		}
	}
	if err := r.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	sub, err := r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if fi, err := sub.Stat("."); err != nil || ownFolder(fi) != nil {
		sub.Close()
		return nil, fmt.Errorf("%s is not a folder of this user's alone", name)
	}
	return sub, nil
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
func SweepSpills() int { return sweepSpills(os.TempDir()) }

func sweepSpills(tmp string) int {
	removed := 0
	if r, err := openOwnFolder(spillRoot(tmp), false); err == nil {
		defer r.Close()
		entries, _ := fs.ReadDir(r.FS(), ".")
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
			if r.RemoveAll(e.Name()) == nil {
				removed++
			}
		}
	}
	old, _ := filepath.Glob(filepath.Join(tmp, "dsh-bash-output-*.txt"))
	for _, p := range old {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > 24*time.Hour && os.Remove(p) == nil {
			removed++
		}
	}
	return removed
}

// spillSet is one session's spill files, deleted together.
type spillSet struct {
	folder *spillFolder // nil: this process's
	mu     sync.Mutex
	names  []string
	closed bool
}

// spillFolder is where the set's files go: its folder, else this
// process's.
func (s *spillSet) spillFolder() *spillFolder {
	if s != nil && s.folder != nil {
		return s.folder
	}
	return ownSpills
}

// create makes a new spill file owned by the set, and returns it with
// its path.
func (s *spillSet) create() (*os.File, string, error) {
	own, dir, err := s.spillFolder().open()
	if err != nil {
		return nil, "", err
	}
	var f *os.File
	var name string
	for range 10 {
		name = fmt.Sprintf("bash-output-%016x.txt", rand.Uint64())
		if f, err = own.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, "", err
	}
	if s == nil {
		return f, filepath.Join(dir, name), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed { // the session ended while the command ran
		f.Close()
		own.Remove(name)
		return nil, "", fmt.Errorf("the session has ended")
	}
	s.names = append(s.names, name)
	return f, filepath.Join(dir, name), nil
}

// removeAll deletes the set's files; later creations fail.
func (s *spillSet) removeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.names) == 0 {
		s.closed = true
		return
	}
	if own, _, err := s.spillFolder().open(); err == nil {
		for _, name := range s.names {
			own.Remove(name)
		}
	}
	s.names, s.closed = nil, true
}

// RemoveOwnSpillDir deletes this process's spill folder (at exit, once
// every session is closed).
func RemoveOwnSpillDir() { ownSpills.remove() }
