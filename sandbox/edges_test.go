//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperRunAttr runs script under bash through the helper (this test
// binary) with p, in dir, started with attr, and returns its combined
// output.
func helperRunAttr(t *testing.T, p Profile, attr *syscall.SysProcAttr, dir, script string) (string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, err := Wrap(self, p, []string{"bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = attr
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestHelper_DeniedTreesWithoutNamespace: where the helper gets no user
// namespace (none to be had), Landlock alone keeps denied trees, in the
// workspace and outside it, unreadable, and leaves readable what lies
// beside them, a sibling whose name merely starts the same included. The
// same holds with the namespace, where the trees are masked.
func TestHelper_DeniedTreesWithoutNamespace(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, private := filepath.Join(base, "ws"), filepath.Join(base, "private")
	for path, text := range map[string]string{
		filepath.Join(ws, "secrets", "key"):     "TOPSECRET-in",
		filepath.Join(ws, "secrets-old", "key"): "old",
		filepath.Join(ws, "secrets.txt"):        "txt",
		filepath.Join(ws, "plain"):              "plain",
		filepath.Join(private, "key"):           "TOPSECRET-out",
		filepath.Join(base, "private-not", "k"): "beside",
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Links beside the denied trees that lead into them: carving must not
	// grant a link's target (a rule on a path is a rule on what it
	// resolves to).
	for link, target := range map[string]string{
		filepath.Join(ws, "key-link"):       filepath.Join(ws, "secrets", "key"),
		filepath.Join(ws, "secrets-link"):   filepath.Join(ws, "secrets"),
		filepath.Join(base, "private-link"): private,
		filepath.Join(base, "outside-link"): filepath.Join(private, "key"),
		filepath.Join(ws, "plain-link"):     filepath.Join(ws, "plain"),
		filepath.Join(ws, "dangling-link"):  filepath.Join(ws, "secrets-old", "made"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	p := Profile{Write: []string{ws}, Deny: []string{filepath.Join(ws, "secrets"), private}}
	if a := sysProcAttr(p, false); a.Cloneflags != 0 || !a.Setsid {
		t.Fatalf("without namespaces: clone flags %#x, setsid %v; want none, true", a.Cloneflags, a.Setsid)
	}
	modes := []struct {
		name      string
		namespace bool
	}{{"landlock only", false}}
	if userNamespaces() {
		modes = append(modes, struct {
			name      string
			namespace bool
		}{"namespace", true})
	}
	// Listing a denied tree shows nothing where it is masked; with Landlock
	// alone its names stay listable (the right to list "/" covers every
	// folder below it), its files' contents do not.
	if userNamespaces() {
		if out, err := helperRunAttr(t, p, sysProcAttr(p, true), ws, "ls -A secrets; ls -A "+private); out != "" {
			t.Errorf("listing the masked trees: got err %v, output %q, want nothing", err, out)
		}
	}
	for _, m := range modes {
		for _, tc := range []struct {
			name, script, want string // want "" means the command fails
		}{
			{"a file in a denied tree", "cat secrets/key", ""},
			{"a denied tree outside the workspace", "cat " + filepath.Join(private, "key"), ""},
			{"a sibling that starts the same", "cat secrets-old/key", "old"},
			{"a file named like the tree", "cat secrets.txt", "txt"},
			{"the rest of the workspace", "cat plain", "plain"},
			{"beside the tree outside", "cat " + filepath.Join(base, "private-not", "k"), "beside"},
			{"a write beside the tree", "echo -n w > secrets-old/new && cat secrets-old/new", "w"},
			{"a link to a file in a denied tree", "cat key-link", ""},
			{"a link to a denied tree", "cat secrets-link/key", ""},
			{"a link to the denied tree outside", "cat " + filepath.Join(base, "private-link", "key"), ""},
			{"a link outside to a file in the tree outside", "cat " + filepath.Join(base, "outside-link"), ""},
			{"a link to a readable file", "cat plain-link", "plain"},
			{"a write through a dangling link", "echo -n d > dangling-link && cat secrets-old/made", "d"},
		} {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				out, err := helperRunAttr(t, p, sysProcAttr(p, m.namespace), ws, tc.script)
				switch {
				case tc.want == "" && strings.Contains(out, "TOPSECRET"):
					t.Errorf("got err %v, output %q; want nothing of the tree", err, out)
				case tc.want == "" && (err == nil || strings.Contains(out, "TOPSECRET")):
					t.Errorf("got err %v, output %q; want a failure", err, out)
				case tc.want != "" && (err != nil || out != tc.want):
					t.Errorf("got err %v, output %q; want %q", err, out, tc.want)
				}
			})
		}
	}
}

// TestHelper_DeniedWhenMaskingFails: in the helper's namespace, a denied
// path it cannot mask (a dangling symlink: the mount follows it to
// nothing) leaves the trees after it unmasked; Landlock's carving must
// then still keep them unreadable, and the rest of the command's world
// must work.
func TestHelper_DeniedWhenMaskingFails(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	if !userNamespaces() {
		t.Fatal("no user namespaces here; platform-notes.md says they work on this machine kind")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "secrets"), 0o755)
	os.WriteFile(filepath.Join(ws, "secrets", "key"), []byte("TOPSECRET"), 0o644)
	os.WriteFile(filepath.Join(ws, "plain"), []byte("plain"), 0o644)
	gone := filepath.Join(base, "gone")
	if err := os.Symlink(filepath.Join(base, "nowhere"), gone); err != nil {
		t.Fatal(err)
	}
	p := Profile{Write: []string{ws}, Deny: []string{gone, filepath.Join(ws, "secrets")}}
	// Landlock alone leaves a denied tree's names listable; a masked tree
	// lists nothing.
	if out, err := helperRunAttr(t, p, sysProcAttr(p, true), ws, "ls secrets"); err != nil || out != "key\n" {
		t.Fatalf("listing the tree: err %v, output %q; want it unmasked (the masking failed), its names listable", err, out)
	}
	for _, tc := range []struct{ name, script, want string }{
		{"the denied tree after it", "cat secrets/key", ""},
		{"the rest of the workspace", "cat plain", "plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := helperRunAttr(t, p, sysProcAttr(p, true), ws, tc.script)
			switch {
			case tc.want == "" && (err == nil || strings.Contains(out, "TOPSECRET")):
				t.Errorf("got err %v, output %q; want a failure", err, out)
			case tc.want != "" && (err != nil || out != tc.want):
				t.Errorf("got err %v, output %q; want %q", err, out, tc.want)
			}
		})
	}
}

// TestHelper_NetworkKeepsScoping: a profile that allows the network lets
// the command connect, but Landlock's scoping still holds: no abstract
// UNIX socket of a process outside the sandbox (the socket filter lets
// connect through then), and no signal to a process outside it (the
// bridge, or the supervisor).
func TestHelper_NetworkKeepsScoping(t *testing.T) {
	if ABI() < 6 {
		t.Fatal("Landlock ABI 6 or later is needed for scoping (platform-notes.md: ABI 7)")
	}
	self, _ := os.Executable()
	name := "@dsh-scope-test-" + strconv.Itoa(os.Getpid())
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 16)
			n, _ := c.Read(b)
			got <- string(b[:n])
			c.Close()
		}
	}()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	p := Profile{Write: []string{ws}, Network: true}
	for _, supervised := range []bool{false, true} {
		t.Run(fmt.Sprintf("supervised=%v", supervised), func(t *testing.T) {
			out, err := helperRun(t, p, ws, "DSH_TEST_PROBE=dial:"+name+" "+self, supervised)
			if err == nil || !strings.Contains(out, "operation not permitted") {
				t.Errorf("an abstract socket outside: err %v, output %q; want refused", err, out)
			}
			// $PPID: the supervisor, or (unsupervised) this test.
			for _, target := range []string{"$PPID", strconv.Itoa(os.Getpid())} {
				out, err = helperRun(t, p, ws, "kill -WINCH "+target+"; echo rc=$?", supervised)
				if err != nil || !strings.Contains(out, "rc=1") || !strings.Contains(out, "not permitted") {
					t.Errorf("a signal to %s: err %v, output %q; want refused", target, err, out)
				}
			}
		})
	}
	select {
	case s := <-got:
		t.Errorf("a sandboxed command reached the abstract socket: %q", s)
	case s := <-sigs:
		t.Errorf("a sandboxed command signalled this process: %v", s)
	case <-time.After(50 * time.Millisecond):
	}
	// The same probe outside the sandbox connects: the test can tell.
	probe := exec.Command(self)
	probe.Env = append(os.Environ(), "DSH_TEST_PROBE=dial:"+name)
	if out, err := probe.CombinedOutput(); err != nil || !strings.Contains(string(out), "connected") {
		t.Fatalf("the probe cannot connect even unsandboxed: %v %q", err, out)
	}
	if s := <-got; s != "escaped" {
		t.Errorf("got %q", s)
	}
}

