//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelper_DeniedFiles: a denied file (not a tree), in the workspace
// and outside it, cannot be read with Landlock alone (reading it fails)
// nor with the namespace (it is masked: it reads empty), while files
// beside it, one whose name merely starts the same included, stay
// readable.
func TestHelper_DeniedFiles(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for path, text := range map[string]string{
		filepath.Join(ws, ".env"):         "TOPSECRET-in",
		filepath.Join(ws, ".env.example"): "example",
		filepath.Join(ws, "plain"):        "plain",
		filepath.Join(out, "token"):       "TOPSECRET-out",
		filepath.Join(out, "token2"):      "beside",
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Profile{Write: []string{ws}, Deny: []string{filepath.Join(ws, ".env"), filepath.Join(out, "token")}}
	modes := []bool{false}
	if userNamespaces() {
		modes = append(modes, true)
	}
	for _, namespace := range modes {
		for _, tc := range []struct {
			name, script, want string // want "" means the command fails
		}{
			{"the denied file in the workspace", "cat .env", ""},
			{"the denied file outside", "cat " + filepath.Join(out, "token"), ""},
			{"a file that starts the same", "cat .env.example", "example"},
			{"a file outside that starts the same", "cat " + filepath.Join(out, "token2"), "beside"},
			{"the rest of the workspace", "cat plain", "plain"},
		} {
			t.Run(map[bool]string{false: "landlock only", true: "namespace"}[namespace]+"/"+tc.name, func(t *testing.T) {
				got, err := helperRunAttr(t, p, sysProcAttr(p, namespace), ws, tc.script)
				switch {
				case tc.want == "" && strings.Contains(got, "TOPSECRET"):
					t.Errorf("got err %v, output %q; want nothing of the file", err, got)
				case tc.want == "" && !namespace && err == nil:
					t.Errorf("got output %q; want a failure", got)
				case tc.want == "" && namespace && got != "":
					t.Errorf("got err %v, output %q; want the masked file empty", err, got)
				case tc.want != "" && (err != nil || got != tc.want):
					t.Errorf("got err %v, output %q; want %q", err, got, tc.want)
				}
			})
		}
	}
}

// TestKept_WorktreeGitFile: in a git worktree .git is a file naming the
// real git folder; keeping .git/hooks and .git/config there keeps that
// file itself read-only and in its place, while a file beside it whose
// name starts the same stays writable.
func TestKept_WorktreeGitFile(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	if !userNamespaces() {
		t.Fatal("no user namespaces here; platform-notes.md says they work on this machine kind")
	}
	const gitdir = "gitdir: /elsewhere/.git/worktrees/w\n"
	worktree := func(t *testing.T) (Profile, string) {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		if err := os.WriteFile(filepath.Join(dir, ".git"), []byte(gitdir), 0o644); err != nil {
			t.Fatal(err)
		}
		p := Profile{Write: []string{dir}, Kept: []string{filepath.Join(dir, ".git", "hooks"), filepath.Join(dir, ".git", "config")}}
		if !needsNamespace(p) {
			t.Fatal("a .git file in the place of the kept paths' folder must be kept (needsNamespace)")
		}
		return p, dir
	}
	for _, tc := range []struct {
		name, script string
		fails        bool
		output       string // in the output when it fails
	}{
		{"appending to it", "echo 'gitdir: /tmp/evil' >> .git", true, "Read-only file system"},
		{"overwriting it", "echo 'gitdir: /tmp/evil' > .git", true, "Read-only file system"},
		{"moving it away", "mv .git .git.old", true, ""},
		{"removing it", "rm -f .git", true, ""},
		{"a file beside it", "echo x > .gitignore && cat .gitignore", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, dir := worktree(t)
			out, err := helperRun(t, p, dir, tc.script, false)
			if tc.fails && (err == nil || !strings.Contains(out, tc.output)) {
				t.Errorf("got err %v, output %q; want a failure with %q", err, out, tc.output)
			}
			if !tc.fails && (err != nil || out != "x\n") {
				t.Errorf("got err %v, output %q", err, out)
			}
			if b, err := os.ReadFile(filepath.Join(dir, ".git")); err != nil || string(b) != gitdir {
				t.Errorf("the .git file changed: %q %v", b, err)
			}
		})
	}
}
