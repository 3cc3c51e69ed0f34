package permission

// Paths that name the shell's own descriptors and process: /dev/fd/N,
// /dev/stdin, /dev/stdout and /dev/stderr, and /proc/self/… (and
// /proc/thread-self/…). The kernel resolves them in the process that
// opens them, the command's shell, not the bridge, so they are placed as
// the shell sees them: a descriptor the script opened on a file
// (3<src.txt, exec 3<>f, 4>&3, {fd}<f) is that file, whichever way it
// was opened (a descriptor open for reading is reopened for writing
// through /dev/fd); the standard ones the script did not redirect are
// the bridge's pipes; any other, and any other path under /proc, or a
// .. after such a component, is named only when the command runs.

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fdFacts are the files a script's redirections give its descriptors,
// shared by the analyses of the code it runs in strings.
type fdFacts struct {
	files map[string][]Redirect // descriptor ("3", or "{}" for one bash numbers, 10 and up) → files
	dups  [][2]string           // N>&M: N is what M is
}

func (a *Analysis) fdInfo() *fdFacts {
	if a.fds == nil {
		a.fds = &fdFacts{}
	}
	return a.fds
}

// opens records that a redirection gives descriptors a file.
func (a *Analysis) opens(r *syntax.Redirect, file Redirect) {
	var fds []string
	switch {
	case r.N != nil && strings.HasPrefix(r.N.Value, "{"):
		fds = []string{"{}"}
	case r.N != nil:
		fds = []string{r.N.Value}
	case r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.Op == syntax.RdrAllClob || r.Op == syntax.AppAllClob || r.Op == syntax.DplOut:
		fds = []string{"1", "2"}
	case r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut:
		fds = []string{"0"}
	default:
		fds = []string{"1"}
	}
	f := a.fdInfo()
	if f.files == nil {
		f.files = map[string][]Redirect{}
	}
	for _, fd := range fds {
		f.files[fd] = append(f.files[fd], file)
	}
}

// dup records N>&M and N<&M.
func (a *Analysis) dup(r *syntax.Redirect, from string) {
	to := "1"
	if r.Op == syntax.DplIn {
		to = "0"
	}
	if r.N != nil {
		to = r.N.Value
		if strings.HasPrefix(to, "{") {
			to = "{}"
		}
	}
	f := a.fdInfo()
	f.dups = append(f.dups, [2]string{to, from})
}

// fdFiles are the files descriptor fd may be open on, following dups.
func (f *fdFacts) fdFiles(fd string) []Redirect {
	if f == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []Redirect
	var walk func(fd string)
	walk = func(fd string) {
		if seen[fd] {
			return
		}
		seen[fd] = true
		out = append(out, f.files[fd]...)
		if len(fd) > 1 && fd[0] != '0' { // 10 and up: those bash numbers
			out = append(out, f.files["{}"]...)
		}
		for _, d := range f.dups {
			if d[0] == fd {
				walk(d[1])
			}
		}
	}
	walk(fd)
	return out
}

// Kinds of paths, as the shell opens them.
const (
	plainPath   = iota
	fdPath      // a descriptor of the shell
	cwdPath     // relative to the shell's directory (/proc/self/cwd/…)
	runTimePath // named only when the command runs
)

// shellPath tells how the shell opens the absolute path p: plainly, as
// its descriptor fd, or relative to its directory (rest).
func shellPath(p string) (kind int, fd, rest string) {
	if !strings.HasPrefix(p, "/") || !(strings.Contains(p, "dev") || strings.Contains(p, "proc")) {
		return plainPath, "", ""
	}
	var parts []string
	special := func() bool {
		return len(parts) > 0 && parts[0] == "proc" ||
			len(parts) > 1 && parts[0] == "dev" && (parts[1] == "fd" || parts[1] == "stdin" || parts[1] == "stdout" || parts[1] == "stderr")
	}
	for c := range strings.SplitSeq(p, "/") {
		switch {
		case c == "" || c == ".":
		case c == "..":
			if special() {
				return runTimePath, "", ""
			}
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, c)
		}
	}
	self := len(parts) > 1 && parts[0] == "proc" && (parts[1] == "self" || parts[1] == "thread-self")
	switch {
	case len(parts) == 2 && parts[0] == "dev" && parts[1] == "stdin":
		return fdPath, "0", ""
	case len(parts) == 2 && parts[0] == "dev" && parts[1] == "stdout":
		return fdPath, "1", ""
	case len(parts) == 2 && parts[0] == "dev" && parts[1] == "stderr":
		return fdPath, "2", ""
	case len(parts) == 3 && parts[0] == "dev" && parts[1] == "fd" && isDigits(parts[2]):
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			return runTimePath, "", ""
		}
		return fdPath, strconv.Itoa(n), ""
	case self && len(parts) == 4 && parts[2] == "fd" && isDigits(parts[3]):
		return shellPath("/dev/fd/" + parts[3])
	case self && len(parts) > 3 && parts[2] == "cwd":
		return cwdPath, "", strings.Join(parts[3:], "/")
	case self && len(parts) > 3 && parts[2] == "root":
		return shellPath("/" + strings.Join(parts[3:], "/"))
	case special():
		return runTimePath, "", ""
	}
	return plainPath, "", ""
}

// placeShellPaths replaces each redirect to a path of the shell's own by
// the files it reaches, once the whole script has been read.
func (a *Analysis) placeShellPaths() {
	var out []Redirect
	changed := false
	for _, rd := range a.Redirects {
		if rd.Dynamic {
			out = append(out, rd)
			continue
		}
		placed, ok := a.place(rd, map[string]bool{})
		changed = changed || !ok
		out = append(out, placed...)
	}
	if changed {
		a.Redirects = out
	}
}

// place is what a redirect reaches; ok reports that it is rd itself.
// seen are the descriptors being placed: one reached again is what it
// was before the redirection that reached it, which adds nothing.
func (a *Analysis) place(rd Redirect, seen map[string]bool) (_ []Redirect, ok bool) {
	kind, fd, rest := shellPath(rd.Path)
	switch {
	case kind == plainPath:
		return []Redirect{rd}, true
	case kind == cwdPath:
		return []Redirect{{Path: rest, Write: rd.Write}}, false
	case kind == runTimePath:
		return []Redirect{{Dynamic: true, Write: rd.Write}}, false
	case seen[fd]:
		return nil, false
	}
	seen[fd] = true
	defer delete(seen, fd)
	var out []Redirect
	for _, f := range a.fds.fdFiles(fd) {
		f.Write = rd.Write
		if f.Dynamic {
			out = append(out, f)
			continue
		}
		more, _ := a.place(f, seen)
		out = append(out, more...)
	}
	if len(out) == 0 && fd != "0" && fd != "1" && fd != "2" {
		// Not opened by the script: named when it runs. The standard
		// ones are the bridge's pipes.
		return []Redirect{{Dynamic: true, Write: rd.Write}}, false
	}
	return out, false
}
