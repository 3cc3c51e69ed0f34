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
// session, every supervised command and every converted page. Each line
// that builds or installs ./cmd/dsh-bridge must set CGO_ENABLED=0, and a
// binary built that way must have no ELF interpreter.
func TestStartup_StaticBuilds(t *testing.T) {
	files := []string{"../../Makefile", "../../README.md", "../../editors/nvim/README.md", "../../editors/nvim/doc/dsh.txt", "../../editors/nvim/lua/dsh/health.lua"}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if strings.HasSuffix(line, "go install") && i+1 < len(lines) {
				line += " " + lines[i+1] // the command goes on on the next line
			}
			if !strings.Contains(line, "dsh-bridge") || !(strings.Contains(line, " build ") && strings.Contains(line, " -o ") || strings.Contains(line, "go install")) {
				continue
			}
			seen++
			if !strings.Contains(line, "CGO_ENABLED=0") {
				t.Errorf("%s:%d builds dsh-bridge without CGO_ENABLED=0: %s", filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
	}
	if seen < 8 {
		t.Fatalf("found only %d build or install lines in %v", seen, files)
	}
	bin := filepath.Join(t.TempDir(), "dsh-bridge")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the static build has an ELF interpreter: it is linked dynamically")
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
