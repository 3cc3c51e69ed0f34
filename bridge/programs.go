package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

// ownPrograms are dsh-bridge's binary and the helpers it would start
// (symlinks resolved), looked up once: the permission policy guards them
// (settings' Programs), since a program put in their place runs outside
// the sandbox.
var ownPrograms = sync.OnceValue(func() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	for _, p := range []string{highlight.Locate(), codemode.LocateRunner(), tools.LocateMarkdown()} {
		if p != "" {
			out = append(out, p)
		}
	}
	for i, p := range out {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out[i] = real
		}
	}
	return out
})

// selfExe is the binary to start again as the sandbox's helper and the
// commands' supervisor: the running binary itself (/proc/self/exe, which
// names this process's file even once its path holds another), so that
// a program a command put at the path, or a newer build installed there,
// never stands in for it.
func selfExe() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// writablePath lists the folders of path ($PATH) that commands sandboxed
// in roots may write: those inside a root (an activated virtualenv's
// .venv/bin, direnv's PATH_add) and relative ones (under whatever the
// working directory is). A program a command puts there runs as the
// person, outside the sandbox, when a shell with this $PATH runs its
// name; the bridge itself takes none from them (safepath).
func writablePath(roots []string, path string) []string {
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || slices.Contains(out, dir) {
			continue
		}
		if !filepath.IsAbs(dir) {
			out = append(out, dir)
			continue
		}
		real := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			real = r
		}
		for _, root := range roots {
			if root != "/" && (real == root || strings.HasPrefix(real, root+string(filepath.Separator))) {
				out = append(out, dir)
				break
			}
		}
	}
	return out
}
