package permission

import (
	"path/filepath"
	"slices"
	"strings"
)

// multiLevel are programs whose first argument names what they do: an
// "always allow" for them covers that subcommand, not the program.
var multiLevel = map[string]bool{
	"git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true, "go": true, "cargo": true,
	"rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true, "gh": true, "pip": true,
	"pip3": true, "uv": true, "poetry": true, "dotnet": true, "mvn": true, "gradle": true, "make": true,
	"terraform": true, "brew": true, "apt": true, "apt-get": true, "systemctl": true, "npx": true, "composer": true,
}

// commandKey is what an "always allow" of a simple command remembers:
// the program, plus the subcommand of a multi-level tool (git status). A
// multi-level tool whose first word is an option (git -c …, go -C …) is
// remembered as exactly that command: its options can change what it runs.
func commandKey(tool string, s Simple) string {
	key := tool + ":" + s.Program
	if !multiLevel[s.Program] || len(s.Args) == 0 {
		return key
	}
	if !s.dyn[0] && s.Args[0] != "" && !strings.HasPrefix(s.Args[0], "-") {
		return key + " " + s.Args[0]
	}
	return tool + ":=" + strings.Join(s.Words(), " ")
}

// inert are builtins that change nothing outside the shell: they need no
// allowance (deny rules still see them).
var inert = map[string]bool{
	"true": true, "false": true, ":": true, "echo": true, "printf": true, "test": true, "[": true,
	"pwd": true, "sleep": true, "wait": true, "exit": true, "return": true, "set": true,
}

// needsAllow reports whether a simple command must be covered for the
// script to run without asking.
func (p *Policy) needsAllow(s Simple) bool {
	if s.Transparent {
		return false
	}
	if s.Dynamic || s.Pathed {
		return true
	}
	switch {
	case inert[s.Program]:
		return false
	case s.Program == "cd" || s.Program == "pushd":
		// cd inside the workspace needs nothing; elsewhere it must be allowed.
		if len(s.Args) != 1 || s.dyn[0] {
			return true
		}
		return !p.ws.ContainsResolved(p.asWritten(s.Args[0]))
	}
	return true
}

// decideCommand allows a script only when every simple command in it is
// covered by an allow rule or an "always" answer, nothing in it is opaque
// or dangerous, and every file it writes (by redirection, tee, sed -i, cp,
// …) lies in the workspace, is not protected, and could be edited without
// asking (editAllowed). Otherwise it asks, listing what is not
// yet allowed.
func (p *Policy) decideCommand(c *call) Decision {
	a := c.cmd
	name := c.tool.Name
	var pending, keys, blockers, inertOnly []string
	covered := 0
	for _, s := range a.Commands {
		if !p.needsAllow(s) {
			if !s.Transparent {
				inertOnly = append(inertOnly, s.Text)
			}
			continue
		}
		if !s.Dynamic && p.commandAllowed(name, s) {
			covered++
			continue
		}
		pending = append(pending, s.Text)
	}
	blockers = append(blockers, a.Opaque...)
	blockers = append(blockers, a.Danger...)
	for i, rd := range a.Redirects {
		switch {
		case rd.Meta:
		case rd.Dynamic && rd.Write:
			blockers = append(blockers, "it writes to a file named at run time")
		case rd.Dynamic:
		case rd.Path == "/dev/null": // the shell's own descriptors are placed by the analysis (fdpaths.go)
		case a.ChangesDir && !filepath.IsAbs(rd.Path):
			blockers = append(blockers, "it changes directory and then redirects to "+rd.Path)
		default:
			real := c.target(i)
			switch {
			case !p.ws.ContainsResolved(real):
				verb := "reads"
				if rd.Write {
					verb = "writes"
				}
				blockers = append(blockers, verb+" "+real+", outside the workspace")
			case rd.Write:
				if why := p.protected(real); why != "" {
					blockers = append(blockers, "it writes "+real+", "+why)
				} else if !p.editAllowed(real) {
					blockers = append(blockers, "it writes "+real+": a write is an edit, and edits ask in the "+string(p.mode())+" mode")
				}
			}
		}
	}
	for _, acc := range c.accesses() {
		if !p.ws.ContainsResolved(acc.path) {
			blockers = append(blockers, "it runs in "+acc.path+", outside the workspace")
		}
	}
	if len(pending) == 0 && len(blockers) == 0 {
		if covered > 0 {
			return Decision{Verdict: Allow}
		}
		// Only builtins that change nothing: they run without asking once
		// something was allowed, or when they themselves were.
		allowed := len(inertOnly) > 0
		for _, s := range a.Commands {
			if !s.Transparent && !p.commandAllowed(name, s) {
				allowed = false
			}
		}
		if allowed {
			return Decision{Verdict: Allow}
		}
		pending = inertOnly
		for _, s := range a.Commands {
			if !p.needsAllow(s) && !s.Transparent {
				keys = appendOnce(keys, commandKey(name, s))
			}
		}
	} else {
		for _, s := range a.Commands {
			if p.needsAllow(s) && !s.Dynamic && !s.Pathed && !p.commandAllowed(name, s) {
				keys = appendOnce(keys, commandKey(name, s))
			}
		}
	}
	d := Decision{Verdict: Ask, Keys: keys, Pending: append(pending, blockers...)}
	if len(blockers) > 0 {
		d.Reason = blockers[0]
		d.Keys = nil // an "always" answer cannot cover what is not a command
	}
	for _, k := range d.Keys {
		d.Remembers = append(d.Remembers, describeCommandKey(k))
	}
	return d
}

