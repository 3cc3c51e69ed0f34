package tools

import (
	"path/filepath"
	"strings"
)

// ShellKind is the language the bash tool's commands are written in.
type ShellKind string

// Shell kinds.
const (
	ShellBash ShellKind = "bash" // bash, or Git for Windows' bash.exe
	ShellSh   ShellKind = "sh"   // a POSIX sh, where no bash exists
	ShellCmd  ShellKind = "cmd"  // Windows without bash: cmd.exe /d /s /c
)

// ShellChoice is the shell a host runs commands with.
type ShellChoice struct {
	Kind ShellKind
	Path string
}

// Argv is the command line that runs script under s.
func (s ShellChoice) Argv(script string) []string {
	if s.Kind == ShellCmd {
		return []string{s.Path, "/d", "/s", "/c", script}
	}
	return []string{s.Path, "-c", script}
}

// NoBashNote is what the bash tool's description adds where there is no
// bash: the model writes cmd.exe commands, and PowerShell through one.
const NoBashNote = " This machine is Windows and has no bash (Git for Windows is not installed): the command runs with cmd.exe /d /s /c, so write cmd syntax, " +
	"or use PowerShell explicitly: powershell -NoProfile -Command \"…\". Unix programs (ls, grep, sed) do not exist here."

// shellEnv is what chooseShell reads of the system: the environment,
// the PATH lookup, and whether a file exists.
type shellEnv struct {
	goos     string
	getenv   func(string) string
	lookPath func(string) (string, error)
	exists   func(string) bool
}

// chooseShell picks the shell commands run with. Elsewhere than Windows:
// bash on PATH, else /bin/sh. On Windows: Git for Windows' bash.exe, on
// PATH or in its usual install folders (the machine's Program Files, both
// of them, and the per-user Programs folder), never System32's bash.exe,
// which starts WSL's Linux rather than a shell of this system; else
// cmd.exe (%ComSpec%).
func chooseShell(e shellEnv) ShellChoice {
	if e.goos != "windows" {
		if p, err := e.lookPath("bash"); err == nil {
			return ShellChoice{ShellBash, p}
		}
		return ShellChoice{ShellSh, "/bin/sh"}
	}
	sysRoot := e.getenv("SystemRoot")
	if p, err := e.lookPath("bash.exe"); err == nil && !(sysRoot != "" && winWithin(p, sysRoot)) {
		return ShellChoice{ShellBash, p}
	}
	for _, v := range []string{"ProgramW6432", "ProgramFiles", "ProgramFiles(x86)"} {
		if d := e.getenv(v); d != "" {
			if p := winJoin(d, `Git\bin\bash.exe`); e.exists(p) {
				return ShellChoice{ShellBash, p}
			}
		}
	}
	if d := e.getenv("LOCALAPPDATA"); d != "" {
		if p := winJoin(d, `Programs\Git\bin\bash.exe`); e.exists(p) {
			return ShellChoice{ShellBash, p}
		}
	}
	if c := e.getenv("ComSpec"); c != "" {
		return ShellChoice{ShellCmd, c}
	}
	if sysRoot != "" {
		return ShellChoice{ShellCmd, winJoin(sysRoot, `System32\cmd.exe`)}
	}
	return ShellChoice{ShellCmd, "cmd.exe"}
}

// winJoin joins Windows path parts with a backslash, whatever system
// this runs on (chooseShell is tested on Linux).
func winJoin(dir, rest string) string {
	return strings.TrimRight(dir, `\/`) + `\` + rest
}

// winWithin reports whether the Windows path p lies in dir, case folded.
func winWithin(p, dir string) bool {
	p = strings.ToLower(filepath.ToSlash(strings.ReplaceAll(p, `\`, "/")))
	dir = strings.ToLower(strings.TrimRight(strings.ReplaceAll(dir, `\`, "/"), "/")) + "/"
	return strings.HasPrefix(p, dir)
}
