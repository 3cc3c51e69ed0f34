package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestStartup_StaticBuilds keeps the binaries static wherever this
// repository builds them or tells people how: a build that links libc
// through cgo starts about 4 ms later (BENCHMARKS.md), in every editor
// session, every supervised command and every converted page.
//   - Every go build the Makefile's build, vsix and test-nvim targets run
//     (as make -n prints them, whatever the recipe's spelling) sets
//     CGO_ENABLED=0.
//   - Every line of the docs that builds or installs dsh-bridge says so.
//   - The binary this package's tests run has no ELF interpreter.
func TestStartup_StaticBuilds(t *testing.T) {
	out, err := exec.Command("make", "-n", "-C", "../..", "build", "vsix", "test-nvim").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n: %v\n%s", err, out)
	}
	builds := 0
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, "go build") && !strings.Contains(line, "go install") {
			continue
		}
		builds++
		if !strings.Contains(line, "CGO_ENABLED=0") {
			t.Errorf("make builds without CGO_ENABLED=0: %s", line)
		}
	}
	if builds < 3 {
		t.Fatalf("make -n printed %d builds:\n%s", builds, out)
	}
	docs := []string{"../../README.md", "../../editors/nvim/README.md", "../../editors/nvim/doc/dsh.txt", "../../editors/nvim/lua/dsh/health.lua"}
	seen := 0
	for _, f := range docs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if strings.HasSuffix(line, "go install") && i+1 < len(lines) {
				line += " " + lines[i+1] // the command goes on on the next line
			}
			if !strings.Contains(line, "dsh-bridge") || !strings.Contains(line, "go build") && !strings.Contains(line, "go install") {
				continue
			}
			seen++
			if !strings.Contains(line, "CGO_ENABLED=0") {
				t.Errorf("%s:%d builds dsh-bridge without CGO_ENABLED=0: %s", filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
	}
	if seen < 5 {
		t.Fatalf("found only %d build or install lines in %v", seen, docs)
	}
	f, err := elf.Open(buildBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary the tests run has an ELF interpreter: it is linked dynamically")
		}
	}
}

func TestVersionText(t *testing.T) {
	first := "dsh-bridge " + version + " (ACP v1)\n"
	for _, tc := range []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"static", []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}}, first},
		{"no build information", nil, first},
		{"cgo", []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "CGO_ENABLED", Value: "1"}}, first + "built with cgo, which starts about 4 ms later than a static build: rebuild with CGO_ENABLED=0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.settings); got != tc.want {
				t.Errorf("versionText = %q, want %q", got, tc.want)
			}
		})
	}
}
