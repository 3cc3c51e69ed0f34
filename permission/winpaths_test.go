package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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

// symlink makes link point at target and reports whether the system
// made it. Linux and macOS always do (a failure fails t); Windows may
// not: without the privilege os.Symlink fails, and under Wine 8.0 it
// answers nil and makes nothing (ROUGH_EDGES.md, "Windows and Wine").
func symlink(t *testing.T, target, link string) bool {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		if fi, lerr := os.Lstat(link); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	if runtime.GOOS != "windows" {
		t.Fatalf("symlink %s -> %s: %v", link, target, err)
	}
	return false
}

// noLinks skips t, a case about symlinks, where the system made none.
func noLinks(t *testing.T, made bool) {
	t.Helper()
	if !made {
		t.Skip("this Windows makes no symlinks (Wine 8.0's os.Symlink makes nothing); the case is about one")
	}
}

// foldsHere reports whether the file system of dir folds case (Windows,
// Wine's Z: included, and macOS by default): Secrets made, secrets found.
func foldsHere(t *testing.T, dir string) bool {
	t.Helper()
	probe := filepath.Join(dir, "FoldProbe")
	if err := os.Mkdir(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	_, err := os.Stat(filepath.Join(dir, "foldprobe"))
	return err == nil
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
