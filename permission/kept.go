package permission

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// keptInRoot are the paths, relative to a workspace root, that commands
// in the sandbox may read but never change: the places protected names
// whose content runs code later, as git hooks and config (a submodule's
// included), dsh-bridge's settings, direnv's and mise's files, editor
// tasks and the hook and package managers' files. Globs.
var keptInRoot = []string{
	".git/hooks", ".git/config", ".git/info",
	".git/modules/*/hooks", ".git/modules/*/config", ".git/modules/*/info",
	".dsh", ".envrc", ".husky", ".githooks",
	".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
	".devcontainer/devcontainer.json", ".config/mise",
}

// Kept returns the paths the sandbox keeps read-only for commands (see
// sandbox.Profile.Kept), as globs: in each workspace root, keptInRoot and
// the files of runsLater; and, when a root holds them, the shell's start
// files and dsh-bridge's own configuration. Each is a path protected
// judges too, so that a command cannot write what a file tool must ask
// for. Roots are resolved.
func (p *Policy) Kept(roots []string) []string {
	var out []string
	in := func(path string) bool {
		for _, r := range roots {
			if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) || r == "/" {
				return true
			}
		}
		return false
	}
	for _, r := range roots {
		q := sandbox.GlobQuote(r)
		for _, rel := range keptInRoot {
			out = append(out, q+"/"+rel)
		}
		for name := range runsLater {
			out = append(out, q+"/"+sandbox.GlobQuote(name))
		}
	}
	if p.home != "" && in(p.home) {
		for _, f := range shellFiles {
			out = append(out, sandbox.GlobQuote(filepath.Join(p.home, f)))
		}
	}
	if p.configDir != "" && in(p.configDir) {
		out = append(out, sandbox.GlobQuote(p.configDir))
	}
	sort.Strings(out)
	return out
}
