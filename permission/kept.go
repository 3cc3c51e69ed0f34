package permission

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// keptInRoot are the paths, relative to a workspace root, that commands
// in the sandbox may read but never change: the places protected names
// whose content runs code later, as git hooks and config (a submodule's
// included), dsh-bridge's settings, direnv's and mise's files, editors'
// and other agents' project folders and the hook and package managers'
// files. Globs.
var keptInRoot = []string{
	".git/hooks", ".git/config", ".git/info",
	".git/modules/*/hooks", ".git/modules/*/config", ".git/modules/*/info",
	".dsh", ".envrc", ".husky", ".githooks",
	// Whole, so that no settings, tasks or MCP file is added to them.
	".vscode", ".zed", ".claude",
	".devcontainer/devcontainer.json", ".config/mise",
}

// Kept returns the paths the sandbox keeps read-only for commands (see
// sandbox.Profile.Kept), as globs, for commands that may change the
// folders of writable (resolved: the workspace roots in workspace-write,
// the temp folder, the devices' folders; sandbox.Profile.Writable). In
// each workspace root writable holds, keptInRoot and the files of
// runsLater; and, wherever one of writable holds them, the shell's start
// files and dsh-bridge's own configuration, session logs and programs (a
// dsh-bridge unpacked in the temp folder is started again for the next
// command, web page and editor terminal, outside the sandbox). Each is a
// path protected judges too, so that a command cannot write what a file
// tool must ask for.
func (p *Policy) Kept(writable []string) []string {
	var out []string
	in := func(path string) bool { return within(path, writable) }
	for _, r := range p.ws.Roots() {
		if !in(r) {
			continue
		}
		q := sandbox.GlobQuote(r)
		for _, rel := range keptInRoot {
			out = append(out, q+"/"+rel)
		}
		for name := range runsLater {
			out = append(out, q+"/"+sandbox.GlobQuote(name))
		}
	}
	if p.home != "" && in(p.home) {
		for _, h := range p.homeFiles {
			out = append(out, sandbox.GlobQuote(h))
		}
	}
	for _, own := range append([]string{p.configDir, p.stateDir}, p.programs...) {
		if own != "" && in(own) {
			out = append(out, sandbox.GlobQuote(own))
		}
	}
	sort.Strings(out)
	return out
}

// MakeKept makes, when missing, the folders whose files dsh-bridge itself
// reads when a session starts: its configuration folder when one of
// writable (the folders commands may change, as for Kept) holds it (the
// user's settings: trusted workspaces, allow rules, MCP servers), and, in
// a trusted workspace whose root writable holds, the workspace's .dsh
// (whose allow rules and MCP servers then apply). The sandbox keeps only what exists
// when a command starts, so without them a sandboxed command could create
// either's settings.json, and the next session would apply its rules and
// start its servers outside the sandbox. Each is made empty (git shows no
// empty folder); a path that exists in any form, a symlink included, is
// left as it is. It returns the folders it made, and the error of one it
// could not make.
func (p *Policy) MakeKept(writable []string, trusted bool) (made []string, err error) {
	var want []string
	if p.configDir != "" && within(p.configDir, writable) {
		want = append(want, p.configDir)
	}
	if root := p.ws.Roots()[0]; trusted && within(root, writable) {
		want = append(want, filepath.Join(root, ".dsh"))
	}
	for _, dir := range want {
		if _, serr := os.Lstat(dir); serr == nil {
			continue
		}
		if merr := os.MkdirAll(filepath.Dir(dir), 0o700); merr != nil {
			err = cmp.Or(err, merr)
			continue
		}
		switch merr := os.Mkdir(dir, 0o755); {
		case merr == nil:
			made = append(made, dir)
		case !errors.Is(merr, fs.ErrExist):
			err = cmp.Or(err, merr)
		}
	}
	return made, err
}

// within reports whether a resolved path is in one of roots ("" is in
// none).
func within(path string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		if safepath.Within(path, r) {
			return true
		}
	}
	return false
}
