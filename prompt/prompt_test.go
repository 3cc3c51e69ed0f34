package prompt_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/prompt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func base() prompt.Data {
	return prompt.Data{
		OS: "linux", Arch: "amd64", Shell: "bash",
		Roots:       []string{"/home/u/project", "/home/u/lib"},
		Git:         "A git repository, on branch main",
		Date:        "2026-12-04",
		Confinement: "Commands run in a sandbox that can write only the workspace; edits, commands and fetches ask first (default mode).",
		Tools: []prompt.Tool{
			{Name: "read", Use: prompt.Use("read", "")},
			{Name: "todo_write", Use: prompt.Use("todo_write", "")},
			{Name: "mcp_search", Use: prompt.Use("mcp_search", "Search the tracker. Returns issues.\nMore.")},
		},
	}
}

func TestRender_Golden(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*prompt.Data)
	}{
		{"plain", func(*prompt.Data) {}},
		{"instructions and client", func(d *prompt.Data) {
			d.Plans = true
			d.Instructions = "<instructions path=\"/home/u/project/AGENTS.md\">\nRun make test.\n</instructions>"
			d.Client = "Answer in French."
		}},
		{"override", func(d *prompt.Data) { d.Override = "You are a reviewer. Never edit." }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := base()
			tc.edit(&d)
			got := prompt.Render(d)
			if again := prompt.Render(d); again != got {
				t.Fatalf("two renders of one Data differ")
			}
			path := filepath.Join("testdata", t.Name()+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestGitState(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"none", func(*testing.T, string) {}, "Not a git repository"},
		{"branch", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/feature/x\n")
		}, "A git repository, on branch feature/x"},
		{"detached", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, ".git", "HEAD"), "0123456789abcdef\n")
		}, "A git repository, with a detached HEAD"},
		{"worktree", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, "main.git", "worktrees", "w", "HEAD"), "ref: refs/heads/w\n")
			mk(t, filepath.Join(dir, ".git"), "gitdir: main.git/worktrees/w\n")
		}, "A git repository, on branch w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			sub := filepath.Join(dir, "sub")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if got := prompt.GitState(sub); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func mk(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
