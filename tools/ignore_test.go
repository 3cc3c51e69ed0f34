package tools

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIgnore_AgreesWithGit lays out a tree with tricky ignore files and
// compares the files the native walker visits with those git itself
// reports as untracked and not ignored.
func TestIgnore_AgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test")
	}
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", strings.Join([]string{
		"# a comment",
		"",
		"*.log",
		"!keep.log",
		"build/",
		"/root-only.txt",
		"docs/*.md",
		"!docs/README.md",
		"**/gen/**",
		"deep/**/x.txt",
		"a?c.txt",
		"[ab]*.dat",
		"trailing-space.txt   ",
		`space\ `,
		`\#hash.txt`,
		`\!bang.txt`,
		"{brace}.txt",
		"a,b.txt",
		"dir-only/",
		"out/**",
		"!out/keep",
		"*.tmp/",
		"mid**dle.c",
		"**/any-depth.c",
		"crlf.txt\r",
	}, "\n"))
	write("sub/.gitignore", "*.txt\n!important.txt\n/anchored.go\nnested/\n")
	for _, f := range []string{
		"a.log", "keep.log", "sub/x.log", "build/a.go", "sub/build/b.go",
		"root-only.txt", "sub2/root-only.txt", "docs/a.md", "docs/README.md", "docs/sub/b.md",
		"x/gen/y.go", "gen/z.go", "deep/x.txt", "deep/a/b/x.txt", "deep2/x.txt",
		"abc.txt", "axc.txt", "abbc.txt", "a.dat", "b1.dat", "c.dat",
		"trailing-space.txt", "space ", "space", "#hash.txt", "!bang.txt", "{brace}.txt", "brace.txt", "a,b.txt", "a.txt",
		"dir-only", "other/dir-only/f", "out/a", "out/keep", "out/deeper/f",
		"f.tmp", "d.tmp/f", "middle.c", "mid-x-dle.c", "mid/dle.c", "any-depth.c", "p/q/any-depth.c", "crlf.txt",
		"sub/a.txt", "sub/important.txt", "sub/anchored.go", "sub/deeper/anchored.go", "sub/deeper/b.txt",
		"sub/nested/f", "nested/f", "plain.go",
	} {
		write(f, "x\n")
	}
	git := exec.Command("git", "-c", "core.excludesFile=/dev/null", "init", "-q")
	git.Dir = root
	git.Env = append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+root, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	git = exec.Command("git", "-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard", "-z")
	git.Dir, git.Env = root, append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+root, "GIT_CONFIG_NOSYSTEM=1")
	out, err := git.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var got []string
	err = walkFiles(root, walkOptions{hidden: true, gitignore: true}, func(_, rel string, _ fs.DirEntry, _ func() (*os.File, error)) error {
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("%q: git keeps it, the walker ignores it", f)
		}
	}
	for _, f := range got {
		if !slices.Contains(want, f) {
			t.Errorf("%q: git ignores it, the walker keeps it", f)
		}
	}
	if len(want) < 20 {
		t.Fatalf("git listed only %v", want)
	}
}

func TestParseIgnore(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		domain     []string
		want       ignorePattern
		ok         bool
	}{
		{"blank", "   ", nil, ignorePattern{}, false},
		{"comment", "# x", nil, ignorePattern{}, false},
		{"a name", "*.log", nil, ignorePattern{glob: "*.log", base: true}, true},
		{"anchored in a subdirectory", "/x/y", []string{"a", "b"}, ignorePattern{prefix: "a/b/", glob: "x/y"}, true},
		{"negated directory", "!build/", nil, ignorePattern{glob: "build", negate: true, dirOnly: true, base: true}, true},
		{"inside, not itself", "out/**", nil, ignorePattern{glob: "out/**/*"}, true},
		{"braces are literal", "{a,b}", nil, ignorePattern{glob: `\{a\,b\}`, base: true}, true},
		{"an escaped trailing space stays", `x\ `, nil, ignorePattern{glob: `x\ `, base: true}, true},
		{"a lone slash", "/", nil, ignorePattern{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseIgnore(tc.line, tc.domain)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("parseIgnore(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
			}
		})
	}
}
