//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	Main(Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	if probe := os.Getenv("DSH_TEST_PROBE"); probe != "" {
		runProbe(probe) // a probe run inside the sandbox: never returns
	}
	os.Exit(m.Run())
}

// BenchmarkStart compares starting `bash -c true` plainly and through the
// sandbox helper (this test binary), with and without a denied tree or
// kept paths (which add the user and mount namespace, and the mounts).
func BenchmarkStart(b *testing.B) {
	if ABI() == 0 {
		b.Skip("no Landlock")
	}
	self, _ := os.Executable()
	dir := b.TempDir()
	os.Mkdir(dir+"/secrets", 0o700)
	run := func(b *testing.B, p *Profile) {
		for b.Loop() {
			argv := []string{"bash", "-c", "true"}
			var cmd *exec.Cmd
			if p != nil {
				argv, _ = Wrap(self, *p, argv)
				cmd = exec.Command(argv[0], argv[1:]...)
				cmd.SysProcAttr = SysProcAttr(*p)
			} else {
				cmd = exec.Command(argv[0], argv[1:]...)
			}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("plain", func(b *testing.B) { run(b, nil) })
	b.Run("sandboxed", func(b *testing.B) { run(b, &Profile{Write: []string{dir}}) })
	b.Run("sandboxed+deny", func(b *testing.B) { run(b, &Profile{Write: []string{dir}, Deny: []string{dir + "/secrets"}}) })
	// A git repository with the paths a session keeps (permission.Kept's
	// list for one root): three exist, the rest are looked for.
	for _, d := range []string{"/.git/hooks", "/.git/info", "/.vscode"} {
		os.MkdirAll(dir+d, 0o755)
	}
	os.WriteFile(dir+"/.git/config", nil, 0o644)
	var kept []string
	for _, k := range []string{".git/hooks", ".git/config", ".git/info", ".git/modules/*/hooks", ".git/modules/*/config", ".git/modules/*/info",
		".dsh", ".envrc", ".husky", ".githooks", ".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
		".devcontainer/devcontainer.json", ".config/mise", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".pnpmfile.mjs",
		".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "mise.toml", ".mise.toml", ".devcontainer.json"} {
		kept = append(kept, dir+"/"+k)
	}
	b.Run("sandboxed+kept", func(b *testing.B) { run(b, &Profile{Write: []string{dir}, Kept: kept}) })
	// The same list where none of it exists: no namespace is made.
	bare := b.TempDir()
	var none []string
	for _, k := range kept {
		none = append(none, bare+strings.TrimPrefix(k, dir))
	}
	b.Run("sandboxed+kept-none-there", func(b *testing.B) { run(b, &Profile{Write: []string{bare}, Kept: none}) })
	// The network allowed: the socket places of this machine, and one
	// runtime folder made to be sure there is something to hide.
	runtimeDir := b.TempDir()
	hidden := append(SocketPlaces(os.Environ(), os.Getuid(), "root"), runtimeDir)
	b.Run("network", func(b *testing.B) { run(b, &Profile{Write: []string{bare}, Network: true}) })
	b.Run("network+hidden", func(b *testing.B) { run(b, &Profile{Write: []string{bare}, Network: true, Hidden: hidden}) })
}

// TestHide_NeverInTheHostNamespace: the masking mounts only in a mount
// namespace of the helper's own; in this test process (the same namespace
// as its parent) it refuses and mounts nothing — run as root, a missing
// check would cover the host's files.
func TestHide_NeverInTheHostNamespace(t *testing.T) {
	dir := t.TempDir()
	secret := dir + "/secret.txt"
	if err := os.WriteFile(secret, []byte("still here"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := hide([]string{dir}, mountNamespace())
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err == nil {
		t.Fatalf("hide mounted over %s in the namespace it shares with its parent", dir)
	}
	if b, _ := os.ReadFile(secret); string(b) != "still here" {
		t.Errorf("the host's file is hidden: %q", b)
	}
}
