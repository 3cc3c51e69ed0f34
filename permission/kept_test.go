package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

// TestKept: every path the sandbox keeps read-only is one a file tool must
// ask for (protected), each workspace root has git's hooks and config
// and the package and hook managers' files, a root with pattern
// characters in its name is quoted, and the home folder's start files
// and dsh-bridge's configuration are kept only when a root holds them.
func TestKept(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, tc := range []struct {
		name     string
		root     string
		wantHome bool
	}{
		{"a project", filepath.Join(home, "src", "app"), false},
		{"the home folder itself", home, true},
		{"a name with pattern characters", filepath.Join(base, "we[ir]d*?"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.MkdirAll(tc.root, 0o755); err != nil {
				t.Fatal(err)
			}
			ws, err := tools.NewWorkspace(tc.root)
			if err != nil {
				t.Fatal(err)
			}
			p := New(ws, Settings{}, func() Mode { return ModeDefault })
			kept := p.Kept(ws.Roots())
			for _, k := range kept {
				path := strings.NewReplacer(`\*`, "*", `\?`, "?", `\[`, "[", `\\`, `\`, "*", "x").Replace(k)
				// A kept folder keeps what is in it.
				if p.protected(path) == "" && p.protected(filepath.Join(path, "f")) == "" {
					t.Errorf("kept %s, but a file tool may write %s without asking", k, path)
				}
				if m, err := filepath.Match(k, path); err != nil || !m {
					t.Errorf("the glob %s does not match %s (%v)", k, path, err)
				}
			}
			root := sandbox.GlobQuote(tc.root)
			for _, want := range []string{root + "/.git/hooks", root + "/.git/config", root + "/.git/modules/*/hooks", root + "/.dsh", root + "/.npmrc", root + "/.pre-commit-config.yaml", root + "/.vscode/tasks.json"} {
				if !slices.Contains(kept, want) {
					t.Errorf("%s is not kept: %q", want, kept)
				}
			}
			if got := slices.Contains(kept, filepath.Join(home, ".bashrc")); got != tc.wantHome {
				t.Errorf("~/.bashrc kept: %v, want %v", got, tc.wantHome)
			}
			if got := slices.Contains(kept, filepath.Join(home, ".config", "dsh-bridge")); got != tc.wantHome {
				t.Errorf("dsh-bridge's configuration kept: %v, want %v (%q)", got, tc.wantHome, kept)
			}
		})
	}
}
