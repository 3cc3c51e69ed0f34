package permission

import (
	"path"
	"strings"
)

// The files cmd's and PowerShell's file commands read and write, as
// redirections are: a read of a denied file is refused by the read rule,
// and a write asks where a redirection's write would (outside the
// workspace, a protected file, a write no edit rule covers where commands
// run unconfined).

// cmdSeparators are the bytes cmd takes between words as it takes a
// space (Microsoft, "cmd", learn.microsoft.com, and SS64, "Syntax:
// Escape characters, delimiters and quotes", both read 2026-12-07).
const cmdSeparators = ",;="

// cmdSplits are the builtins whose arguments cmd itself splits at
// cmdSeparators; other programs get their command line as written.
var cmdSplits = map[string]bool{
	"type": true, "copy": true, "move": true, "ren": true, "rename": true, "del": true, "erase": true,
	"dir": true, "md": true, "mkdir": true, "rd": true, "rmdir": true, "cd": true, "chdir": true,
	"pushd": true, "mklink": true,
}

// cmdWildcards are the cmd programs that expand * and ? in their file
// arguments: the word as written is not the file they open.
var cmdWildcards = map[string]bool{"type": true, "copy": true, "xcopy": true, "move": true, "ren": true, "rename": true}

// cmdOption reports whether a cmd argument is an option (/b, /-y, /y:x)
// rather than a path: "/", then a letter or "-", and no other separator.
func cmdOption(w string) bool {
	return len(w) >= 2 && w[0] == '/' && !strings.ContainsAny(w[1:], `/\`) && len(w) <= 6
}

// cmdFiles records the files a cmd file command reads and writes: copy
// reads each "+" part of its sources and writes its last argument (or
// the source's name in the current folder), xcopy reads its first and
// writes its second, move writes (empties) its sources and its last
// argument, ren writes its first and the name its second gives beside
// it. An argument with a wildcard these expand is opaque.
func (a *Analysis) cmdFiles(s Simple) {
	var files []string
	for _, w := range s.Args {
		if !cmdOption(w) {
			files = append(files, w)
		}
	}
	if len(files) == 0 {
		return
	}
	if cmdWildcards[s.Program] {
		for _, f := range files {
			if strings.ContainsAny(f, "*?") {
				a.opaque("%s expands the wildcard in %s, so the files it names cannot be judged", s.Program, f)
				return
			}
		}
	}
	read := func(f string, write bool) {
		a.Redirects = append(a.Redirects, Redirect{Path: f})
		if write {
			a.Redirects = append(a.Redirects, Redirect{Path: f, Write: true})
		}
	}
	switch s.Program {
	case "copy", "xcopy", "move":
		srcs, dst := files[:len(files)-1], files[len(files)-1]
		if len(files) == 1 {
			srcs, dst = files, ""
		}
		for _, src := range srcs {
			for _, part := range strings.Split(src, "+") {
				if part != "" && (s.Program == "copy" || !strings.Contains(src, "+")) {
					read(part, s.Program == "move")
				}
			}
		}
		if dst == "" {
			dst = winBase(strings.Split(srcs[len(srcs)-1], "+")[0])
		}
		if dst != "" {
			a.Redirects = append(a.Redirects, Redirect{Path: dst, Write: true})
		}
	case "ren", "rename":
		read(files[0], true)
		if len(files) > 1 {
			a.Redirects = append(a.Redirects, Redirect{Path: winBeside(files[0], files[1]), Write: true})
		}
	}
}

// winBase is the last name of a Windows path ("" for a folder's).
func winBase(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	if len(p) >= 2 && p[1] == ':' {
		return p[2:]
	}
	return p
}

// winBeside is name in the folder of the Windows path p: where ren and
// Rename-Item put the new name.
func winBeside(p, name string) string {
	q := strings.ReplaceAll(p, `\`, "/")
	if i := strings.LastIndexByte(q, '/'); i >= 0 {
		return q[:i+1] + winBase(name)
	}
	if len(q) >= 2 && q[1] == ':' {
		return q[:2] + winBase(name)
	}
	return winBase(name)
}

// psDashes are the characters PowerShell takes for a parameter's dash:
// the hyphen-minus, the en dash, the em dash and the horizontal bar
// (PowerShell's language specification, §2.2.4 "dash", read 2026-12-07).
var psDashes = []string{"-", "\u2013", "\u2014", "\u2015"}

// psParams returns a PowerShell command's words with each parameter
// spelt as the binder reads it: a dash of any kind made "-", and
// -Name:value split into -Name and value.
func psParams(words []string) []string {
	out := []string{words[0]}
	for _, w := range words[1:] {
		for _, d := range psDashes {
			if rest, ok := strings.CutPrefix(w, d); ok && rest != "" {
				w = "-" + rest
				if name, v, ok := strings.Cut(rest, ":"); ok && name != "" {
					out = append(out, "-"+name)
					w = v
				}
				break
			}
		}
		out = append(out, w)
	}
	return out
}

// psFileCmdlets are the cmdlets (and their aliases) that write files
// named by their parameters, with the parameters that name what they
// read and write, in positional order.
var psFileCmdlets = map[string]string{
	"copy-item": "copy", "cpi": "copy", "copy": "copy", "cp": "copy",
	"move-item": "move", "mi": "move", "move": "move", "mv": "move",
	"rename-item": "rename", "rni": "rename", "ren": "rename",
	"new-item": "new", "ni": "new", "md": "new", "mkdir": "new",
}

// psSwitches are the common switch parameters of the file cmdlets (no
// value follows them).
var psSwitches = []string{"-force", "-recurse", "-passthru", "-whatif", "-confirm", "-container", "-verbose", "-debug"}

// psFiles records what a PowerShell command reads and writes by its
// parameters: Copy-Item reads -Path (or -LiteralPath, or its first
// positional) and writes -Destination (its second); Move-Item writes
// both; Rename-Item writes -Path and -NewName beside it; New-Item writes
// -Path (joined with -Name). A path argument with a wildcard (* or ?,
// which -Path expands) is opaque.
func (a *Analysis) psFiles(s Simple) {
	for _, w := range s.Args {
		if !strings.HasPrefix(w, "-") && strings.ContainsAny(w, "*?") {
			a.opaque("PowerShell expands the wildcard in %s, so the files it names cannot be judged", w)
			return
		}
	}
	kind := psFileCmdlets[s.Program]
	if kind == "" {
		return
	}
	named := map[string]string{}
	var pos []string
	for i := 0; i < len(s.Args); i++ {
		w := strings.ToLower(s.Args[i])
		if !strings.HasPrefix(w, "-") || len(w) < 2 {
			pos = append(pos, s.Args[i])
			continue
		}
		valued := false
		for _, p := range []string{"-path", "-literalpath", "-destination", "-newname", "-name"} {
			if strings.HasPrefix(p, w) && i+1 < len(s.Args) {
				named[p], valued = s.Args[i+1], true
			}
		}
		if valued || !psSwitch(w) {
			i++ // a parameter's value, named or not
		}
	}
	take := func(names ...string) string {
		for _, n := range names {
			if v, ok := named[n]; ok {
				return v
			}
		}
		if len(pos) > 0 {
			v := pos[0]
			pos = pos[1:]
			return v
		}
		return ""
	}
	src := take("-literalpath", "-path")
	write := func(p string) {
		if p == "" {
			a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
			return
		}
		a.Redirects = append(a.Redirects, Redirect{Path: p, Write: true})
	}
	switch kind {
	case "copy", "move":
		if src != "" {
			a.Redirects = append(a.Redirects, Redirect{Path: src})
		}
		if kind == "move" {
			write(src)
		}
		write(take("-destination"))
	case "rename":
		write(src)
		if n := take("-newname"); n != "" {
			write(winBeside(src, n))
		}
	case "new":
		if n := take("-name"); n != "" {
			src = path.Join(strings.ReplaceAll(src, `\`, "/"), strings.ReplaceAll(n, `\`, "/"))
		}
		write(src)
	}
}

// psSwitch reports whether a parameter (lower case, with its dash) is a
// switch of psSwitches or a prefix of one.
func psSwitch(w string) bool {
	for _, s := range psSwitches {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// unjudgedWords makes a command opaque for each path it names that the
// workspace's platform spells in a way no rule can judge exactly
// (workspace.Workspace.Unjudged: a drive-relative path on another drive,
// GLOBALROOT, a share of this machine): its arguments (an option's value
// after "=" too) and its redirections. Opaque, it asks, and a read deny
// rule refuses it where commands run unconfined.
func (p *Policy) unjudgedWords(a *Analysis) {
	judge := func(w string) {
		if why := p.ws.Unjudged(w); why != "" {
			a.opaque("%s", why)
		}
	}
	for _, s := range a.judged() {
		for i, w := range s.Args {
			if s.dyn[i] || w == "" {
				continue
			}
			if strings.HasPrefix(w, "-") {
				if _, v, ok := strings.Cut(w, "="); ok {
					judge(v)
				}
				continue
			}
			judge(w)
		}
	}
	for _, rd := range a.Redirects {
		if !rd.Dynamic && rd.Path != "" {
			judge(rd.Path)
		}
	}
}

// unjudgedFile is the Ask of a file tool's call that names a path no rule
// can judge exactly (workspace.Workspace.Unjudged), or false.
func (p *Policy) unjudgedFile(c *call) (Decision, bool) {
	for _, d := range c.declared {
		if why := p.ws.Unjudged(d.Path); why != "" {
			return Decision{Verdict: Ask, Reason: why, Pending: []string{why}}, true
		}
	}
	return Decision{}, false
}
