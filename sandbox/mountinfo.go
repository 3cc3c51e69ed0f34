package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
)

// mountEntry is one line of /proc/self/mountinfo: the file system (its
// device), the folder of it the mount shows (root), and where.
type mountEntry struct {
	dev, root, mountpoint string
}

// mountTable is a process's mounts, in mountinfo's order (a later mount
// at a point covers an earlier one).
type mountTable []mountEntry

// readMountinfo reads this process's mounts; nil when it cannot.
func readMountinfo() mountTable {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var t mountTable
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		t = append(t, mountEntry{dev: f[2], root: unescapeMount(f[3]), mountpoint: unescapeMount(f[4])})
	}
	return t
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// alias is another path at which a file is visible, and the mount point
// of the mount that shows it there.
type alias struct{ path, mountpoint string }

// within reports whether p is dir or lies below it.
func within(p, dir string) bool { return safepath.Within(p, dir) }

// mountOf returns the mount path is seen through: the last entry whose
// mount point holds it.
func (t mountTable) mountOf(path string) (mountEntry, bool) {
	var best mountEntry
	found := false
	for _, e := range t {
		if within(path, e.mountpoint) && (!found || len(e.mountpoint) >= len(best.mountpoint)) {
			best, found = e, true
		}
	}
	return best, found
}

// aliases returns the other paths at which path (absolute, clean) is
// visible: every other mount of its file system whose root holds it,
// where that path is not covered by a mount of its own.
func (t mountTable) aliases(path string) []alias {
	own, ok := t.mountOf(path)
	if !ok {
		return nil
	}
	fsPath := filepath.Join(own.root, strings.TrimPrefix(path, own.mountpoint))
	var out []alias
	for _, e := range t {
		if e.dev != own.dev || e.mountpoint == own.mountpoint || !within(fsPath, e.root) {
			continue
		}
		p := filepath.Join(e.mountpoint, strings.TrimPrefix(fsPath, e.root))
		if at, ok := t.mountOf(p); p == path || !ok || at.mountpoint != e.mountpoint {
			continue // the same path, or covered there by another mount
		}
		out = append(out, alias{path: p, mountpoint: e.mountpoint})
	}
	return out
}
