package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	Main()
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
