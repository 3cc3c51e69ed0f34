package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// shq is p as one shell word: unquoted, a Windows path's backslashes are
// bash's escapes (cat < C:\ws\f reads C:wsf).
func shq(p string) string { return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'" }

// jsonString is s as a JSON string (a Windows path's backslashes
// escaped).
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// setHome makes dir the home folder os.UserHomeDir reports: $HOME, and
// %USERPROFILE% on Windows.
func setHome(t *testing.T, dir string) {
	t.Setenv("HOME", dir)
	t.Setenv("USERPROFILE", dir)
}

// TestCompile_WindowsForms: on Windows a path rule holds for every
// spelling of the file: either separator, any case of the drive and the
// names, the \\?\ and UNC forms, trailing dots and the ::$DATA stream;
// rules written with backslashes, a drive, \\?\ or a UNC name compile to
// the same match. Pure: the paths are strings, never opened.
func TestCompile_WindowsForms(t *testing.T) {
	const root, home = `C:\ws`, `C:\Users\me`
	form := workspace.FormOf("windows")
	key := []string{
		`C:\ws\secrets\KEY`, `c:/ws/Secrets/key`, `C:\WS\SECRETS\key`, `\\?\C:\ws\secrets\KEY`,
		`\\.\C:\ws\secrets\KEY`, `C:\ws\secrets\KEY.`, `C:\ws\secrets\KEY::$DATA`, `C:\ws\src\..\secrets\KEY`,
		`C:\ws\secrets`,
	}
	notKey := []string{`C:\ws\secrets-old\KEY`, `C:\ws\src\KEY`, `D:\ws\secrets\KEY`, `C:\wsx\secrets\KEY`, `\\srv\share\secrets\KEY`}
	share := []string{`\\srv\share\secrets\KEY`, `\\?\UNC\srv\share\secrets\KEY`, `//SRV/share/Secrets/key`}
	for _, tc := range []struct {
		rule     string
		yes, not []string
	}{
		{"read(secrets/**)", key, notKey},
		{`read(secrets\**)`, key, notKey},
		{`read(C:\ws\secrets\**)`, key, notKey},
		{"read(c:/WS/secrets/**)", key, notKey},
		{`read(\\?\C:\ws\secrets\**)`, key, notKey},
		{`read(\ws\secrets\**)`, key, notKey}, // rooted: the workspace's drive
		{`read(\\srv\share\secrets\**)`, share, key},
		{`read(\\?\UNC\srv\share\secrets\**)`, share, key},
		{"read(~/.ssh/**)", []string{`C:\Users\me\.ssh\id_ed25519`, `c:\users\ME\.SSH\config`}, []string{`C:\ws\.ssh\config`}},
		{"read(**/*.pem)", []string{`C:\ws\a\b.PEM`, `\\?\C:\ws\a\x.pem`}, []string{`C:\ws\a\b.pem.txt`}},
		{"write(/**)", []string{`C:\anything`, `c:\ws\x`}, []string{`D:\x`}},
	} {
		r, err := ParseRule(tc.rule, FromUser)
		if err != nil {
			t.Fatal(err)
		}
		c := compile(r, root, home, "windows").in(form)
		for _, p := range tc.yes {
			t.Run(tc.rule+" matches "+p, func(t *testing.T) {
				if !c.matchPath(p) {
					t.Errorf("%s does not match %s (glob %q)", tc.rule, p, c.glob)
				}
			})
		}
		for _, p := range tc.not {
			t.Run(tc.rule+" leaves "+p, func(t *testing.T) {
				if c.matchPath(p) {
					t.Errorf("%s matches %s (glob %q)", tc.rule, p, c.glob)
				}
			})
		}
	}
	// Elsewhere a backslash is a name's character and an escape in globs:
	// the same rules are other rules there.
	r, _ := ParseRule(`read(C:\ws\secrets\**)`, FromUser)
	if c := compile(r, "/ws", "/home/me", "linux").in(workspace.FormOf("linux")); c.matchPath("/ws/secrets/KEY") {
		t.Errorf("on Linux %s matches /ws/secrets/KEY (glob %q)", r.Text, c.glob)
	}
}

// TestMSYSPath: in Git for Windows' bash a drive is /c/…, which the
// policy judges as C:/…; nothing else is mapped, nor anything under cmd
// or off Windows.
func TestMSYSPath(t *testing.T) {
	for _, tc := range []struct {
		path, goos string
		shell      tools.ShellKind
		want       string
	}{
		{"/c/ws/secrets/KEY", "windows", tools.ShellBash, "C:/ws/secrets/KEY"},
		{"/D/data", "windows", tools.ShellBash, "D:/data"},
		{"/c", "windows", tools.ShellBash, "C:/"},
		{"/c/", "windows", tools.ShellBash, "C:/"},
		{"/tmp/x", "windows", tools.ShellBash, "/tmp/x"},
		{"/cd/x", "windows", tools.ShellBash, "/cd/x"},
		{"c/x", "windows", tools.ShellBash, "c/x"},
		{"/c/ws", "windows", tools.ShellCmd, "/c/ws"},
		{"/c/ws", "linux", tools.ShellBash, "/c/ws"},
	} {
		t.Run(tc.goos+"/"+string(tc.shell)+"/"+tc.path, func(t *testing.T) {
			if got := msysPath(tc.path, tc.goos, tc.shell); got != tc.want {
				t.Errorf("msysPath(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// TestPolicy_CommandPathForms: where commands run unconfined (Windows), a
// read deny rule refuses a bash command that names the denied file in
// any spelling of the platform: on Windows backslashes, a lower-case
// drive with slashes and another case, Git's MSYS /c/…, \\?\; on Linux
// the spellings that are other files there (another case, a backslash in
// a name) are not refused.
func TestPolicy_CommandPathForms(t *testing.T) {
	p, reg, scope, dir := testPolicy(t, ModeDefault, []string{"bash(cat:*)"}, nil, []string{"read(secrets/**)"})
	if err := os.MkdirAll(filepath.Join(dir, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.unconfined, p.shell = true, tools.ShellBash
	type form struct {
		name, path string
		want       Verdict
	}
	forms := []form{
		{"as written", filepath.Join(dir, "secrets", "key"), Deny},
		{"relative", "secrets/key", Deny},
		{"another case", filepath.Join(dir, "Secrets", "KEY"), Allow},
		{"a backslash in a name", dir + `/secrets\key`, Allow},
	}
	if runtime.GOOS == "windows" {
		slash := filepath.ToSlash(dir)
		forms = []form{
			{"backslashes", dir + `\secrets\key`, Deny},
			{"a lower-case drive, slashes, another case", strings.ToLower(slash[:1]) + slash[1:] + "/Secrets/KEY", Deny},
			{"MSYS", "/" + strings.ToLower(slash[:1]) + slash[2:] + "/secrets/key", Deny},
			{`\\?\`, `\\?\` + dir + `\secrets\key`, Deny},
			{"relative, backslashes", `secrets\key`, Deny},
			{"a trailing dot", dir + `\secrets.\key`, Deny},
		}
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs("cat "+shq(f.path)))
			if d.Verdict != f.want {
				t.Errorf("cat %s: got %v (%s), want %v", f.path, d.Verdict, d.Reason, f.want)
			}
		})
	}
}