// editAllowed reports whether a command's write of a resolved path inside
// the workspace runs without asking, as an edit of it would: in
// acceptEdits, or under an allow rule of edit or write.
func (p *Policy) editAllowed(path string) bool {
	if p.mode() == ModeAccept {
		return true
	}
	for _, r := range p.allow {
		if (r.Tool == "edit" || r.Tool == "write") && r.matchPath(path) {
			return true
		}
	}
	return false
}

// commandAllowed reports whether an allow rule or an "always" answer
// covers a simple command. Neither covers a program written with a
// directory outside the system's (./git is not git).
func (p *Policy) commandAllowed(tool string, s Simple) bool {
	for _, r := range p.allow {
		if r.Tool == tool && r.matchCommand(s, true) {
			return true
		}
	}
	if s.Pathed && !systemDir(s.Dir) {
		return false
	}
	always, _ := p.rememberedCommand(tool, s)
	return always
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// shellFiles are the user's files that shells, editors and the session
// run at start, and the folders of programs on a usual $PATH.
var shellFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv",
	".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".inputrc", ".gitconfig", ".config/fish", ".config/git",
	".ssh", ".local/bin", ".bashrc.d", ".vimrc", ".config/nvim", ".config/zed", ".config/Code",
	".config/autostart", ".config/systemd", "bin", "go/bin", ".cargo/bin",
}

// runsLater are file names whose content runs code when the person does
// something ordinary: commits (pre-commit, lefthook), enters the
// directory (mise), runs the package manager (npm's script-shell and
// node-options, yarn's yarnPath, pnpm's hooks) or opens a container.
var runsLater = map[string]string{
	".pre-commit-config.yaml": "git hooks", "lefthook.yml": "git hooks", ".lefthook.yml": "git hooks",
	"lefthook.yaml": "git hooks", ".lefthook.yaml": "git hooks", "lefthook-local.yml": "git hooks",
	".lefthook-local.yml": "git hooks", "lefthook.json": "git hooks", "lefthook.toml": "git hooks",
	"mise.toml": "a file mise runs", ".mise.toml": "a file mise runs", "mise.local.toml": "a file mise runs",
	".mise.local.toml":   "a file mise runs",
	".mcp.json":          "MCP servers another agent starts",
	".npmrc":             "package manager configuration that runs code",
	".yarnrc":            "package manager configuration that runs code",
	".yarnrc.yml":        "package manager configuration that runs code",
	".pnpmfile.cjs":      "package manager configuration that runs code",
	".pnpmfile.mjs":      "package manager configuration that runs code",
	".devcontainer.json": "a file that runs commands when its tool starts",
	// Neovim and Vim run these at start with 'exrc' (Neovim before 0.9
	// and Vim without asking).
	".nvim.lua": "a file your editor runs at start",
	".nvimrc":   "a file your editor runs at start",
	".exrc":     "a file your editor runs at start",
}

// protected returns why writing a resolved path always asks, or "": the
// places that run code later or grant the agent power — the workspace's
// .dsh settings, git hooks and config and the hook managers' files,
// editors' and other agents' project configuration, .envrc and mise's
// files, package managers' settings that run code, dev containers, shell
// start files, and dsh-bridge's own configuration, session logs and
// programs.
//
// Paths compare in the workspace's form: where the file system folds
// case, .GIT/Hooks is git's hooks folder.
func (p *Policy) protected(path string) string {
	slash := p.form.Of(filepath.ToSlash(path))
	if p.within(path, []string{p.configDir}) {
		return "dsh-bridge's own configuration"
	}
	if p.within(path, []string{p.stateDir}) {
		return "dsh-bridge's session logs (a loaded session takes its mode from them)"
	}
	if slices.ContainsFunc(p.programs, func(prog string) bool { return p.form.Of(prog) == slash }) {
		return "dsh-bridge's own program (it runs outside the sandbox)"
	}
	if p.within(path, p.homeFiles) {
		return "a file your shell or tools run at start"
	}
	parts := strings.Split(slash, "/")
	for i, part := range parts {
		rest := parts[i+1:]
		switch {
		case part == ".dsh":
			return "a dsh-bridge settings folder"
		case part == ".git" && len(rest) > 0 && (rest[0] == "hooks" || rest[0] == "config" || rest[0] == "info" || rest[0] == "modules"):
			// modules: the submodules' git folders, each with its hooks and config
			return "git configuration that runs code"
		case part == ".git" && len(rest) == 0:
			return "git's own folder"
		case part == ".envrc" && len(rest) == 0:
			return "a file direnv runs"
		case (part == ".vscode" || part == ".zed") && len(rest) > 0:
			// settings (a terminal's environment, a language server's
			// binary), tasks, launch configurations, MCP servers: the
			// editor applies them as they appear
			return "editor configuration that runs commands"
		case part == ".claude" && len(rest) > 0:
			return "another agent's configuration that runs commands (its hooks)"
		case (part == ".husky" || part == ".githooks") && len(rest) > 0:
			return "git hooks"
		case len(rest) == 0 && runsLater[part] != "":
			return runsLater[part]
		case (part == ".devcontainer" && len(rest) == 1 && rest[0] == "devcontainer.json") || (part == ".config" && len(rest) > 0 && rest[0] == "mise"):
			return "a file that runs commands when its tool starts"
		}
	}
	return ""
}

// within is within in the workspace's form: whether a resolved path is
// in one of roots ("" is in none), case-folded where the file system
// folds case.
func (p *Policy) within(path string, roots []string) bool {
	for _, r := range roots {
		if r != "" && p.form.Within(path, r) {
			return true
		}
	}
	return false
}
