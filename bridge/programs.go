package bridge

import (
	"os"
	"path/filepath"
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
