//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// helperRun runs script under bash through the helper (this test binary)
// with p, in dir, and returns its combined output; supervised, through
// the supervisor, which starts the helper as a process of its own.
func helperRun(t *testing.T, p Profile, dir, script string, supervised bool) (string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, err := Wrap(self, p, []string{"bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	attr := SysProcAttr(p)
	if supervised {
		argv, attr = Supervised(self, argv), SupervisorAttr(attr)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = attr
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestKept: through the helper (the path that execs), a kept hook cannot
// be written, while the rest of the workspace can; and the command runs
// as the caller's own user, with no capability left from the helper's
// mounts (the helper of a user who is not root raises one to mount).
func TestKept(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("this machine's kernel has no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	if !userNamespaces() {
		t.Fatal("no user namespaces here; platform-notes.md says they work on this machine kind")
	}
	for _, supervised := range []bool{false, true} {
		t.Run(map[bool]string{false: "helper", true: "supervisor"}[supervised], func(t *testing.T) {
			// A name with pattern characters: kept globs quote them.
			base, _ := filepath.EvalSymlinks(t.TempDir())
			dir, quoted := filepath.Join(base, "we[ir]d*"), filepath.Join(base, `we\[ir]d\*`)
			hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
			if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			p := Profile{Write: []string{dir}, Kept: []string{filepath.Join(quoted, ".git", "hooks"), filepath.Join(quoted, ".git", "config")}}
			out, err := helperRun(t, p, dir, "id -u; grep CapEff /proc/self/status; echo ok > made; echo evil >> .git/hooks/pre-commit", supervised)
			if err == nil || !strings.Contains(out, "Read-only file system") {
				t.Errorf("writing a kept hook: err %v, output %q", err, out)
			}
			if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\n" {
				t.Errorf("the hook changed: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "made")); string(b) != "ok\n" {
				t.Errorf("a write beside it failed: %q (output %q)", b, out)
			}
			lines := strings.Split(out, "\n")
			if lines[0] != strconv.Itoa(os.Getuid()) {
				t.Errorf("the command ran as uid %q, want the caller's %d", lines[0], os.Getuid())
			}
			if os.Getuid() != 0 && (len(lines) < 2 || !strings.HasSuffix(lines[1], "0000000000000000")) {
				t.Errorf("the command kept capabilities: %q", out)
			}
		})
	}
}

// TestKept_AsUser runs TestKept again as an ordinary user (nobody, with
// setpriv), for the helper that is not root: its mapping to itself, the
// capability raised for its mounts and dropped before the command.
func TestKept_AsUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: TestKept has just run as an ordinary user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatalf("setpriv (util-linux) is needed to run as another user: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy that nobody may run, and a temp folder nobody may write.
	base, err := os.MkdirTemp("", "dsh-kept-as-user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, d := range []string{base, filepath.Join(base, "tmp")} {
		os.MkdirAll(d, 0o755)
		os.Chmod(d, 0o777|os.ModeSticky)
	}
	bin := filepath.Join(base, "sandbox.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	proctest.WriteExec(t, bin, data)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--", bin, "-test.run", "^(TestKept|TestProbe_NoCapabilities)$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(base, "tmp"), "HOME="+base)
	cmd.Dir = base
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestKept") || !strings.Contains(string(out), "--- PASS: TestProbe_NoCapabilities") {
		t.Errorf("TestKept and TestProbe_NoCapabilities as nobody: %v\n%s", err, out)
	}
}

// TestSysProcAttr_Namespace: a namespace of its own (and its cost) only
// where there is something to mask or keep.
func TestSysProcAttr_Namespace(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git", "modules", "lib", "hooks"), 0o755)
	for _, tc := range []struct {
		name string
		p    Profile
		want bool
	}{
		{"nothing denied or kept", Profile{Write: []string{dir}}, false},
		{"a denied tree", Profile{Write: []string{dir}, Deny: []string{filepath.Join(dir, "secrets")}}, true},
		{"kept paths, none there", Profile{Write: []string{dir}, Kept: []string{filepath.Join(dir, ".envrc"), filepath.Join(dir, ".husky", "*")}}, false},
		{"a kept glob that matches", Profile{Write: []string{dir}, Kept: []string{filepath.Join(dir, ".envrc"), filepath.Join(dir, ".git", "modules", "*", "hooks")}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := SysProcAttr(tc.p)
			if got := a.Cloneflags&syscall.CLONE_NEWNS != 0; got != tc.want {
				t.Errorf("a mount namespace: %v, want %v", got, tc.want)
			}
			if !a.Setsid || a.Setpgid {
				t.Errorf("the helper must lead a session of its own (setpgid would fail in it)")
			}
		})
	}
}

// TestEnforced_Kept: the session's notice says what is kept.
func TestEnforced_Kept(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock")
	}
	got := Enforced(Profile{Write: []string{"/w"}, Kept: []string{"/w/.git/hooks"}})
	if !strings.Contains(got, "git hooks and config") || !strings.Contains(got, "read-only") {
		t.Errorf("%q", got)
	}
	if got := Enforced(Profile{Write: []string{"/w"}}); strings.Contains(got, "git hooks") {
		t.Errorf("nothing kept, yet: %q", got)
	}
}

func TestLiteral(t *testing.T) {
	for _, tc := range []struct {
		pattern, want string
		ok            bool
	}{
		{"/w/.git/hooks", "/w/.git/hooks", true},
		{`/w/we\[ir]d\*\?/.git`, "/w/we[ir]d*?/.git", true},
		{"/w/.git/modules/*/hooks", "", false},
		{"/w/[ab]/x", "", false},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			if got, ok := literal(tc.pattern); got != tc.want || ok != tc.ok {
				t.Errorf("literal(%q) = %q, %v; want %q, %v", tc.pattern, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestEnforced_Sockets: the notice says what the socket filter holds, and
// what the network setting opens.
func TestEnforced_Sockets(t *testing.T) {
	if ABI() < 4 {
		t.Fatal("Landlock ABI 4 or later is needed (platform-notes.md: ABI 7)")
	}
	if got := Enforced(Profile{Write: []string{"/w"}}); !strings.Contains(got, "no UDP") || !strings.Contains(got, "sockets") {
		t.Errorf("without the network: %q", got)
	}
	if got := Enforced(Profile{Write: []string{"/w"}, Network: true}); !strings.Contains(got, "the editor's, tmux's, D-Bus's") {
		t.Errorf("with the network: %q", got)
	}
}

// TestProbe_NoCapabilities: where a user namespace comes without the
// capabilities to mount in it (Ubuntu's AppArmor restriction), the probe
// says no, and the helper is then started without a namespace (nothing
// masked or kept, and the notice says so) instead of failing every
// command. Run as nobody through TestKept_AsUser: a helper that is not
// root has no capability in its namespace unless it is given one.
func TestProbe_NoCapabilities(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root keeps its capabilities in its namespace: TestKept_AsUser runs this as nobody")
	}
	self, _ := os.Executable()
	if probeNamespaces(self, nil) {
		t.Errorf("the probe passed without the capability to mount")
	}
	if !probeNamespaces(self, ambientCaps()) {
		t.Errorf("the probe failed with it")
	}
}

// TestKept_NoexecWorkspace: on a file system mounted noexec, nosuid,
// nodev, relatime (a /tmp or /home often is), the read-only bind keeps
// those flags, which the kernel locks in a namespace of lesser privilege;
// a remount that dropped one would fail, and with it every command. The
// inner run (DSH_TEST_NOEXEC) mounts such a tmpfs in a mount namespace
// of its own made by unshare.
func TestKept_NoexecWorkspace(t *testing.T) {
	if !innerMountRun(t, "DSH_TEST_NOEXEC") {
		return
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOEXEC|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOATIME, "size=1m"); err != nil {
		t.Fatal(err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	p := Profile{Write: []string{dir}, Kept: []string{filepath.Join(dir, ".git", "hooks")}}
	out, err := helperRun(t, p, dir, "echo ok > made; echo evil >> .git/hooks/pre-commit", false)
	if b, _ := os.ReadFile(filepath.Join(dir, "made")); string(b) != "ok\n" {
		t.Errorf("the command did not run: err %v, output %q", err, out)
	}
	if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\n" {
		t.Errorf("the hook changed: %q", b)
	}
}

// TestKept_SeenThroughAnotherMount: the workspace also visible at another
// path (a bind mount of its parent, as a home folder bound elsewhere is):
// Landlock's grant reaches it there, so the kept hook is kept there too.
// The inner run (DSH_TEST_ALIAS) makes the bind in a mount namespace of
// its own made by unshare.
func TestKept_SeenThroughAnotherMount(t *testing.T) {
	if !innerMountRun(t, "DSH_TEST_ALIAS") {
		return
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home, other := filepath.Join(base, "home"), filepath.Join(base, "other")
	ws := filepath.Join(home, "ws")
	hook := filepath.Join(ws, ".git", "hooks", "pre-commit")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	os.MkdirAll(other, 0o755)
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	if err := syscall.Mount(home, other, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	defer syscall.Unmount(other, syscall.MNT_DETACH)
	aliasHook := filepath.Join(other, "ws", ".git", "hooks", "pre-commit")
	p := Profile{Write: []string{ws}, Kept: []string{filepath.Join(ws, ".git", "hooks")}}
	for _, script := range []string{
		"echo evil >> " + aliasHook,
		"mv " + filepath.Join(other, "ws", ".git") + " " + filepath.Join(other, "ws", "g2") + " && mkdir -p " + filepath.Dir(aliasHook) + " && echo evil > " + aliasHook,
	} {
		out, err := helperRun(t, p, ws, script+"; echo ok > made", false)
		if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\n" {
			t.Errorf("%s: the hook changed through the other mount: %q (err %v, output %q)", script, b, err, out)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "made")); string(b) != "ok\n" {
			t.Errorf("%s: the command did not run: %v %q", script, err, out)
		}
	}
}

func TestMountTable_Aliases(t *testing.T) {
	table := mountTable{
		{dev: "8:1", root: "/", mountpoint: "/"},
		{dev: "8:2", root: "/", mountpoint: "/export"},
		{dev: "8:2", root: "/home", mountpoint: "/home"},
		{dev: "8:2", root: "/home/u", mountpoint: "/srv/u"},
		{dev: "8:2", root: "/other", mountpoint: "/mnt/other"},
		{dev: "0:5", root: "/", mountpoint: "/export/home/u/ws/.git"}, // covers the path there
		{dev: "8:3", root: "/home", mountpoint: "/mnt/unrelated"},
	}
	got := table.aliases("/home/u/ws/.git/hooks")
	want := []alias{{path: "/srv/u/ws/.git/hooks", mountpoint: "/srv/u"}}
	if len(got) != len(want) || got[0] != want[0] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := unescapeMount(`/a\040b\011c`); got != "/a b\tc" {
		t.Errorf("unescape: %q", got)
	}
}

// innerMountRun runs the calling test again in a mount namespace of its
// own (unshare, as root), with env set, and reports false; in that inner
// run it reports true: the test may then mount without touching the
// host's mounts.
func innerMountRun(t *testing.T, env string) bool {
	t.Helper()
	if os.Getenv(env) != "" {
		return true
	}
	if os.Getuid() != 0 {
		t.Skip("mounting needs root (CI runs as root)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare (util-linux) is needed: %v", err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", self, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Errorf("the inner run: %v\n%s", err, out)
	}
	return false
}
