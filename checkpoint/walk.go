package checkpoint

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// entry is what a walk keeps of a file: enough to see that it changed,
// nothing read from it. ctime and ino are the platform's change time
// and file number where a stat gives them (statExtra), else zero: a
// change that keeps size, modification time and mode still moves them.
type entry struct {
	size  int64
	mtime int64 // nanoseconds
	mode  fs.FileMode
	ctime int64 // nanoseconds; 0: not known
	ino   uint64
}

// fingerprint is what a walk keeps of fi.
func fingerprint(fi fs.FileInfo) entry {
	ctime, ino := statExtra(fi.Sys())
	return entry{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode(), ctime: ctime, ino: ino}
}

// Snapshot is the files under some roots, by path.
type Snapshot map[string]entry

// skipDir reports the folders a walk does not enter: git's own store
// (a command's commits are git's to undo, and its objects are many).
func skipDir(name string) bool { return name == ".git" }

// within reports whether path is one of dirs or under one (all clean,
// resolved paths).
func within(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Walk takes a snapshot of every file under roots but those in or under
// skip (symbolic links are recorded, not followed). Unreadable folders
// are skipped.
func Walk(roots []string, skip ...string) Snapshot {
	snap := Snapshot{}
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	for _, root := range roots {
		if !within(root, skip) {
			walkDir(root, snap, skipped)
		}
	}
	return snap
}

func walkDir(dir string, snap Snapshot, skipped map[string]bool) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		if d.IsDir() {
			if !skipDir(d.Name()) && !skipped[p] {
				walkDir(p, snap, skipped)
			}
			continue
		}
		fi, err := d.Info()
		if err != nil {
			continue
		}
		snap[p] = fingerprint(fi)
	}
}

// Diff is what changed between two snapshots of the same roots.
type Diff struct {
	Created, Modified, Removed []string
}

// Compare lists the paths that appeared in after, that differ in any
// part of their fingerprint (size, modification time, mode, change
// time, file number), and that are gone, each sorted.
func Compare(before, after Snapshot) Diff {
	var d Diff
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			d.Created = append(d.Created, p)
		case a != b:
			d.Modified = append(d.Modified, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			d.Removed = append(d.Removed, p)
		}
	}
	slices.Sort(d.Created)
	slices.Sort(d.Modified)
	slices.Sort(d.Removed)
	return d
}

// changedSince reports whether path is not as snap recorded it (present
// then and changed or gone, or absent then and there now).
func changedSince(snap Snapshot, path string) (changed, existed bool) {
	b, existed := snap[path]
	fi, err := os.Lstat(path)
	if err != nil {
		return existed, existed
	}
	if !existed {
		return true, false
	}
	return fingerprint(fi) != b, true
}
