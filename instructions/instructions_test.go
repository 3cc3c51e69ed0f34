package instructions_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/instructions"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

var errDenied = errors.New("denied by a rule")

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func texts(files []instructions.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Text)
	}
	return out
}

func TestLoader_Touched(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, root, outside string)
		deny    string // a file name the rules deny
		touch   []string
		want    []string // texts, roots first, then each touch's in order
		wantErr string
	}{
		{
			name: "root and nested, each once",
			setup: func(t *testing.T, root, _ string) {
				write(t, filepath.Join(root, "AGENTS.md"), "root rules")
				write(t, filepath.Join(root, "a", "AGENTS.md"), "a rules")
				write(t, filepath.Join(root, "a", "b", "AGENTS.md"), "b rules")
				write(t, filepath.Join(root, "a", "b", "x.go"), "package x")
			},
			touch: []string{"a/b/x.go", "a/b/x.go", "a"},
			want:  []string{"root rules", "a rules", "b rules"},
		},
		{
			name: "CLAUDE.md where there is no AGENTS.md",
			setup: func(t *testing.T, root, _ string) {
				write(t, filepath.Join(root, "CLAUDE.md"), "claude rules")
				write(t, filepath.Join(root, "sub", "AGENTS.md"), "agents rules")
				write(t, filepath.Join(root, "sub", "CLAUDE.md"), "not read")
				write(t, filepath.Join(root, "sub", "f"), "")
			},
			touch: []string{"sub/f"},
			want:  []string{"claude rules", "agents rules"},
		},
		{
			name: "a symlink out of the workspace is not followed",
			setup: func(t *testing.T, root, outside string) {
				write(t, filepath.Join(outside, "AGENTS.md"), "outside rules")
				if err := os.Symlink(filepath.Join(outside, "AGENTS.md"), filepath.Join(root, "AGENTS.md")); err != nil {
					t.Skip(err)
				}
				write(t, filepath.Join(root, "f"), "")
			},
			touch: []string{"f"},
		},
		{
			name: "a denied file is never read",
			setup: func(t *testing.T, root, _ string) {
				write(t, filepath.Join(root, "sub", "AGENTS.md"), "secret rules")
				write(t, filepath.Join(root, "sub", "f"), "")
			},
			deny:  "AGENTS.md",
			touch: []string{"sub/f"},
		},
		{
			name:  "a path outside the workspace has none",
			setup: func(t *testing.T, _, outside string) { write(t, filepath.Join(outside, "AGENTS.md"), "outside rules") },
			touch: []string{"../outside/AGENTS.md"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
			for _, d := range []string{root, outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			tc.setup(t, root, outside)
			ws, err := workspace.New(root)
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			l := instructions.New(ws, func(real string) error {
				read = append(read, real)
				if tc.deny != "" && filepath.Base(real) == tc.deny {
					return errDenied
				}
				return nil
			})
			got := texts(l.Roots())
			for _, p := range tc.touch {
				got = append(got, texts(l.Touched(p))...)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for _, r := range read {
				if strings.HasPrefix(r, outside) {
					t.Errorf("the rules were asked about %s, outside the workspace: it was judged as if it might be read", r)
				}
			}
		})
	}
}

func TestRead_Cap(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	for _, tc := range []struct {
		name          string
		size          int
		wantTruncated bool
	}{
		{"under the cap", instructions.MaxBytes - 100, false},
		{"at the cap", instructions.MaxBytes, false},
		{"past the cap", 3 * instructions.MaxBytes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Repeat(line, tc.size/len(line)+1)[:tc.size]
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			write(t, p, text)
			f, err := instructions.Read(p, func(string) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if f.Truncated != tc.wantTruncated {
				t.Fatalf("got truncated %v, want %v", f.Truncated, tc.wantTruncated)
			}
			if f.Size != int64(tc.size) {
				t.Errorf("got size %d, want %d", f.Size, tc.size)
			}
			if tc.wantTruncated {
				if len(f.Text) > instructions.MaxBytes+200 {
					t.Errorf("got %d bytes of text, want at most the cap and a marker", len(f.Text))
				}
				if !strings.Contains(f.Text, "[instructions cut: the file is 98304 bytes") {
					t.Errorf("got no cut marker in %q", f.Text[len(f.Text)-120:])
				}
			}
		})
	}
}

func TestUser(t *testing.T) {
	dir := t.TempDir()
	if _, ok := instructions.User(dir); ok {
		t.Fatal("got a file from an empty folder")
	}
	write(t, filepath.Join(dir, "AGENTS.md"), "mine")
	if f, ok := instructions.User(dir); !ok || f.Text != "mine" {
		t.Errorf("got %q %v, want mine", f.Text, ok)
	}
	if _, ok := instructions.User(""); ok {
		t.Error("got a file with no config folder")
	}
}

func BenchmarkLoader_Nested50(b *testing.B) {
	root := b.TempDir()
	dir := root
	for i := range 50 {
		dir = filepath.Join(dir, "d"+string(rune('a'+i%26)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(strings.Repeat("Run the tests.\n", 40)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	leaf := filepath.Join(dir, "main.go")
	if err := os.WriteFile(leaf, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l := instructions.New(ws, nil)
		if n := len(l.Touched(leaf)); n != 50 {
			b.Fatalf("got %d files, want 50", n)
		}
	}
}
