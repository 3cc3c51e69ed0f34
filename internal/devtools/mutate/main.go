// Command mutate plants each mutation of mutations.json, one at a time, in
// a copy of the module, runs the tests of the package it touches, and
// reports the mutations no test caught. The working tree is never
// touched. `make mutate` runs it; it exits 1 when a mutation survives or
// no longer applies.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// mutation is one planted bug: old, which must occur exactly once in
// file, becomes new; the tests matching run in pkg must then fail (or,
// for code that is not Go, the make target named by make).
type mutation struct {
	Name string `json:"name"`
	File string `json:"file"`
	Old  string `json:"old"`
	New  string `json:"new"`
	Pkg  string `json:"pkg"`
	Run  string `json:"run"`
	Make string `json:"make"`
	// Race runs the tests with the race detector (make test always
	// does): for a mutation that only a data race shows.
	Race bool `json:"race,omitempty"`
}

func main() {
	list := flag.String("list", "internal/devtools/mutate/mutations.json", "the mutations")
	only := flag.String("only", "", "run only mutations whose name contains this")
	timeout := flag.Duration("timeout", 10*time.Minute, "per mutation")
	flag.Parse()
	data, err := os.ReadFile(*list)
	if err != nil {
		fail(err)
	}
	var muts []mutation
	if err := json.Unmarshal(data, &muts); err != nil {
		fail(fmt.Errorf("%s: %w", *list, err))
	}
	dir, err := copyModule()
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	caught, planted := 0, 0
	var survived []string
	for _, m := range muts {
		if *only != "" && !strings.Contains(m.Name, *only) {
			continue
		}
		planted++
		ok, stale, detail := plant(dir, m, *timeout)
		status := "caught"
		switch {
		case ok:
			caught++
		case stale:
			status = "STALE" // the code moved: the mutation must be re-aimed
			survived = append(survived, m.Name+": "+detail)
		default:
			status = "SURVIVED"
			survived = append(survived, m.Name+": "+detail)
		}
		fmt.Fprintf(os.Stderr, "%-8s %s (%s %s)\n", status, m.Name, m.Pkg+m.Make, m.File)
	}
	fmt.Fprintf(os.Stderr, "\n%d of %d mutations caught\n", caught, planted)
	if len(survived) > 0 {
		fmt.Fprintln(os.Stderr, "survivors:\n  "+strings.Join(survived, "\n  "))
		os.Exit(1)
	}
}

// plant applies m in dir, runs the tests, and restores the file. It
// reports whether the tests failed (the mutation was caught), or else
// whether m no longer applies (stale: its file or text is gone).
func plant(dir string, m mutation, timeout time.Duration) (caught, stale bool, detail string) {
	path := filepath.Join(dir, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return false, true, err.Error()
	}
	if n := bytes.Count(orig, []byte(m.Old)); n != 1 {
		return false, true, fmt.Sprintf("the text to mutate occurs %d times in %s (want 1)", n, m.File)
	}
	if err := os.WriteFile(path, bytes.Replace(orig, []byte(m.Old), []byte(m.New), 1), 0o644); err != nil {
		return false, false, err.Error()
	}
	defer os.WriteFile(path, orig, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"test", "-count=1", m.Pkg}
	if m.Race {
		args = append(args, "-race")
	}
	if m.Run != "" {
		args = append(args, "-run", m.Run)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	if m.Make != "" {
		cmd = exec.CommandContext(ctx, "make", "-s", m.Make, "NVIM_TEST_DIR="+filepath.Join(dir, ".mutate-bin"))
	}
	cmd.Dir = dir
	// A timed-out mutation's test binary (a child of go) is killed too: a
	// hung one left running would skew every later run.
	ownGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil:
		return true, false, "timed out (counted as caught: a hang is a failure)"
	case err == nil:
		return false, false, "the tests passed"
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("vet:")):
		return false, false, "the mutation does not compile:\n" + string(out)
	case bytes.Contains(out, []byte("[setup failed]")):
		// A broken module or build cache fails every package alike: that
		// says nothing of the mutation.
		return false, false, "the tests could not be set up:\n" + string(out)
	}
	return true, false, ""
}

// copyModule copies the tracked and untracked (not ignored) files of the
// module into a temporary folder.
func copyModule() (string, error) {
	out, err := exec.Command("git", "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("listing the module's files: %w", err)
	}
	dir, err := os.MkdirTemp("", "dsh-mutate-")
	if err != nil {
		return "", err
	}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // deleted in the work tree
		}
		info, _ := os.Stat(f)
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}