// TestKept_Symlinks: a symlink at a kept path, dangling or not, or in
// place of a folder on the way to one, is left alone: commands still run,
// and its target (here a writable folder or file of the workspace) does
// not become read-only because a link to it sits where a kept path is.
func TestKept_Symlinks(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock")
	}
	if !userNamespaces() {
		t.Fatal("no user namespaces here; platform-notes.md says they work on this machine kind")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"tools", "realgit/hooks", "sub/.git"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "env.sh"), []byte("x\n"), 0o644)
	for link, target := range map[string]string{
		".envrc":          filepath.Join(dir, "nowhere"), // dangling
		".dsh":            filepath.Join(dir, "env.sh"),  // a file
		".git":            filepath.Join(dir, "realgit"), // a folder on the way
		"sub/.git/hooks":  filepath.Join(dir, "tools"),   // a folder
		"sub/.git/config": filepath.Join(dir, "gone"),    // dangling, below a real folder
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	var kept []string
	for _, k := range []string{".envrc", ".dsh", ".git/hooks", ".git/config", "sub/.git/hooks", "sub/.git/config"} {
		kept = append(kept, filepath.Join(dir, k))
	}
	p := Profile{Write: []string{dir}, Kept: kept}
	if !needsNamespace(p) {
		t.Fatal("the links are kept paths that exist: the helper should get its namespace")
	}
	for _, tc := range []struct{ name, script, file, want string }{
		{"a command runs", "echo ok > made", "made", "ok\n"},
		{"a linked folder's target", "echo t > tools/new", "tools/new", "t\n"},
		{"a linked file's target", "echo y >> env.sh", "env.sh", "x\ny\n"},
		{"below a linked folder on the way", "echo h > realgit/hooks/pre-commit", "realgit/hooks/pre-commit", "h\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := helperRun(t, p, dir, tc.script, false)
			if b, _ := os.ReadFile(filepath.Join(dir, tc.file)); err != nil || string(b) != tc.want {
				t.Errorf("got %q (err %v, output %q), want %q", b, err, out, tc.want)
			}
		})
	}
}

