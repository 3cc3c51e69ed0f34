//go:build linux || darwin

package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFingerprintSeesSameSizeSameTime: a rewrite in place, and a file
// renamed over another, both keeping size, modification time and mode,
// still change the fingerprint (change time, inode).
func TestFingerprintSeesSameSizeSameTime(t *testing.T) {
	tests := []struct {
		name    string
		rewrite func(t *testing.T, p string)
	}{
		{"rewritten in place", func(t *testing.T, p string) {
			must(t, os.WriteFile(p, []byte("BBBB"), 0o644))
		}},
		{"renamed over", func(t *testing.T, p string) {
			tmp := p + ".t"
			must(t, os.WriteFile(tmp, []byte("BBBB"), 0o644))
			must(t, os.Rename(tmp, p))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			must(t, os.WriteFile(p, []byte("AAAA"), 0o644))
			fi, err := os.Lstat(p)
			must(t, err)
			before := fingerprint(fi)
			if before.ctime == 0 || before.ino == 0 {
				t.Fatalf("no change time or inode: %+v", before)
			}
			tt.rewrite(t, p)
			must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
			fi2, err := os.Lstat(p)
			must(t, err)
			after := fingerprint(fi2)
			if after.size != before.size || after.mtime != before.mtime || after.mode != before.mode {
				t.Fatalf("the rewrite did not keep size, time and mode: %+v %+v", before, after)
			}
			if after == before {
				t.Errorf("fingerprint unchanged: %+v", after)
			}
			d := Compare(Snapshot{p: before}, Snapshot{p: after})
			if len(d.Modified) != 1 {
				t.Errorf("Compare %+v", d)
			}
		})
	}
}
