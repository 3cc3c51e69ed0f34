package permission

import (
	"os"
	pathpkg "path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// TestKept: every path the sandbox keeps read-only is one a file tool must
// ask for (protected), each workspace root has git's hooks and config
// and the package and hook managers' files, a root with pattern
// characters in its name is quoted, and the home folder's start files
// and dsh-bridge's configuration are kept only when a root holds them.
func TestKept(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(base, "home")
	setHome(t, home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	weird := "we[ir]d*?"
	if runtime.GOOS == "windows" {
		weird = "we[ir]d{x}" // Windows refuses * and ? in names
	}
	for _, tc := range []struct {
		name     string
		root     string
		wantHome bool
	}{
		{"a project", filepath.Join(home, "src", "app"), false},
		{"the home folder itself", home, true},
		{"a name with pattern characters", filepath.Join(base, weird), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.MkdirAll(tc.root, 0o755); err != nil {
				t.Fatal(err)
			}
			ws, err := workspace.New(tc.root)
			if err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(home, ".local", "state", "dsh-bridge")
			prog := filepath.Join(tc.root, "bin", "dsh-bridge") // a build of dsh-bridge's own repository
			p := New(ws, Settings{StateDir: state, Programs: []string{prog}}, func() Mode { return ModeDefault })
			kept := p.Kept(ws.Roots())
			for _, k := range kept {
				path := strings.NewReplacer(`\*`, "*", `\?`, "?", `\[`, "[", `\\`, `\`, "*", "x").Replace(k)
				// A kept folder keeps what is in it.
				if p.protected(path) == "" && p.protected(filepath.Join(path, "f")) == "" {
					t.Errorf("kept %s, but a file tool may write %s without asking", k, path)
				}
				// The sandbox's globs: "/" between names, "\\" an escape, on
				// every platform (path.Match's, not filepath.Match's).
				if m, err := pathpkg.Match(k, path); err != nil || !m {
					t.Errorf("the glob %s does not match %s (%v)", k, path, err)
				}
			}
			root := sandbox.GlobQuote(tc.root)
			for _, want := range []string{root + "/.git/hooks", root + "/.git/config", root + "/.git/modules/*/hooks", root + "/.dsh", root + "/.npmrc", root + "/.pre-commit-config.yaml", root + "/.vscode", root + "/.zed", root + "/.claude", root + "/.mcp.json", root + "/.nvim.lua", root + "/.exrc"} {
				if !slices.Contains(kept, want) {
					t.Errorf("%s is not kept: %q", want, kept)
				}
			}
			for _, f := range []string{".bashrc", ".config/nvim", ".config/zed", "go/bin"} {
				if got := slices.Contains(kept, sandbox.GlobQuote(filepath.Join(home, f))); got != tc.wantHome {
					t.Errorf("~/%s kept: %v, want %v", f, got, tc.wantHome)
				}
			}
			if got := slices.Contains(kept, sandbox.GlobQuote(filepath.Join(home, ".config", "dsh-bridge"))); got != tc.wantHome {
				t.Errorf("dsh-bridge's configuration kept: %v, want %v (%q)", got, tc.wantHome, kept)
			}
			// A session log restores the session's mode: bypassPermissions
			// written into one would be granted at its next load.
			if got := slices.Contains(kept, sandbox.GlobQuote(state)); got != tc.wantHome {
				t.Errorf("dsh-bridge's session logs kept: %v, want %v (%q)", got, tc.wantHome, kept)
			}
			if p.protected(filepath.Join(state, "sess_1.jsonl")) == "" {
				t.Error("a file tool may write a session log without asking")
			}
			// The sandbox's helper is dsh-bridge's binary, started again for
			// each command: one in a root is kept, wherever it is.
			if !slices.Contains(kept, sandbox.GlobQuote(prog)) || p.protected(prog) == "" {
				t.Errorf("dsh-bridge's binary in the root: kept %v, protected %q", slices.Contains(kept, sandbox.GlobQuote(prog)), p.protected(prog))
			}
		})
	}
}

// TestMakeKept: the folders the bridge reads settings from at a session's
// start are made when missing, so that the sandbox can keep them: the
// workspace's .dsh when it is trusted, dsh-bridge's configuration folder
// when a root holds it; what exists (a symlink included) is left as it is.
func TestMakeKept(t *testing.T) {
	for _, tc := range []struct {
		name      string
		trusted   bool
		homeRoot  bool   // the workspace is the home folder
		existing  string // made before: "dir", "file" or "symlink" at .dsh
		wantDsh   bool   // .dsh is a folder made by MakeKept
		wantConfg bool   // the configuration folder is made
	}{
		{name: "trusted", trusted: true, wantDsh: true},
		{name: "untrusted", trusted: false},
		{name: "the home folder, untrusted", homeRoot: true, wantConfg: true},
		{name: "the home folder, trusted", trusted: true, homeRoot: true, wantDsh: true, wantConfg: true},
		{name: ".dsh exists", trusted: true, existing: "dir"},
		{name: ".dsh is a file", trusted: true, existing: "file"},
		{name: ".dsh is a dangling symlink", trusted: true, existing: "symlink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			home := filepath.Join(base, "home")
			setHome(t, home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			root := filepath.Join(home, "src", "app")
			if tc.homeRoot {
				root = home
			}
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			dsh := filepath.Join(root, ".dsh")
			switch tc.existing {
			case "dir":
				os.Mkdir(dsh, 0o755)
			case "file":
				os.WriteFile(dsh, []byte("x"), 0o644)
			case "symlink":
				fsprobe.NeedLinks(t, fsprobe.Symlink(t, filepath.Join(base, "elsewhere"), dsh))
			}
			ws, err := workspace.New(root)
			if err != nil {
				t.Fatal(err)
			}
			made, err := New(ws, Settings{}, func() Mode { return ModeDefault }).MakeKept(ws.Roots(), tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			config := filepath.Join(home, ".config", "dsh-bridge")
			var want []string
			if tc.wantConfg {
				want = append(want, config)
			}
			if tc.wantDsh {
				want = append(want, dsh)
			}
			if !slices.Equal(made, want) {
				t.Errorf("made %q, want %q", made, want)
			}
			for _, dir := range want {
				if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
					t.Errorf("%s: %v %v, want an empty folder", dir, entries, err)
				}
			}
			if _, err := os.Lstat(config); (err == nil) != tc.wantConfg {
				t.Errorf("the configuration folder: %v", err)
			}
			if tc.existing == "symlink" {
				if _, err := os.Lstat(filepath.Join(base, "elsewhere")); err == nil {
					t.Error("a folder was made through the symlink")
				}
			}
		})
	}
}

// TestKept_TempFolder: dsh-bridge's programs, configuration and session
// logs in a folder commands may write that is not a workspace root (the
// temp folder, where a download was unpacked) are kept, and the
// configuration folder is made there to be kept; a root commands may not
// write (read-only) gets nothing of its own kept.
func TestKept_TempFolder(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	tmp := filepath.Join(base, "tmp")
	setHome(t, filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "config"))
	root := filepath.Join(base, "project")
	for _, d := range []string{root, filepath.Join(tmp, "bin"), filepath.Join(tmp, "config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	config, state := filepath.Join(tmp, "config", "dsh-bridge"), filepath.Join(tmp, "state")
	progs := []string{filepath.Join(tmp, "bin", "dsh-bridge"), filepath.Join(tmp, "bin", "dsh-markdown")}
	p := New(ws, Settings{StateDir: state, Programs: progs}, func() Mode { return ModeDefault })
	for _, tc := range []struct {
		name     string
		writable []string
		wantRoot bool
	}{
		{"workspace-write", []string{root, tmp}, true},
		{"read-only", []string{tmp}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept := p.Kept(tc.writable)
			for _, want := range append([]string{config, state}, progs...) {
				if !slices.Contains(kept, sandbox.GlobQuote(want)) {
					t.Errorf("%s is not kept (%d paths are)", want, len(kept))
				}
				if p.protected(want) == "" {
					t.Errorf("a file tool may write %s without asking", want)
				}
			}
			if got := slices.Contains(kept, sandbox.GlobQuote(root)+"/.git/hooks"); got != tc.wantRoot {
				t.Errorf("the root's git hooks kept: %v, want %v", got, tc.wantRoot)
			}
			if slices.Contains(kept, sandbox.GlobQuote(tmp)+"/.git/hooks") {
				t.Errorf("the temp folder is kept as a workspace root: %q", kept)
			}
		})
	}
	made, err := p.MakeKept([]string{root, tmp}, false)
	if err != nil || !slices.Equal(made, []string{config}) {
		t.Errorf("made %q, %v; want %q", made, err, []string{config})
	}
}
