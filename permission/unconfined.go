package permission

import (
	"runtime"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/tools"
)

// Where commands run with no kernel sandbox (Settings.Unconfined: Windows),
// nothing but the policy stands between a command and the person's files,
// so the policy asks more:
//   - no mode but bypassPermissions lets a command write without asking:
//     acceptEdits covers the edit tools, whose diffs the person sees, not
//     a command's writes inside the workspace, which then need an edit or
//     write allow rule (writes outside it ask in every case);
//   - a read deny rule, which on Linux the sandbox enforces on whatever a
//     command opens, refuses a command that names a denied file in its
//     arguments, and one with code the analysis cannot see.

// asWritten resolves a path a command names as its shell opens it
// (workspace.ResolveAsWritten), Git for Windows' MSYS drive paths first
// made Windows ones (msysPath).
func (p *Policy) asWritten(path string) string {
	return p.ws.ResolveAsWritten(msysPath(path, runtime.GOOS, p.shell))
}

// asWritten is the policy's asWritten, in the call's workspace.
func (c *call) asWritten(path string) string {
	if c.p != nil {
		path = msysPath(path, runtime.GOOS, c.p.shell)
	}
	return c.ws.ResolveAsWritten(path)
}

// msysPath is path as Git for Windows' bash opens it: /c/ws/x (and /C/ws/x)
// names drive C:'s C:/ws/x there. Git's own /tmp, /usr and /etc (its
// install folder) are left as written, which Windows takes as the root
// of the current drive: outside the workspace, so they ask. Elsewhere,
// and under cmd, path is as written.
func msysPath(path, goos string, shell tools.ShellKind) string {
	if goos != "windows" || shell != tools.ShellBash || len(path) < 2 || path[0] != '/' ||
		!('a' <= path[1] && path[1] <= 'z' || 'A' <= path[1] && path[1] <= 'Z') || len(path) > 2 && path[2] != '/' {
		return path
	}
	return strings.ToUpper(path[1:2]) + ":/" + strings.TrimPrefix(path[2:], "/")
}

// analyze reads a command in the session's shell language.
func (p *Policy) analyze(src string) Analysis {
	if p.shell == tools.ShellCmd {
		return AnalyzeCmd(src)
	}
	return Analyze(src)
}

// unconfinedCommand is decideCommand's decision d made stricter where
// commands run unconfined: an Allow asks when the command writes a file
// in the workspace that no edit or write allow rule covers.
func (p *Policy) unconfinedCommand(c *call, d Decision) Decision {
	if !p.unconfined || d.Verdict != Allow {
		return d
	}
	for i, rd := range c.cmd.Redirects {
		if !rd.Write || rd.Meta || rd.Dynamic || rd.Path == "/dev/null" {
			continue
		}
		if real := c.target(i); !p.editRuleAllows(real) {
			why := "it writes " + real + ", and commands run with no sandbox on this system: a command's writes ask in every mode but bypassPermissions unless an edit or write allow rule covers them"
			return Decision{Verdict: Ask, Reason: why, Pending: []string{why}}
		}
	}
	return d
}

// editRuleAllows reports whether an edit or write allow rule covers a
// resolved path.
func (p *Policy) editRuleAllows(path string) bool {
	for _, r := range p.allow {
		if (r.Tool == "edit" || r.Tool == "write") && r.matchPath(path) {
			return true
		}
	}
	return false
}

// unconfinedDenies explains how a read deny rule refuses a command where
// no sandbox enforces it ("" when it does not): code the analysis cannot
// see, or an argument naming a denied file (as written, or after an
// option's =).
func (p *Policy) unconfinedDenies(r compiled, c *call) string {
	if !p.unconfined || c.cmd == nil || r.Tool != "read" || r.any {
		return ""
	}
	if len(c.cmd.Opaque) > 0 {
		return ": " + c.cmd.Opaque[0] + ", so the rule cannot be checked, and no sandbox keeps the denied files from commands on this system (write the command out plainly)"
	}
	for _, s := range c.cmd.judged() {
		for i, arg := range s.Args {
			if s.dyn[i] || arg == "" {
				continue
			}
			if strings.HasPrefix(arg, "-") {
				_, v, ok := strings.Cut(arg, "=")
				if !ok || v == "" {
					continue
				}
				arg = v
			}
			if pth := c.asWritten(arg); r.matchPath(pth) {
				return " (" + pth + ", which " + s.Program + " names: no sandbox keeps it from commands on this system)"
			}
		}
	}
	return ""
}
