package permission

// Red team, issue 52 ("Paths everywhere"): a read deny rule on a Windows
// workspace's secrets/** and the protected .git/hooks must hold for every
// spelling Win32 or NTFS takes for the same file. These cases are pure
// (the rule matcher and the protected-file check in the windows form) and
// run on every platform; redteam_win_windows_test.go judges whole calls
// under Wine. A failing case is a finding: its comment says which.

import (
	"testing"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

func TestRedWin_DenyRuleEverySpelling(t *testing.T) {
	form := workspace.FormOf("windows")
	deny := compile(Rule{Text: "read(C:/ws/secrets/**)", Tool: "read", Spec: "C:/ws/secrets/**"}, `C:\ws`, `C:\Users\me`, "windows").in(form)
	rel := compile(Rule{Text: "read(secrets/**)", Tool: "read", Spec: "secrets/**"}, `C:\ws`, `C:\Users\me`, "windows").in(form)
	exact := compile(Rule{Text: `read(C:\ws\secrets\key)`, Tool: "read", Spec: `C:\ws\secrets\key`}, `C:\ws`, `C:\Users\me`, "windows").in(form)
	for _, tc := range []struct{ name, path string }{
		{"lower drive", `c:\ws\secrets\key`},
		{"slashes", `C:/ws/secrets/key`},
		{"mixed", `C:\ws/secrets\key`},
		{"case", `C:\WS\Secrets\KEY`},
		{"verbatim", `\\?\C:\ws\secrets\key`},
		{"device", `\\.\C:\ws\secrets\key`},
		{"nt object", `\??\C:\ws\secrets\key`},
		{"trailing dot", `C:\ws\secrets.\key`},
		{"trailing space", `C:\ws\secrets \key`},
		{"trailing dots and spaces on the file", `C:\ws\secrets\key. . `},
		{"data stream", `C:\ws\secrets\key::$DATA`},
		{"data stream lower", `C:\ws\secrets\key::$data`},
		{"dotdot", `C:\ws\sub\..\secrets\key`},
		{"dotdot verbatim-less device", `\\.\C:\ws\sub\..\secrets\key`},
		{"repeated separators", `C:\\ws\\\secrets\\key`},
		{"long s folds to s", "C:\\ws\\\u017Fecrets\\key"},
		{"kelvin sign folds to k", "C:\\ws\\secrets\\\u212Aey"},
		// FINDING (pure matcher): NTFS takes "dir::$INDEX_ALLOCATION" (and
		// "dir:$I30:$INDEX_ALLOCATION") for the folder itself, so this opens
		// C:\ws\secrets\key; Slash drops only a last name's "::$DATA".
		{"index allocation stream of the folder", `C:\ws\secrets::$INDEX_ALLOCATION\key`},
		{"named index stream of the folder", `C:\ws\secrets:$I30:$INDEX_ALLOCATION\key`},
		// FINDING (pure matcher): \\?\GLOBALROOT\??\C:\ reaches drive C:
		// through the object manager; Slash leaves "GLOBALROOT/??/C:/…",
		// which no rule on C:/ names.
		{"globalroot", `\\?\GLOBALROOT\??\C:\ws\secrets\key`},
		// FINDING (pure matcher): the administrative share of the local
		// machine is drive C: itself; Slash keeps //localhost/C$/….
		{"admin share", `\\localhost\C$\ws\secrets\key`},
		{"admin share verbatim", `\\?\UNC\127.0.0.1\c$\ws\secrets\key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !deny.matchPath(tc.path) {
				t.Errorf("read(C:/ws/secrets/**) does not match %s (form %q)", tc.path, form.Of(tc.path))
			}
			if !rel.matchPath(tc.path) {
				t.Errorf("read(secrets/**) does not match %s (form %q)", tc.path, form.Of(tc.path))
			}
			if !exact.matchPath(tc.path) {
				t.Errorf(`read(C:\ws\secrets\key) does not match %s (form %q)`, tc.path, form.Of(tc.path))
			}
		})
	}
}

func TestRedWin_ProtectedEverySpelling(t *testing.T) {
	p := &Policy{form: workspace.FormOf("windows")}
	for _, tc := range []struct{ name, path string }{
		{"plain", `C:\ws\.git\hooks\pre-commit`},
		{"case", `C:\ws\.GIT\Hooks\pre-commit`},
		{"slashes", `c:/ws/.git/hooks/pre-commit`},
		{"verbatim", `\\?\C:\ws\.git\hooks\pre-commit`},
		{"trailing dot", `C:\ws\.git.\hooks\pre-commit`},
		{"trailing space", `C:\ws\.git \hooks \pre-commit`},
		{"config stream", `C:\ws\.git\config::$DATA`},
		{"unc", `\\server\share\ws\.git\hooks\post-checkout`},
		{"verbatim unc", `\\?\UNC\server\share\ws\.GIT\HOOKS\x`},
		{"dsh settings", `C:\ws\.DSH\settings.json`},
		{"vscode tasks", `C:\ws\.VSCode.\tasks.json`},
		// FINDING (pure): .git::$INDEX_ALLOCATION is the .git folder.
		{"index allocation stream of .git", `C:\ws\.git::$INDEX_ALLOCATION\hooks\pre-commit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if why := p.protected(tc.path); why == "" {
				t.Errorf("%s is not protected (form %q)", tc.path, p.form.Of(tc.path))
			}
		})
	}
}
