package bridge

import (
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

func TestSandboxNotice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		set       permission.Settings
		sb        *tools.Sandbox
		wantTitle string
		wantDesc  string
	}{
		{"off in the settings", permission.Settings{Sandbox: permission.SandboxOff}, nil, "Commands run unsandboxed", "The sandbox is off in your settings"},
		{"no Landlock", permission.Settings{Sandbox: permission.SandboxWorkspaceWrite}, nil, "Commands run unsandboxed", "no Landlock"},
		{"Windows says it has none and what asks more", permission.Settings{Sandbox: permission.SandboxWorkspaceWrite, Unconfined: true}, nil,
			"Commands run unsandboxed", "a command's writes ask in every mode but bypassPermissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			title, desc := sandboxNotice(tc.set, tc.sb, false)
			if title != tc.wantTitle || !strings.Contains(desc, tc.wantDesc) {
				t.Errorf("got %q: %q, want %q: …%q…", title, desc, tc.wantTitle, tc.wantDesc)
			}
		})
	}
}
