package tools

import (
	"errors"
	"reflect"
	"testing"
)

func TestChooseShell(t *testing.T) {
	winEnv := map[string]string{
		"SystemRoot": `C:\Windows`, "ComSpec": `C:\Windows\system32\cmd.exe`,
		"ProgramFiles": `C:\Program Files`, "ProgramW6432": `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`, "LOCALAPPDATA": `C:\Users\me\AppData\Local`,
	}
	for _, tc := range []struct {
		name   string
		goos   string
		env    map[string]string
		path   map[string]string // name → what PATH finds
		files  []string
		want   ShellChoice
		script string
		argv   []string
	}{
		{name: "linux bash on PATH", goos: "linux", path: map[string]string{"bash": "/usr/bin/bash"},
			want: ShellChoice{ShellBash, "/usr/bin/bash"}, script: "ls", argv: []string{"/usr/bin/bash", "-c", "ls"}},
		{name: "linux without bash", goos: "linux", want: ShellChoice{ShellSh, "/bin/sh"}},
		{name: "darwin bash on PATH", goos: "darwin", path: map[string]string{"bash": "/bin/bash"}, want: ShellChoice{ShellBash, "/bin/bash"}},
		{name: "windows Git bash on PATH", goos: "windows", env: winEnv, path: map[string]string{"bash.exe": `D:\tools\Git\usr\bin\bash.exe`},
			want: ShellChoice{ShellBash, `D:\tools\Git\usr\bin\bash.exe`}},
		{name: "windows System32 bash is WSL, not taken", goos: "windows", env: winEnv, path: map[string]string{"bash.exe": `C:\WINDOWS\System32\bash.exe`},
			want: ShellChoice{ShellCmd, `C:\Windows\system32\cmd.exe`}},
		{name: "windows Git in Program Files", goos: "windows", env: winEnv, files: []string{`C:\Program Files\Git\bin\bash.exe`},
			want: ShellChoice{ShellBash, `C:\Program Files\Git\bin\bash.exe`}},
		{name: "windows Git in Program Files (x86)", goos: "windows", env: winEnv, files: []string{`C:\Program Files (x86)\Git\bin\bash.exe`},
			want: ShellChoice{ShellBash, `C:\Program Files (x86)\Git\bin\bash.exe`}},
		{name: "windows Git installed for the user", goos: "windows", env: winEnv, files: []string{`C:\Users\me\AppData\Local\Programs\Git\bin\bash.exe`},
			want: ShellChoice{ShellBash, `C:\Users\me\AppData\Local\Programs\Git\bin\bash.exe`}},
		{name: "windows without bash runs cmd", goos: "windows", env: winEnv,
			want: ShellChoice{ShellCmd, `C:\Windows\system32\cmd.exe`}, script: "dir & echo x",
			argv: []string{`C:\Windows\system32\cmd.exe`, "/d", "/s", "/c", "dir & echo x"}},
		{name: "windows without ComSpec", goos: "windows", env: map[string]string{"SystemRoot": `C:\Windows`},
			want: ShellChoice{ShellCmd, `C:\Windows\System32\cmd.exe`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := shellEnv{
				goos:   tc.goos,
				getenv: func(k string) string { return tc.env[k] },
				lookPath: func(n string) (string, error) {
					if p, ok := tc.path[n]; ok {
						return p, nil
					}
					return "", errors.New("not found")
				},
				exists: func(p string) bool {
					for _, f := range tc.files {
						if f == p {
							return true
						}
					}
					return false
				},
			}
			got := chooseShell(e)
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if tc.argv != nil {
				if a := got.Argv(tc.script); !reflect.DeepEqual(a, tc.argv) {
					t.Errorf("argv: got %q, want %q", a, tc.argv)
				}
			}
		})
	}
}
