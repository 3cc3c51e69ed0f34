package permission

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/tools"
)

// TestPolicy_Unconfined judges the same commands with Linux's platform
// (a sandbox) and Windows' (none, Settings.Unconfined) injected.
func TestPolicy_Unconfined(t *testing.T) {
	for _, tc := range []struct {
		name              string
		mode              Mode
		allow, deny       []string
		cmd               string
		linux, unconfined Verdict
	}{
		{"acceptEdits: a command's write in the workspace", ModeAccept, []string{"bash(go:*)"}, nil, "go run . > out.txt", Allow, Ask},
		{"acceptEdits: tee writes too", ModeAccept, []string{"bash(go:*)", "bash(tee:*)"}, nil, "go run . | tee out.txt", Allow, Ask},
		{"an edit allow rule covers the write", ModeAccept, []string{"bash(go:*)", "edit(out.txt)"}, nil, "go run . > out.txt", Allow, Allow},
		{"default: the write asks everywhere", ModeDefault, []string{"bash(go:*)"}, nil, "go run . > out.txt", Ask, Ask},
		{"an allowed command writing outside asks", ModeAccept, []string{"bash(go:*)", "edit(/**)"}, nil, "go run . > /etc/dsh-out", Ask, Ask},
		{"an allowed command that writes nothing runs", ModeDefault, []string{"bash(go:*)"}, nil, "go test ./... 2>&1 > /dev/null", Allow, Allow},
		{"bypassPermissions runs it", ModeBypass, nil, nil, "go run . > out.txt", Allow, Allow},
		{"read deny: a command naming the file", ModeDefault, []string{"bash(cat:*)"}, []string{"read(secrets/**)"}, "cat secrets/key", Allow, Deny},
		{"read deny: an option's value naming it", ModeDefault, []string{"bash(tool:*)"}, []string{"read(secrets/**)"}, "tool --in=secrets/key", Allow, Deny},
		{"read deny: code that cannot be seen", ModeDefault, nil, []string{"read(secrets/**)"}, `eval "$x"`, Ask, Deny},
		{"read deny: other files still run", ModeDefault, []string{"bash(cat:*)"}, []string{"read(secrets/**)"}, "cat README.md", Allow, Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, unconfined := range []bool{false, true} {
				p, reg, scope, dir := testPolicy(t, tc.mode, tc.allow, nil, tc.deny)
				os.MkdirAll(filepath.Join(dir, "secrets"), 0o755)
				p.unconfined = unconfined
				want := tc.linux
				if unconfined {
					want = tc.unconfined
				}
				d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd))
				if d.Verdict != want {
					t.Errorf("unconfined=%v: got %v (%s), want %v", unconfined, d.Verdict, d.Reason, want)
				}
			}
		})
	}
}

