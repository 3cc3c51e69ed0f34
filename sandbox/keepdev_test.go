//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKept_InTheDevicesFolders: a kept program in /dev/shm, which every
// sandboxed command may write, is kept there too: it cannot be replaced,
// written or removed.
func TestKept_InTheDevicesFolders(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("this machine's kernel has no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	if !userNamespaces() {
		t.Fatal("no user namespaces here; platform-notes.md says they work on this machine kind")
	}
	shm, err := os.MkdirTemp("/dev/shm", "dsh-kept-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	prog := filepath.Join(shm, "bin", "dsh-markdown")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := Profile{Write: []string{dir}, Kept: []string{GlobQuote(prog)}}
	for _, attack := range []string{
		"echo evil > " + shm + "/new && mv -f " + shm + "/new " + prog,
		"echo evil > " + prog,
		"rm -f " + prog,
		"mv " + filepath.Dir(prog) + " " + shm + "/old",
	} {
		t.Run(attack, func(t *testing.T) {
			out, err := helperRun(t, p, dir, attack, true)
			if b, _ := os.ReadFile(prog); string(b) != "#!/bin/sh\n" {
				t.Errorf("the kept program changed: %q (err %v, output %q)", b, err, out)
			}
			if err == nil || !strings.Contains(out, "busy") && !strings.Contains(out, "Read-only") {
				t.Errorf("got err %v, output %q; want a refusal", err, out)
			}
		})
	}
}
