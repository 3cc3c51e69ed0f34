package main

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"
	"io/fs"
	"strings"
)

// target is one platform of the release.
type target struct{ goos, goarch string }

// all are the six targets the ACP Registry takes.
var all = []target{
	{"darwin", "arm64"}, {"darwin", "amd64"},
	{"linux", "arm64"}, {"linux", "amd64"},
	{"windows", "arm64"}, {"windows", "amd64"},
}

func (t target) String() string { return t.goos + "/" + t.goarch }

// platform is the registry's name of t (agent.schema.json's binary keys).
func (t target) platform() string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[t.goarch]
	return t.goos + "-" + arch
}

// vscode is VS Code's name of t (vsce package --target).
func (t target) vscode() string {
	os := map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}[t.goos]
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[t.goarch]
	return os + "-" + arch
}

func (t target) exe(name string) string {
	if t.goos == "windows" {
		return name + ".exe"
	}
	return name
}

// archiveName is the release archive of t.
func (t target) archiveName(version string) string {
	ext := ".tar.gz"
	if t.goos == "windows" {
		ext = ".zip"
	}
	return "dsh-bridge-" + version + "-" + t.platform() + ext
}

// parseTargets reads a comma-separated list of goos/goarch; "" is all.
func parseTargets(s string) ([]target, error) {
	if s == "" {
		return all, nil
	}
	var out []target
	for _, f := range strings.Split(s, ",") {
		goos, goarch, _ := strings.Cut(strings.TrimSpace(f), "/")
		t := target{goos, goarch}
		known := false
		for _, a := range all {
			known = known || a == t
		}
		if !known {
			return nil, fmt.Errorf("unknown target %q (the registry's: darwin, linux, windows on amd64, arm64)", f)
		}
		out = append(out, t)
	}
	return out, nil
}

// programs are the binaries of a release, the bridge first.
var programs = []string{"dsh-bridge", "dsh-highlight", "dsh-code", "dsh-markdown"}

// checkHeader reports whether b is an executable for t, by its file
// header: ELF on Linux, Mach-O on macOS, PE on Windows, for t's CPU.
func checkHeader(t target, b []byte) error {
	r := bytes.NewReader(b)
	switch t.goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return fmt.Errorf("not an ELF file: %w", err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[t.goarch]
		if f.Machine != want || f.Type != elf.ET_EXEC {
			return fmt.Errorf("ELF %v %v, want an executable for %v", f.Type, f.Machine, want)
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a Mach-O file: %w", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[t.goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			return fmt.Errorf("Mach-O %v %v, want an executable for %v", f.Type, f.Cpu, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a PE file: %w", err)
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[t.goarch]
		if f.Machine != want || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			return fmt.Errorf("PE machine %#x, want an executable for %#x", f.Machine, want)
		}
	default:
		return fmt.Errorf("no header check for %s", t.goos)
	}
	return nil
}

// fileMode is an entry's mode as a zip header takes it.
func fileMode(m int64) fs.FileMode { return fs.FileMode(m) & fs.ModePerm }
