package safepath

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestLookPath: a program is not taken from a relative $PATH entry, the
// temp folder, a distrusted folder or through a symlink into one; the
// next entry's is.
func TestLookPath(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	tmp := filepath.Join(base, "tmp")
	ws := filepath.Join(base, "ws")
	safe := filepath.Join(base, "usr", "bin")
	link := filepath.Join(base, "links")
	for _, d := range []string{tmp, filepath.Join(ws, ".venv", "bin"), safe, link} {
		os.MkdirAll(d, 0o755)
	}
	prog := func(dir string) string {
		p := filepath.Join(dir, "tool")
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		return p
	}
	want := prog(safe)
	planted := prog(filepath.Join(ws, ".venv", "bin"))
	prog(tmp)
	os.Symlink(planted, filepath.Join(link, "tool"))
	os.Symlink(filepath.Join(ws, ".venv", "bin"), filepath.Join(base, "venvlink"))
	t.Setenv("TMPDIR", tmp)
	Distrust(ws)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"a workspace's .venv/bin first", filepath.Join(ws, ".venv", "bin") + ":" + safe, want},
		{"the temp folder first", tmp + ":" + safe, want},
		{"a relative entry", "ws/.venv/bin:.:" + safe, want},
		{"a symlink into the workspace", link + ":" + safe, want},
		{"a folder that is a symlink into the workspace", filepath.Join(base, "venvlink") + ":" + safe, want},
		{"only planted ones", filepath.Join(ws, ".venv", "bin") + ":" + tmp, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			t.Chdir(base)
			got, err := LookPath("tool")
			if got != tc.want || (tc.want == "") != (err != nil) {
				t.Errorf("LookPath = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if got, _ := LookPath("./x/tool"); got != "./x/tool" {
		t.Errorf("a path: %q", got)
	}
}

// TestWritable: $PATH's folders in a root or the temp folder, symlinks
// resolved, and relative ones are the ones commands may write; "/" as a
// root does not make every folder one.
func TestWritable(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, tmp := filepath.Join(base, "ws"), filepath.Join(base, "tmp")
	os.MkdirAll(filepath.Join(ws, ".venv", "bin"), 0o755)
	os.MkdirAll(filepath.Join(tmp, "bin"), 0o755)
	os.Symlink(filepath.Join(ws, ".venv", "bin"), filepath.Join(base, "venv"))
	t.Setenv("TMPDIR", tmp)
	venv := filepath.Join(ws, ".venv", "bin")
	for _, tc := range []struct {
		name  string
		roots []string
		path  string
		want  []string
	}{
		{"none", []string{ws}, "/usr/bin:/bin", nil},
		{"a virtualenv", []string{ws}, venv + ":/usr/bin", []string{venv}},
		{"the temp folder", []string{ws}, filepath.Join(tmp, "bin") + ":/usr/bin", []string{filepath.Join(tmp, "bin")}},
		{"relative and empty, once each", []string{ws}, ".::bin:/usr/bin:.", []string{".", "bin"}},
		{"a symlink into the root", []string{ws}, filepath.Join(base, "venv"), []string{filepath.Join(base, "venv")}},
		{"the whole disk as a root", []string{"/"}, "/usr/bin", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Writable(tc.path, tc.roots); !slices.Equal(got, tc.want) {
				t.Errorf("Writable = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDistrust: a folder given again (a session per prompt in one
// workspace) is kept once, and "/" never.
func TestDistrust(t *testing.T) {
	dir := t.TempDir()
	mu.Lock()
	before := len(distrusts)
	mu.Unlock()
	for range 3 {
		Distrust(dir, "/")
	}
	mu.Lock()
	defer mu.Unlock()
	if got := len(distrusts) - before; got != 1 {
		t.Errorf("%d folders added, want 1: %q", got, distrusts)
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		path, dir string
		want      bool
	}{
		{"/home/u", "/home/u", true},
		{"/home/u/.ssh/config", "/home/u", true},
		{"/home/u2", "/home/u", false},
		{"/home/u.old/x", "/home/u", false},
		{"/home", "/home/u", false},
		{"/etc/passwd", "/", true},
		{"/", "/", true},
	} {
		t.Run(tc.path+" in "+tc.dir, func(t *testing.T) {
			if got := Within(tc.path, tc.dir); got != tc.want {
				t.Errorf("Within(%q, %q) = %v", tc.path, tc.dir, got)
			}
		})
	}
}

func TestEscapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		rel  string
		sep  byte
		want bool
	}{
		{"parent", "..", '/', true},
		{"above", "../x", '/', true},
		{"name with two dots", "..x/a", '/', false},
		{"inside", "a/b", '/', false},
		{"here", ".", '/', false},
		{"windows parent", "..", '\\', true},
		{"windows above", `..\other`, '\\', true},
		{"windows above with slash", "../other", '\\', true},
		{"windows name with two dots", `..x\a`, '\\', false},
		{"windows inside", `src\a.go`, '\\', false},
		{"backslash is a name on unix", `..\x`, '/', false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := escapes(tc.rel, tc.sep); got != tc.want {
				t.Errorf("escapes(%q, %q) = %v, want %v", tc.rel, tc.sep, got, tc.want)
			}
		})
	}
}

// TestCandidates: on Windows a program's name is tried as os/exec tries
// it there, %PATHEXT%'s extensions appended (rg finds rg.exe), the name
// alone first only when it has an extension; elsewhere the name is the
// file.
func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		name, goos, pathext string
		want                []string
	}{
		{"rg", "linux", ".EXE", []string{"rg"}},
		{"rg", "darwin", "", []string{"rg"}},
		{"rg", "windows", ".COM;.EXE;.BAT;.CMD", []string{"rg.com", "rg.exe", "rg.bat", "rg.cmd"}},
		{"rg", "windows", "", []string{"rg.com", "rg.exe", "rg.bat", "rg.cmd"}},
		{"rg", "windows", "EXE; .cmd;;", []string{"rg.exe", "rg.cmd"}},
		{"rg.exe", "windows", ".EXE", []string{"rg.exe", "rg.exe.exe"}},
		{"dsh-code", "windows", ".EXE", []string{"dsh-code.exe"}},
		{"v1.2-tool", "windows", ".EXE", []string{"v1.2-tool", "v1.2-tool.exe"}},
	} {
		t.Run(tc.goos+"/"+tc.name+"/"+tc.pathext, func(t *testing.T) {
			if got := Candidates(tc.name, tc.goos, tc.pathext); !slices.Equal(got, tc.want) {
				t.Errorf("Candidates = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestProgram: a program in a folder is a regular file the platform
// runs: on Windows any regular file with a %PATHEXT% extension, elsewhere
// one with an execute bit; never a folder.
func TestProgram(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("plain", 0o644)
	os.Mkdir(filepath.Join(dir, "folder"+exeSuffix()), 0o755)
	t.Setenv("PATHEXT", ".COM;.EXE")
	if runtime.GOOS == "windows" {
		write("rg.exe", 0o644) // no mode bits on Windows
	} else {
		write("rg", 0o755)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"rg", true}, {"plain", false}, {"folder", false}, {"missing", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := Program(dir, tc.name)
			if ok != tc.ok {
				t.Fatalf("Program(%s) = %q, %v; want %v", tc.name, p, ok, tc.ok)
			}
			if ok && p != filepath.Join(dir, tc.name+exeSuffix()) {
				t.Errorf("Program(%s) = %q", tc.name, p)
			}
		})
	}
}

// exeSuffix is what a program's file name ends with here.
func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}
