package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMutationsApply checks, without running any, that every mutation of
// the list still applies: its text occurs exactly once in its file, the
// mutation changes it, and it names the tests to run. Code moves under a
// mutation whose text then no longer matches; the full run (an hour) would
// only report it then, as a survivor. Both lists are checked: the
// authors' and the independent one.
func TestMutationsApply(t *testing.T) {
	for _, list := range []string{"mutations.json", "independent.json"} {
		t.Run(list, func(t *testing.T) { testListApplies(t, list) })
	}
}

func testListApplies(t *testing.T, list string) {
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	var muts []mutation
	if err := json.Unmarshal(data, &muts); err != nil {
		t.Fatal(err)
	}
	// A merge can join two entries into one object; encoding/json keeps
	// the last of each repeated key, and the first mutation is lost.
	if names := bytes.Count(data, []byte(`"name":`)); names != len(muts) {
		t.Fatalf("%d entries but %d names: two entries were merged into one", len(muts), names)
	}
	if len(muts) == 0 {
		t.Fatal("no mutations")
	}
	names := map[string]bool{}
	for _, m := range muts {
		t.Run(m.Name, func(t *testing.T) {
			if names[m.Name] {
				t.Errorf("a second mutation named %q", m.Name)
			}
			names[m.Name] = true
			src, err := os.ReadFile(filepath.Join("..", "..", "..", m.File))
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(src, []byte(m.Old)); n != 1 {
				t.Errorf("its text occurs %d times in %s, want 1: %q", n, m.File, m.Old)
			}
			if m.Old == m.New || m.Old == "" {
				t.Errorf("it changes nothing: %q → %q", m.Old, m.New)
			}
			switch {
			case m.Make != "":
			case strings.HasPrefix(m.Pkg, "./"):
				if _, err := os.Stat(filepath.Join("..", "..", "..", m.Pkg)); err != nil {
					t.Errorf("package %s: %v", m.Pkg, err)
				}
			default:
				t.Errorf("neither a package (./...) nor a make target: %q", m.Pkg)
			}
			if m.Run != "" && m.Make == "" {
				if err := runSelectsATest(filepath.Join("..", "..", "..", m.Pkg), m.Run); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// testFunc names a test, benchmark, fuzz target or example.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)

// runSelectsATest reports an error unless the first level of the -run
// pattern (before its first slash) matches a test function of the package
// in dir: a pattern that selects nothing runs no test, and its mutation
// could only survive.
func runSelectsATest(dir, run string) error {
	first, _, _ := strings.Cut(run, "/")
	re, err := regexp.Compile(first)
	if err != nil {
		return fmt.Errorf("-run %q: %v", run, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return err
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			if re.Match(m[1]) {
				return nil
			}
		}
	}
	return fmt.Errorf("-run %q selects no test in %s", run, dir)
}
