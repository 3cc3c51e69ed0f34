package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	Main(Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	os.Exit(m.Run())
}

// BenchmarkStart compares starting `bash -c true` plainly and through the
// sandbox helper (this test binary), with and without a denied tree (which
// adds the user and mount namespace), interleaved in one run.
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
