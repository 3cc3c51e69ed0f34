package permission

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// The stored API key (credentials.json in the config folder) is denied to
// every tool in every mode, bypassPermissions included, even when the
// workspace holds the config folder (a home folder as the workspace): the
// file tools and searches refuse it, and the sandbox masks it.
func TestLoadSettings_DeniesTheStoredKey(t *testing.T) {
	home := t.TempDir()
	setHome(t, home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	cfg := filepath.Join(home, ".config", "dsh-bridge")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(cfg, "credentials.json")
	if err := os.WriteFile(key, []byte(`{"apiKey":"sk-stored-0123456789"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(home)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	scope := reg.NewScope("s", nil)
	if _, err := tools.Register(reg, scope, tools.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	s := LoadSettings(home)
	for _, mode := range []Mode{ModeDefault, ModeAccept, ModeBypass} {
		p := New(ws, s, func() Mode { return mode })
		t.Run(string(mode), func(t *testing.T) {
			if err := p.CheckPath(key, false); err == nil {
				t.Errorf("the host may open %s", key)
			}
			if err := p.CheckPath(filepath.Join(cfg, "settings.json"), false); err != nil {
				t.Errorf("the settings beside it are refused too: %v", err)
			}
			if d := p.Decide(context.Background(), reg.Get("read", scope), jargs("file_path", key)); d.Verdict != Deny {
				t.Errorf("read of the stored key: got %v (%s), want %v", d.Verdict, d.Reason, Deny)
			}
			if !slices.Contains(p.DeniedTrees(), key) {
				t.Errorf("the sandbox and searches are not told to hide it: %v", p.DeniedTrees())
			}
		})
	}
}
