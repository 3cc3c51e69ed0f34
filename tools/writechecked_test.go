//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// TestWriteChecked: a guarded local write lands in the directory that was
// judged. A directory swapped for a symlink to one outside the workspace
// while the rules judge the path sends the write nowhere; swapped after
// the directory was opened, the write still lands in the directory opened.
// It writes as WriteTextFile does: through a final symlink to its target,
// keeping an existing file's mode.
func TestWriteChecked(t *testing.T) {
	rules := &recordingRules{denyTree: denyTree{"/nonexistent/denied"}}
	e := newEnv(t, LocalHost{}, func(o *Options) { o.Rules = rules })
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	d := filepath.Join(e.dir, "d")
	swapDir := func(at int) func() {
		n := 0
		return func() {
			if n++; n == at {
				os.Rename(d, d+".moved")
				os.Symlink(outside, d)
			}
		}
	}
	for _, tc := range []struct {
		name, path string
		swap       func() // as the rules judge the write
		lands      string // where the text must be, relative to the workspace
		failed     bool
	}{
		{name: "a new file", path: "d/x.txt", lands: "d/x.txt"},
		{name: "the directory swapped outside at the first judgement", path: "d/x.txt", swap: swapDir(1), failed: true},
		{name: "the directory swapped outside once opened", path: "d/x.txt", swap: swapDir(2), lands: "d.moved/x.txt"},
		{name: "through a link to its target", path: "link.txt", lands: "d/target.txt"},
		{name: "missing parents made", path: "d/new/deeper/y.txt", lands: "d/new/deeper/y.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(d)
			os.RemoveAll(d + ".moved")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "target.txt"), []byte("old\n"), 0o640)
			swapLink(t, filepath.Join(d, "target.txt"), filepath.Join(e.dir, "link.txt"))
			rules.onWrite = tc.swap
			defer func() { rules.onWrite = nil }()
			ctx := workspace.WithJudged(context.Background(), workspace.Judged{Paths: []string{workspace.Resolve(filepath.Join(e.dir, tc.path))}})
			r := e.callCtx(ctx, "write", `{"file_path":"`+tc.path+`","content":"new text\n"}`)
			if r.IsError != tc.failed {
				t.Fatalf("failed %v (%+v), want %v", r.IsError, r.Error, tc.failed)
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("the write reached the outside directory: %v", entries)
			}
			if tc.failed {
				// The refusal as the host gave it: a permission error,
				// its message not wrapped in another.
				wantErr(t, r, "FS_PERMISSION_DENIED", "which this call was not judged on")
				if n := strings.Count(r.Error.Message, "cannot write"); n != 1 {
					t.Errorf("%q says cannot write %d times", r.Error.Message, n)
				}
				return
			}
			if b, err := os.ReadFile(filepath.Join(e.dir, tc.lands)); err != nil || string(b) != "new text\n" {
				t.Errorf("%s = %q (%v)", tc.lands, b, err)
			}
			if tc.path == "link.txt" {
				fi, _ := os.Lstat(filepath.Join(e.dir, "link.txt"))
				st, _ := os.Stat(filepath.Join(d, "target.txt"))
				if fi == nil || fi.Mode()&os.ModeSymlink == 0 || st == nil || st.Mode().Perm() != 0o640 {
					t.Errorf("the link is no longer a link (%v), or the target lost its mode (%v)", fi, st)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(e.dir, "*", ".*.dsh-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
