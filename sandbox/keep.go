//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// keep makes each kept path that exists read-only in the helper's own
// mount namespace, and makes it impossible to replace: the path is bound
// read-only over itself, and every directory between it and the writable
// directory holding it is bound over itself (pinned). The kernel refuses
// to rename or remove a mount point (EBUSY), so `mv .git .git.old && mkdir
// .git` or `rm -r .git/hooks` cannot put a writable copy where the kept
// path was. Landlock then forbids the command to unmount any of it.
//
// kept are absolute paths or globs; write are the directories commands
// may change (Profile.Writable); a kept path outside them is left alone
// (it is read-only already). A path whose own directory is missing is skipped (nothing to
// bind); one whose parent is a file (a worktree's .git file) keeps that
// file instead. Symbolic links are never followed: a bind would follow
// one to its target.
//
// It refuses, like hide, unless this process has a mount namespace of its
// own; the first mount that fails ends it with an error (the command is
// then not run).
func keep(kept, write []string, parentNS string) error {
	if !ownNamespace(parentNS) {
		return errHostNamespace
	}
	m := mounts{pinned: map[string]bool{}, readOnly: map[string]bool{}}
	table := readMountinfo() // before any bind of ours
	for _, pattern := range kept {
		for _, path := range candidates(pattern) {
			root := holder(path, write)
			if root == "" {
				continue
			}
			if err := m.keep(root, path); err != nil {
				return err
			}
			// The same file seen through another mount of its file system
			// (a bind of the home folder, say): Landlock's grant reaches it
			// there too, so it is kept there as well.
			for _, alias := range table.aliases(path) {
				if err := m.keep(alias.mountpoint, alias.path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// mounts are the binds keep made, each made once.
type mounts struct{ pinned, readOnly map[string]bool }

// keep binds path (inside root) read-only, pinning the directories
// between them.
func (m mounts) keep(root, path string) error {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	dir := root
	for i, part := range parts {
		p := filepath.Join(dir, part)
		info, err := os.Lstat(p)
		switch {
		case err != nil || info.Mode()&os.ModeSymlink != 0:
			return nil // nothing there yet, or a link a bind would follow
		case i == len(parts)-1 || !info.IsDir():
			return m.readOnlyBind(p)
		case !m.pinned[p]:
			if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
				return fmt.Errorf("pinning %s: %w", p, err)
			}
			m.pinned[p] = true
		}
		dir = p
	}
	return nil
}

// readOnlyBind binds p over itself and makes that mount read-only.
func (m mounts) readOnlyBind(p string) error {
	if m.readOnly[p] {
		return nil
	}
	if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("keeping %s read-only: %w", p, err)
	}
	flags := uintptr(syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV) | lockedFlags(p)
	if err := syscall.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("keeping %s read-only: %w", p, err)
	}
	m.readOnly[p] = true
	return nil
}

// lockedFlags are the mount flags of p's mount that a remount must keep:
// in a namespace of lesser privilege the kernel locks them (noexec,
// nosuid, nodev and the atime ones), and a remount that would clear one
// fails with EPERM.
func lockedFlags(p string) uintptr {
	var st unix.Statfs_t
	if unix.Statfs(p, &st) != nil {
		return 0
	}
	var flags uintptr
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return flags
}

// holder returns the writable directory that holds path, or "".
func holder(path string, write []string) string {
	best := ""
	for _, w := range write {
		w = filepath.Clean(w)
		if within(path, w) && len(w) > len(best) {
			best = w
		}
	}
	return best
}

// privateMounts stops this namespace's mounts from propagating back to
// the parent's (and the parent's from arriving here).
func privateMounts() error {
	return syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, "")
}

// needsNamespace reports whether p is enforced with a user and mount
// namespace of the helper's own: it denies trees, or a kept path exists.
// (One that does not exist when the command is started has nothing to
// bind: whatever made it since could write it too.)
func needsNamespace(p Profile) bool {
	return len(p.Deny) > 0 || anyKept(p.Kept, p.Writable()) || len(hiddenPaths(p.Hidden, p.Write)) > 0
}

// anyKept reports whether keep would find something to keep: a glob's
// match, or a file in the place of one of a path's folders below its
// writable directory.
func anyKept(kept, write []string) bool {
	for _, g := range kept {
		for _, c := range candidates(g) {
			if _, err := os.Lstat(c); err == nil {
				return true
			}
			root := holder(c, write)
			for d := filepath.Dir(c); root != "" && len(d) > len(root); d = filepath.Dir(d) {
				if info, err := os.Lstat(d); err == nil {
					if info.Mode().IsRegular() {
						return true
					}
					break // a folder: those above it are folders too
				}
			}
		}
	}
	return false
}

// ambientCaps is what the helper is started with when this process is
// not root: the one capability its mounts need, raised across its exec
// as an ambient capability (it is uid 0 nowhere, so none would survive
// otherwise). dropAmbient takes it away before the command starts.
func ambientCaps() []uintptr {
	if os.Getuid() == 0 {
		return nil
	}
	return []uintptr{unix.CAP_SYS_ADMIN}
}

// dropAmbient clears the calling thread's ambient capabilities, so that
// what it executes or forks next, running as an ordinary user, has none.
// The caller must be locked to its thread.
func dropAmbient() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	return nil
}
