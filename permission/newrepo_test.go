package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRepoRisks: a repository as git init, a remote and everyday
// settings leave it has nothing that runs code; each way a command could
// leave code for git to run later is reported.
func TestRepoRisks(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	for _, tc := range []struct {
		name  string
		setup []string // git commands in the new repository
		edit  func(t *testing.T, dotGit string)
		want  []string
	}{
		{name: "git init and everyday settings", setup: []string{
			"remote add origin https://example.com/r.git", "config user.email a@b.c", "config user.name A",
			"config branch.main.remote origin", "config branch.main.merge refs/heads/main", "config pull.rebase true"}},
		{name: "a hook", edit: func(t *testing.T, g string) { write(t, filepath.Join(g, "hooks", "pre-commit"), "#!/bin/sh\n") },
			want: []string{"the hook pre-commit"}},
		{name: "fsmonitor", setup: []string{"config core.fsmonitor ./evil"}, want: []string{"the setting core.fsmonitor"}},
		{name: "hooksPath", setup: []string{"config core.hooksPath /tmp/h"}, want: []string{"the setting core.hookspath"}},
		{name: "an alias", setup: []string{"config alias.st !evil"}, want: []string{"the setting alias.st"}},
		{name: "an include", setup: []string{"config include.path /tmp/x"}, want: []string{"the setting include.path"}},
		{name: "a remote's upload-pack", setup: []string{"remote add o /tmp/r", "config remote.o.uploadpack evil"}, want: []string{"the setting remote.<o>.uploadpack"}},
		{name: "the ext transport", setup: []string{"remote add o ext::sh -c evil"}, want: []string{"the setting remote.<o>.url"}},
		{name: "a filter", setup: []string{"config filter.x.clean evil"}, want: []string{"the setting filter.<x>.clean"}},
		{name: "a setting on the header's line, in another case", edit: func(t *testing.T, g string) {
			appendTo(t, filepath.Join(g, "config"), "[CORE] FsMonitor = evil\n")
		}, want: []string{"the setting core.fsmonitor"}},
		{name: "the old subsection spelling", edit: func(t *testing.T, g string) {
			appendTo(t, filepath.Join(g, "config"), "[remote.o]\n\tuploadpack = evil\n")
		}, want: []string{"the setting remote.<o>.uploadpack"}},
		{name: "a boolean with no value", edit: func(t *testing.T, g string) {
			appendTo(t, filepath.Join(g, "config"), "[core]\n\tfsmonitor\n")
		}, want: []string{"the setting core.fsmonitor"}},
		{name: "a setting hidden after a continued value", edit: func(t *testing.T, g string) {
			appendTo(t, filepath.Join(g, "config"), "[user]\n\tname = a ; \\\n[core]\n\tfsmonitor = evil\n")
		}, want: []string{"the setting core.fsmonitor"}},
		{name: "a per-worktree config", setup: []string{"config extensions.worktreeConfig true", "config --worktree core.fsmonitor ./evil"},
			want: []string{"the setting core.fsmonitor"}},
		{name: "a common folder elsewhere", edit: func(t *testing.T, g string) { write(t, filepath.Join(g, "commondir"), "/tmp/elsewhere\n") },
			want: []string{"commondir: git takes this repository's hooks and config from another folder"}},
		{name: ".git a file", edit: func(t *testing.T, g string) {
			os.RemoveAll(g)
			write(t, g, "gitdir: /tmp/elsewhere\n")
		}, want: []string{".git is not a folder: git takes its hooks and config from where it points"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gitRun(t, git, dir, "init", "-q")
			for _, c := range tc.setup {
				gitRun(t, git, dir, splitArgs(c)...)
			}
			dotGit := filepath.Join(dir, ".git")
			if tc.edit != nil {
				tc.edit(t, dotGit)
			}
			if got := RepoRisks(dotGit); !slices.Equal(got, tc.want) {
				t.Errorf("RepoRisks = %q, want %q", got, tc.want)
			}
		})
	}
	if got := RepoRisks(filepath.Join(t.TempDir(), ".git")); got != nil {
		t.Errorf("no repository: %q", got)
	}
}

func gitRun(t *testing.T, git, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(git, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %q: %v %s", args, err, out)
	}
}

// splitArgs splits on spaces, keeping the rest of the line after a word
// starting with "ext::" or "!" whole.
func splitArgs(s string) []string {
	var out []string
	for s != "" {
		word, rest, _ := strings.Cut(s, " ")
		if strings.HasPrefix(word, "!") || strings.HasPrefix(word, "ext::") {
			return append(out, s)
		}
		out, s = append(out, word), rest
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(text)
}
