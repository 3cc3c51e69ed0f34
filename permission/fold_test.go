package permission

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// TestPolicy_CaseFoldingPlatforms: where the platform's file systems fold
// case (darwin, windows: the platform injected through workspace.NewOn),
// a deny rule on secrets/** holds for Secrets/KEY, git's protected
// .git/hooks is protected as .GIT/Hooks, and the home's start files and
// dsh-bridge's own folder whatever their case; on Linux those are other
// files and the rules leave them be. The denied trees stay spelt as the
// rule resolved them (searches and the sandbox get real names).
func TestPolicy_CaseFoldingPlatforms(t *testing.T) {
	for _, tc := range []struct {
		goos string
		fold bool
	}{{"linux", false}, {"darwin", true}, {"windows", true}} {
		t.Run(tc.goos, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			dir := filepath.Join(base, "ws")
			home := filepath.Join(base, "home")
			for _, d := range []string{filepath.Join(dir, "Secrets"), filepath.Join(dir, ".GIT", "Hooks"), filepath.Join(dir, "src"), home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			setHome(t, home)
			foldsFS := fsprobe.FoldsCase(t, base)
			if runtime.GOOS == "windows" && tc.goos != "windows" {
				t.Skipf("%s's paths have another separator than this Windows's: the case is about %s's own", tc.goos, tc.goos)
			}
			if foldsFS && !tc.fold {
				// Wine's Z:, or a Linux vfat volume: the platform's default
				// is not the volume's (ROUGH_EDGES.md, case folding).
				t.Skipf("%s's paths do not fold, and this file system does: the case is about one that does not", tc.goos)
			}
			// The denied tree is spelt as resolving the rule's folder
			// gives it: the rule's spelling, or the real name where the file
			// system folds and the rule is this platform's.
			wantTree := filepath.Join(dir, "secrets")
			if foldsFS && tc.goos == runtime.GOOS {
				wantTree = filepath.Join(dir, "Secrets")
			}
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			ws, err := workspace.NewOn(tc.goos, dir)
			if err != nil {
				t.Fatal(err)
			}
			reg := registry.New()
			scope := reg.NewScope("s", nil)
			if _, err := tools.Register(reg, scope, tools.Options{Workspace: ws}); err != nil {
				t.Fatal(err)
			}
			deny, err := ParseRule("read(secrets/**)", FromUser)
			if err != nil {
				t.Fatal(err)
			}
			p := New(ws, Settings{Deny: []Rule{deny}}, func() Mode { return ModeAccept })
			if got := ws.Form().Fold; got != tc.fold {
				t.Fatalf("the workspace folds case: %v, want %v", got, tc.fold)
			}

			// A verdict that holds on every platform, or only where case folds.
			either := func(always bool, yes, no Verdict) Verdict {
				if always || tc.fold {
					return yes
				}
				return no
			}
			for _, c := range []struct {
				name, tool string
				args       string
				want       Verdict
			}{
				{"the rule's own spelling", "read", "secrets/KEY", Deny},
				{"a capital S", "read", "Secrets/KEY", either(false, Deny, Allow)},
				{"all capitals", "read", "SECRETS/key", either(false, Deny, Allow)},
				{"the tree's root", "read", "Secrets", either(false, Deny, Allow)},
				{"a neighbour", "read", "src/a.go", Allow},
				{"git's hooks", "write", ".git/hooks/pre-commit", Ask},
				{"git's hooks in capitals", "write", ".GIT/Hooks/pre-commit", either(false, Ask, Allow)},
				{"git's config in capitals", "edit", ".Git/CONFIG", either(false, Ask, Allow)},
				{"dsh-bridge's settings in capitals", "write", ".DSH/settings.json", either(false, Ask, Allow)},
				{"a hook manager's file in capitals", "write", "LEFTHOOK.yml", either(false, Ask, Allow)},
				{"an ordinary write", "write", "src/b.go", Allow},
			} {
				t.Run(c.name, func(t *testing.T) {
					args := jargs("file_path", c.args, "content", "")
					if c.tool == "edit" {
						args = jargs("file_path", c.args, "old_string", "a", "new_string", "b")
					}
					d := p.Decide(context.Background(), reg.Get(c.tool, scope), args)
					if d.Verdict != c.want {
						t.Errorf("%s %s: got %v (%s), want %v", c.tool, c.args, d.Verdict, d.Reason, c.want)
					}
				})
			}

			t.Run("host level", func(t *testing.T) {
				for _, c := range []struct {
					path   string
					denied bool
				}{
					{filepath.Join(dir, "secrets", "key"), true},
					{filepath.Join(dir, "Secrets", "KEY"), tc.fold},
					{filepath.Join(dir, "SeCrEtS"), tc.fold},
					{filepath.Join(dir, "secrets-not", "key"), false},
				} {
					if got := p.CheckPath(c.path, false) != nil; got != c.denied {
						t.Errorf("CheckPath(%s) denied: %v, want %v", c.path, got, c.denied)
					}
				}
				if got := p.DeniedTrees(); len(got) != 1 || got[0] != wantTree {
					t.Errorf("denied trees %q, want %q", got, wantTree)
				}
			})

			t.Run("protected outside the workspace", func(t *testing.T) {
				for _, c := range []struct {
					path string
					want bool
				}{
					{filepath.Join(home, ".bashrc"), true},
					{filepath.Join(home, ".BashRC"), tc.fold},
					{filepath.Join(home, ".SSH", "authorized_keys"), tc.fold},
					{filepath.Join(home, ".config", "DSH-Bridge", "settings.json"), tc.fold},
					{filepath.Join(home, "notes.txt"), false},
				} {
					if got := p.protected(c.path) != ""; got != c.want {
						t.Errorf("protected(%s) = %q, want protected %v", c.path, p.protected(c.path), c.want)
					}
				}
			})
		})
	}
}