// TestSysProcAttr_NamespacesRefused: where the namespace probe says no
// (here the probe's own mark in the environment, which makes
// userNamespaces answer false without probing), SysProcAttr starts the
// helper without a namespace even for a profile that wants one, the
// helper then keeps the denied tree with Landlock alone, and the notice
// says that kept paths are not kept. The check runs in a second run of
// this test binary, whose answer is its own.
func TestSysProcAttr_NamespacesRefused(t *testing.T) {
	if os.Getenv(probeEnv) == "" {
		self, _ := os.Executable()
		cmd := exec.Command(self, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), probeEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
			t.Errorf("with namespaces refused: %v\n%s", err, out)
		}
		return
	}
	if ABI() == 0 {
		t.Fatal("no Landlock")
	}
	if userNamespaces() {
		t.Fatal("the probe's mark did not refuse namespaces")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "secrets"), 0o755)
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, "secrets", "key"), []byte("TOPSECRET"), 0o644)
	os.WriteFile(filepath.Join(ws, "plain"), []byte("plain"), 0o644)
	p := Profile{Write: []string{ws}, Deny: []string{filepath.Join(ws, "secrets")}, Kept: []string{filepath.Join(ws, ".git", "hooks")}}
	if a := SysProcAttr(p); a.Cloneflags != 0 || len(a.UidMappings) != 0 || len(a.AmbientCaps) != 0 {
		t.Errorf("got clone flags %#x, mappings %v, caps %v; want none", a.Cloneflags, a.UidMappings, a.AmbientCaps)
	}
	if out, err := helperRun(t, p, ws, "cat secrets/key", false); err == nil || strings.Contains(out, "TOPSECRET") {
		t.Errorf("the denied tree: err %v, output %q; want refused", err, out)
	}
	if out, err := helperRun(t, p, ws, "cat plain; echo ok > made", false); err != nil || out != "plain" {
		t.Errorf("the rest: err %v, output %q; want %q", err, out, "plain")
	}
	if got := Enforced(p); !strings.Contains(got, "NOT kept read-only") {
		t.Errorf("the notice: %q", got)
	}
}
