package permission

import (
	"slices"
	"strings"
	"testing"
)

// redirs renders an analysis's file accesses as "r:path" and "w:path"
// ("w:?" for a write named at run time).
func redirs(a Analysis) []string {
	var out []string
	for _, rd := range a.Redirects {
		mode := "r:"
		if rd.Write {
			mode = "w:"
		}
		p := rd.Path
		if rd.Dynamic {
			p = "?"
		}
		out = append(out, mode+p)
	}
	return out
}

func TestWinFileCommands(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		ps        bool
		want      []string
		program   string // the first command's program, when checked
		args      []string
	}{
		{name: "copy", src: `copy a b`, want: []string{"r:a", "w:b"}},
		{name: "copy options", src: `copy /b /y a b`, want: []string{"r:a", "w:b"}},
		{name: "copy concatenation", src: `copy /b nul+secrets\key x2.txt`, want: []string{"r:nul", `r:secrets\key`, "w:x2.txt"}},
		{name: "copy into the current folder", src: `copy ..\out\x`, want: []string{`r:..\out\x`, "w:x"}},
		{name: "copy comma", src: `copy,a,b`, want: []string{"r:a", "w:b"}, program: "copy", args: []string{"a", "b"}},
		{name: "xcopy", src: `xcopy src .git /e`, want: []string{"r:src", "w:.git"}},
		{name: "move", src: `move a b c`, want: []string{"r:a", "w:a", "r:b", "w:b", "w:c"}},
		{name: "ren", src: `ren sub\a.txt b.txt`, want: []string{`r:sub\a.txt`, `w:sub\a.txt`, "w:sub/b.txt"}},
		{name: "type comma", src: `type,secrets\key`, program: "type", args: []string{`secrets\key`}},
		{name: "type semicolon", src: `type;C:\ws\key`, program: "type", args: []string{`C:\ws\key`}},
		{name: "type equals", src: `type=a`, program: "type", args: []string{"a"}},
		{name: "other programs keep their commas", src: `findstr a,b x`, program: "findstr", args: []string{"a,b", "x"}},
		{name: "quoted comma kept", src: `type "a,b"`, program: "type", args: []string{"a,b"}},
		{name: "copy-item", src: `Copy-Item x.txt .git\hooks\pre-commit`, ps: true, want: []string{"r:x.txt", `w:.git\hooks\pre-commit`}},
		{name: "copy-item named", src: `Copy-Item -Destination d -Path s -Force`, ps: true, want: []string{"r:s", "w:d"}},
		{name: "copy-item colon params", src: `cpi -LiteralPath:s -Destination:d`, ps: true, want: []string{"r:s", "w:d"}},
		{name: "copy-item prefix params", src: `cp -Pa s -D d`, ps: true, want: []string{"r:s", "w:d"}},
		{name: "copy-item without destination", src: `Copy-Item s`, ps: true, want: []string{"r:s", "w:?"}},
		{name: "move-item", src: `Move-Item s d`, ps: true, want: []string{"r:s", "w:s", "w:d"}},
		{name: "rename-item", src: `Rename-Item -Path dir\a -NewName b`, ps: true, want: []string{`w:dir\a`, "w:dir/b"}},
		{name: "new-item", src: `New-Item -ItemType File -Path .git\hooks -Name pre-commit`, ps: true, want: []string{"w:.git/hooks/pre-commit"}},
		{name: "new-item positional", src: `ni x.txt -Value y`, ps: true, want: []string{"w:x.txt"}},
		{name: "param colon", src: `Get-Content -Path:C:\ws\key`, ps: true, program: "get-content", args: []string{"-Path", `C:\ws\key`}},
		{name: "en dash", src: "Get-Content \u2013LiteralPath:k", ps: true, program: "get-content", args: []string{"-LiteralPath", "k"}},
		{name: "em dash", src: "Get-Content \u2014Path k", ps: true, program: "get-content", args: []string{"-Path", "k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a Analysis
			if tc.ps {
				a = AnalyzeCmd("powershell -NoProfile -Command " + tc.src)
			} else {
				a = AnalyzeCmd(tc.src)
			}
			if len(a.Opaque) > 0 {
				t.Fatalf("%s: opaque: %v", tc.src, a.Opaque)
			}
			if got := redirs(a); tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("%s: files %q, want %q", tc.src, got, tc.want)
			}
			if tc.program == "" {
				return
			}
			i := slices.IndexFunc(a.Commands, func(s Simple) bool { return s.Program == tc.program })
			if i < 0 {
				t.Fatalf("%s: no command %s in %v", tc.src, tc.program, a.Commands)
			}
			if s := a.Commands[i]; !slices.Equal(s.Args, tc.args) {
				t.Errorf("%s: %s %q, want %s %q", tc.src, s.Program, s.Args, tc.program, tc.args)
			}
		})
	}
}

func TestWinWildcardsOpaque(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		opaque    bool
	}{
		{"powershell star", `powershell -Command Get-Content C:\ws\sec*\key`, true},
		{"powershell question mark", `powershell -Command Get-Content secre?s\key`, true},
		{"powershell plain", `powershell -Command Get-Content secrets\key`, false},
		{"type star", `type secrets\*`, true},
		{"copy question mark", `copy k?y x`, true},
		{"echo star", `echo *`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := AnalyzeCmd(tc.src)
			if got := len(a.Opaque) > 0; got != tc.opaque {
				t.Errorf("%s: opaque %v (%v), want %v", tc.src, got, a.Opaque, tc.opaque)
			}
			if tc.opaque && !strings.Contains(a.Opaque[0], "wildcard") {
				t.Errorf("%s: reason %q does not say wildcard", tc.src, a.Opaque[0])
			}
		})
	}
}
