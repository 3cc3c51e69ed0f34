package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// searchModes runs a test with ripgrep (skipped when it is not installed)
// and with the native walker, with rg hidden from PATH.
func searchModes(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Run("ripgrep", func(t *testing.T) {
		if _, err := exec.LookPath("rg"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("ripgrep is not installed; CI must install it (make deps)")
			}
			t.Skip("ripgrep is not installed (make test installs it)")
		}
		fn(t, newEnv(t, LocalHost{}))
	})
	t.Run("native", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir()) // no rg here
		fn(t, newEnv(t, LocalHost{}))
	})
}

func seedTree(e *env) {
	e.write("a.go", "package a\n// TODO first\nfunc A() {}\n")
	e.write("sub/b.go", "package sub\n// TODO second\n// TODO third\n")
	e.write("sub/c.txt", "TODO in text\n")
	e.write("ignored/x.go", "// TODO ignored\n")
	e.write(".gitignore", "ignored/\n*.log\n")
	e.write("debug.log", "TODO in a log\n")
	e.write(".hidden/h.go", "// TODO hidden\n")
	e.write(".git/config", "TODO in git\n")
	e.write("bin.dat", "TODO\x00binary\n")
}

func matchSet(ms []card.SearchFileMatches) []string {
	var out []string
	for _, f := range ms {
		for _, m := range f.Matches {
			out = append(out, fmt.Sprintf("%s:%d:%s", f.Path, m.LineNumber, m.Line))
		}
	}
	slices.Sort(out)
	return out
}

func TestGrep(t *testing.T) {
	searchModes(t, func(t *testing.T, e *env) {
		seedTree(e)
		for _, tc := range []struct {
			name, args string
			want       []string
		}{
			{"respects gitignore, hidden, VCS and binary", `{"pattern":"TODO"}`, []string{"a.go:2:// TODO first", "sub/b.go:2:// TODO second", "sub/b.go:3:// TODO third", "sub/c.txt:1:TODO in text"}},
			{"include glob", `{"pattern":"TODO","include":"*.go"}`, []string{"a.go:2:// TODO first", "sub/b.go:2:// TODO second", "sub/b.go:3:// TODO third"}},
			{"include with braces", `{"pattern":"TODO","include":"*.{txt,md}"}`, []string{"sub/c.txt:1:TODO in text"}},
			{"path", `{"pattern":"TODO","path":"sub"}`, []string{"sub/b.go:2:// TODO second", "sub/b.go:3:// TODO third", "sub/c.txt:1:TODO in text"}},
			{"regex", `{"pattern":"TODO (second|third)"}`, []string{"sub/b.go:2:// TODO second", "sub/b.go:3:// TODO third"}},
			{"no matches", `{"pattern":"NOTHING_MATCHES_THIS"}`, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.call("grep", tc.args)
				got := wantOK(t, r)
				_, res := e.presenters("grep", tc.args, r)
				sm, ok := res.(*card.SearchMatches)
				if !ok {
					t.Fatalf("no search card: %#v", res)
				}
				if m := matchSet(sm.Files); !slices.Equal(m, tc.want) {
					t.Errorf("matches %v, want %v", m, tc.want)
				}
				if tc.want == nil && got != "No matches found" {
					t.Errorf("text %q", got)
				}
				if tc.want != nil && !strings.HasPrefix(got, fmt.Sprintf("Found %d match", len(tc.want))) {
					t.Errorf("text %q", got)
				}
			})
		}
		t.Run("invalid pattern", func(t *testing.T) {
			wantErr(t, e.call("grep", `{"pattern":"(unclosed"}`), "SEARCH_INVALID_PATTERN", "invalid pattern")
		})
		t.Run("argument checks", func(t *testing.T) {
			wantErr(t, e.call("grep", `{"pattern":""}`), "", "pattern must be a non-empty string")
			wantErr(t, e.call("grep", `{"pattern":"x","include":"*.go,*.ts"}`), "", "comma-separated lists are not supported")
			wantErr(t, e.call("grep", `{"pattern":"x","include":"!*.go"}`), "", "negated globs are not supported")
		})
		t.Run("cap of 250 matches with the total", func(t *testing.T) {
			var b strings.Builder
			for i := range 400 {
				fmt.Fprintf(&b, "needle %d\n", i)
			}
			e.write("many/n.txt", b.String())
			r := e.call("grep", `{"pattern":"needle","path":"many"}`)
			got := wantOK(t, r)
			if !strings.HasPrefix(got, "Found 250 of 400 matches") {
				t.Errorf("text %q", got[:60])
			}
			_, res := e.presenters("grep", `{"pattern":"needle"}`, r)
			if sm := res.(*card.SearchMatches); !sm.Truncated || sm.Total != 400 {
				t.Errorf("card truncated=%v total=%d", sm.Truncated, sm.Total)
			}
		})
	})
}

func TestGlob(t *testing.T) {
	searchModes(t, func(t *testing.T, e *env) {
		seedTree(e)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(e.dir, "sub/b.go"), old, old)
		for _, tc := range []struct {
			name, args string
			want       []string
		}{
			{"basename glob anywhere, ignored and hidden included, oldest first", `{"pattern":"*.go"}`, []string{"sub/b.go", ".hidden/h.go", "a.go", "ignored/x.go"}},
			{"anchored double star", `{"pattern":"sub/**/*.go"}`, []string{"sub/b.go"}},
			{"within a path", `{"pattern":"*.txt","path":"sub"}`, []string{"sub/c.txt"}},
			{"nothing", `{"pattern":"*.rs"}`, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.call("glob", tc.args)
				got := wantOK(t, r)
				_, res := e.presenters("glob", tc.args, r)
				sp := res.(*card.SearchPaths)
				paths := slices.Clone(sp.Paths)
				if len(paths) > 0 && paths[0] != tc.want[0] {
					t.Errorf("oldest first: %v", paths)
				}
				slices.Sort(paths)
				want := slices.Clone(tc.want)
				slices.Sort(want)
				if !slices.Equal(paths, want) {
					t.Errorf("paths %v, want %v", sp.Paths, tc.want)
				}
				if tc.want == nil && got != "No files found" {
					t.Errorf("text %q", got)
				}
				if slices.ContainsFunc(sp.Paths, func(p string) bool { return strings.HasPrefix(p, ".git/") }) {
					t.Errorf("VCS directory listed")
				}
			})
		}
		t.Run("cap of 100 paths", func(t *testing.T) {
			for i := range 120 {
				e.write(fmt.Sprintf("many/f%03d.md", i), "x")
			}
			r := e.call("glob", `{"pattern":"*.md"}`)
			got := wantOK(t, r)
			if !strings.Contains(got, "(Showing 100 of 120 paths.") {
				t.Errorf("text tail %q", got[len(got)-80:])
			}
			var meta struct{ Truncated bool }
			json.Unmarshal(r.Meta.Bytes(), &meta)
			if !meta.Truncated {
				t.Errorf("meta not truncated")
			}
		})
	})
}

func TestGlobRegexp(t *testing.T) {
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a/b.go", true},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/x/y/a.go", true},
		{"**/test_*.py", "a/test_x.py", true},
		{"*.{ts,tsx}", "a.tsx", true},
		{"file?.txt", "file1.txt", true},
		{"[ab].txt", "c.txt", false},
		{"[!ab].txt", "c.txt", true},
	} {
		m, err := newGlobMatcher(tc.glob)
		if err != nil || m.match(tc.path) != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v (%v)", tc.glob, tc.path, m.match(tc.path), tc.want, err)
		}
	}
}
