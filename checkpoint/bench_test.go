package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// benchWorkspace makes n small files, 100 to a folder, and, with git, a
// repository holding them all committed.
func benchWorkspace(b *testing.B, n int, git bool) string {
	dir := b.TempDir()
	line := []byte("package x // a small source file of the workspace\n")
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", i%100)), line, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if git {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "all"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	return dir
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkTurn measures what checkpoints add to a turn that changes ten
// 4 KiB files, on workspaces of 10k and 100k files, plain and git.
// "peer" is the ten writes alone; "edits" the same turn recorded (the
// pre-images taken, End); "command" the same after a command ran, where
// End hands the second walk to the background. The snapshot Begin takes
// in the background is waited for outside the timed part (in a real
// turn it runs while the model thinks), and so is the command's walk;
// "walk" is one such walk. Reported: the median per turn, and the bytes
// stored over the bytes the turn changed (first turn).
func BenchmarkTurn(b *testing.B) {
	for _, git := range []bool{false, true} {
		for _, n := range []int{10_000, 100_000} {
			kind := map[bool]string{false: "plain", true: "git"}[git]
			b.Run(fmt.Sprintf("%s/files=%dk", kind, n/1000), func(b *testing.B) {
				ws := benchWorkspace(b, n, git)
				for _, mode := range []string{"peer", "edits", "command", "walk"} {
					b.Run(mode, func(b *testing.B) { benchTurn(b, ws, mode) })
				}
			})
		}
	}
}

func benchTurn(b *testing.B, ws, mode string) {
	blobs := b.TempDir()
	st, _ := OpenStore(blobs)
	r := NewRecorder(st, []string{ws})
	var paths []string
	for i := range 10 {
		paths = append(paths, filepath.Join(ws, fmt.Sprintf("d%04d", i), "f000.go"))
	}
	content := make([]byte, 4096)
	var lat []time.Duration
	for iter := 0; b.Loop(); iter++ {
		if mode == "walk" {
			start := time.Now()
			Walk([]string{ws})
			lat = append(lat, time.Since(start))
			continue
		}
		rec := mode != "peer"
		if rec {
			b.StopTimer()
			r.Begin()
			r.mu.Lock()
			ready := r.cur.ready
			r.mu.Unlock()
			<-ready // in a real turn, taken while the model thinks
			b.StartTimer()
		}
		start := time.Now()
		for i, p := range paths {
			if rec {
				r.BeforeWrite(p)
			}
			content[0], content[1] = byte(iter), byte(i)
			os.WriteFile(p, content, 0o644)
		}
		if !rec {
			lat = append(lat, time.Since(start))
			continue
		}
		if mode == "command" {
			r.BeforeCommand()
		}
		var changes []Change
		var err error
		r.End(func(c []Change, e error) { changes, err = c, e })
		lat = append(lat, time.Since(start)) // what the turn waits for
		b.StopTimer()
		r.Wait() // the command's walk, in the background
		b.StartTimer()
		if err != nil || len(changes) != 10 {
			b.Fatalf("changes %d, err %v", len(changes), err)
		}
		if iter == 0 {
			b.ReportMetric(float64(dirBytes(blobs))/float64(10*len(content)), "stored/changed") // the files are 4 KiB each
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
}
