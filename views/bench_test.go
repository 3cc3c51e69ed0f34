package views

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bigPair returns a 20,000-line file and a copy with 50 scattered edits.
func bigPair() (string, string) {
	var a, b strings.Builder
	for i := range 20000 {
		line := fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog %d\n", i, i*7%13)
		a.WriteString(line)
		if i%400 == 17 {
			b.WriteString("edited " + line)
		} else {
			b.WriteString(line)
		}
	}
	return a.String(), b.String()
}

// BenchmarkHunks20k compares Change (hunks and LSP edits) with GNU diff -u
// on the same two files; the diff side includes starting the process, which
// is what a Go program calling diff would pay.
func BenchmarkHunks20k(b *testing.B) {
	old, new := bigPair()
	b.Run("dsh", func(b *testing.B) {
		b.SetBytes(int64(len(old) + len(new)))
		b.ReportAllocs()
		for b.Loop() {
			if fc := Change("/f", old, new); len(fc.Hunks) != 50 {
				b.Fatalf("%d hunks", len(fc.Hunks))
			}
		}
	})
	b.Run("gnu-diff", func(b *testing.B) {
		if _, err := exec.LookPath("diff"); err != nil {
			b.Skip("diff not installed")
		}
		dir := b.TempDir()
		pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if os.WriteFile(pa, []byte(old), 0o644) != nil || os.WriteFile(pb, []byte(new), 0o644) != nil {
			b.Fatal("write")
		}
		b.SetBytes(int64(len(old) + len(new)))
		for b.Loop() {
			out, err := exec.Command("diff", "-u", pa, pb).Output()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
				b.Fatal(err)
			}
			if strings.Count(string(out), "\n@@") != 50 {
				b.Fatal("unexpected diff output")
			}
		}
	})
}