// TestPolicy_CmdShell judges cmd.exe commands (Windows without bash) by
// their programs, and asks for what it cannot read.
func TestPolicy_CmdShell(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mode        Mode
		allow, deny []string
		cmd         string
		want        Verdict
	}{
		{"an allowed program", ModeDefault, []string{"bash(git status)"}, nil, "git status", Allow},
		{"its .exe and case fold to the rule's name", ModeDefault, []string{"bash(git status)"}, nil, "GIT.EXE status", Allow},
		{"another program after & asks", ModeDefault, []string{"bash(git:*)"}, nil, "git status & del x", Ask},
		{"a denied program after && is refused", ModeDefault, []string{"bash(git:*)"}, []string{"bash(del:*)"}, "git status && del /q x", Deny},
		{"a denied program in a pipe", ModeDefault, []string{"bash(git:*)"}, []string{"bash(findstr:*)"}, "git log | findstr x", Deny},
		{"both sides of a pipe allowed", ModeDefault, []string{"bash(git:*)", "bash(findstr:*)"}, nil, "git log 2>&1 | findstr x", Allow},
		{"a variable cannot be read: asks", ModeDefault, []string{"bash(echo:*)"}, nil, "echo %PATH%", Ask},
		{"a variable with a bash deny rule: refused", ModeDefault, []string{"bash(echo:*)"}, []string{"bash(del:*)"}, "echo %X%", Deny},
		{"an escape cannot be read", ModeDefault, []string{"bash(git:*)"}, nil, "git status ^& del x", Ask},
		{"start runs what cmd does not show", ModeDefault, []string{"bash(start:*)"}, nil, "start notepad", Ask},
		{"a redirection to NUL writes nothing", ModeDefault, []string{"bash(git:*)"}, nil, "git status > NUL", Allow},
		{"a redirection into the workspace asks in default", ModeDefault, []string{"bash(git:*)"}, nil, "git log > log.txt", Ask},
		{"a redirection outside asks", ModeBypass, nil, nil, "git log > /etc/x", Allow},
		{"a program given by path asks", ModeDefault, []string{"bash(git:*)"}, nil, `.\git status`, Ask},
		{"cmd /c is read inside", ModeDefault, []string{"bash(cmd:*)"}, []string{"bash(del:*)"}, "cmd /c del x", Deny},
		{"PowerShell by -Command: its cmdlets are judged", ModeDefault, []string{"bash(powershell:*)"}, []string{"bash(remove-item:*)"}, `powershell -NoProfile -Command "Remove-Item x"`, Deny},
		{"PowerShell: every cmdlet needs allowing", ModeDefault, []string{"bash(powershell:*)", "bash(get-childitem:*)"}, nil, `powershell -NoProfile -Command "Get-ChildItem; Remove-Item x"`, Ask},
		{"PowerShell: allowed cmdlets run", ModeDefault, []string{"bash(powershell:*)", "bash(get-childitem:*)", "bash(select-string:*)"}, nil, `powershell -NoProfile -Command "Get-ChildItem | Select-String foo"`, Allow},
		{"PowerShell: a variable asks", ModeDefault, []string{"bash(powershell:*)", "bash(get-childitem:*)"}, nil, `powershell -NoProfile -Command "Get-ChildItem $env:TEMP"`, Ask},
		{"PowerShell: Invoke-Expression asks", ModeDefault, []string{"bash(powershell:*)", "bash(iex:*)"}, nil, `powershell -NoProfile -Command "iex foo"`, Ask},
		{"PowerShell: -EncodedCommand cannot be read", ModeDefault, []string{"bash(powershell:*)"}, nil, `powershell -NoProfile -EncodedCommand ZQBjAGgAbwA=`, Ask},
		{"PowerShell: Out-File writes", ModeAccept, []string{"bash(powershell:*)", "bash(get-date:*)", "bash(out-file:*)"}, nil, `powershell -Command "Get-Date | Out-File -FilePath /etc/x"`, Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, tc.mode, tc.allow, nil, tc.deny)
			p.unconfined, p.shell = true, tools.ShellCmd
			d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd))
			if d.Verdict != tc.want {
				t.Errorf("got %v (%s; pending %q), want %v", d.Verdict, d.Reason, d.Pending, tc.want)
			}
		})
	}
}

func TestAnalyzeCmd_Programs(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		programs  []string
		writes    []string
		opaque    bool
	}{
		{"list", "git status & dir && type a.txt || echo no", []string{"git", "dir", "type", "echo"}, nil, false},
		{"quoted separators stay", `echo "a & b" | findstr a`, []string{"echo", "findstr"}, nil, false},
		{"redirections", `sort < in.txt > out.txt 2>&1 >> "log file.txt"`, []string{"sort"}, []string{"out.txt", "log file.txt"}, false},
		{"a path and an extension", `C:\Tools\RG.EXE -n x`, []string{"rg"}, nil, false},
		{"powershell inside", `pwsh -c "Get-Item a; Set-Content b.txt x"`, []string{"get-item", "set-content", "pwsh"}, []string{"b.txt"}, false},
		{"a block", "if exist a (del a)", nil, nil, true},
		{"an unclosed quote", `echo "x`, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := AnalyzeCmd(tc.src)
			var progs, writes []string
			for _, s := range a.judged() {
				progs = append(progs, s.Program)
			}
			for _, r := range a.Redirects {
				if r.Write {
					writes = append(writes, r.Path)
				}
			}
			if (len(a.Opaque) > 0) != tc.opaque {
				t.Fatalf("opaque %q, want opaque=%v", a.Opaque, tc.opaque)
			}
			if tc.opaque {
				return
			}
			if !reflect.DeepEqual(progs, tc.programs) || !reflect.DeepEqual(writes, tc.writes) {
				t.Errorf("got programs %q writes %q, want %q %q", progs, writes, tc.programs, tc.writes)
			}
		})
	}
}
