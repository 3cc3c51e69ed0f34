package commands_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/commands"
	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, text, wantName, wantArgs string
		wantOK                         bool
	}{
		{"name only", "/compact", "compact", "", true},
		{"name and args", "/fix  the bug \n now", "fix", "the bug \n now", true},
		{"namespaced", "/git:commit x", "git:commit", "x", true},
		{"a path", "/usr/bin/env ls", "", "", false},
		{"a slash alone", "/", "", "", false},
		{"no slash", "compact", "", "", false},
		{"leading space", " /compact", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, args, ok := commands.Split(tc.text)
			if name != tc.wantName || args != tc.wantArgs || ok != tc.wantOK {
				t.Errorf("got %q %q %v, want %q %q %v", name, args, ok, tc.wantName, tc.wantArgs, tc.wantOK)
			}
		})
	}
}

func TestCommand_Expand(t *testing.T) {
	for _, tc := range []struct{ name, prompt, args, want string }{
		{"substituted everywhere", "Fix $ARGUMENTS; test $ARGUMENTS.", "a.go", "Fix a.go; test a.go."},
		{"appended when absent", "Explain the code.", "a.go", "Explain the code.\n\nARGUMENTS: a.go"},
		{"nothing to append", "Explain the code.", "  ", "Explain the code."},
		{"empty arguments", "Look.\n\n$ARGUMENTS", "", "Look."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (commands.Command{Prompt: tc.prompt}).Expand(tc.args); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, user, outside := filepath.Join(base, "ws"), filepath.Join(base, "config"), filepath.Join(base, "outside")
	cmds := filepath.Join(ws, ".dsh", "commands")
	write(t, filepath.Join(user, "commands", "fix.md"), "---\ndescription: Fix an issue\nargument-hint: \"issue number\"\n---\nFix issue $ARGUMENTS.\n")
	write(t, filepath.Join(user, "commands", "both.md"), "User's version.")
	write(t, filepath.Join(cmds, "both.md"), "Workspace's version.")
	write(t, filepath.Join(cmds, "plain.md"), "Explain the layout.\nIn detail.")
	write(t, filepath.Join(cmds, "compact.md"), "Not the built-in.")
	write(t, filepath.Join(cmds, "big.md"), strings.Repeat("x", commands.MaxBytes+1))
	write(t, filepath.Join(cmds, "secret.md"), "Denied.")
	write(t, filepath.Join(cmds, "bad name.md"), "x")
	write(t, filepath.Join(outside, "out.md"), "Outside.")
	linked := fsprobe.Symlink(t, filepath.Join(outside, "out.md"), filepath.Join(cmds, "linked.md"))
	w, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	denied := errors.New("denied")
	check := func(real string) error {
		if filepath.Base(real) == "secret.md" {
			return denied
		}
		return nil
	}
	t.Run("trusted workspace", func(t *testing.T) {
		got, problems := commands.Load(commands.Source{UserDir: user, Workspace: w, Trusted: true, Check: check})
		want := map[string]commands.Command{
			"fix":   {Description: "Fix an issue", Hint: "issue number", Prompt: "Fix issue $ARGUMENTS."},
			"both":  {Description: "Workspace's version.", Prompt: "Workspace's version."},
			"plain": {Description: "Explain the layout.", Prompt: "Explain the layout.\nIn detail."},
		}
		var custom []string
		for _, c := range got[len(commands.Builtins()):] {
			custom = append(custom, c.Name)
			w := want[c.Name]
			if c.Description != w.Description || c.Hint != w.Hint || c.Prompt != w.Prompt {
				t.Errorf("%s: got %+v, want %+v", c.Name, c, w)
			}
		}
		if strings.Join(custom, " ") != "both fix plain" {
			t.Errorf("got custom commands %v, want both fix plain", custom)
		}
		if c, _ := commands.Find(got, "compact"); c.Prompt != "" {
			t.Errorf("a file replaced the built-in /compact: %+v", c)
		}
		var msgs []string
		for _, p := range problems {
			msgs = append(msgs, p.Error())
		}
		all := strings.Join(msgs, "\n")
		for _, w := range []string{"big.md", "denied", "bad name", "built-in"} {
			if !strings.Contains(all, w) {
				t.Errorf("no problem mentions %q:\n%s", w, all)
			}
		}
		t.Run("a link out of the workspace", func(t *testing.T) {
			fsprobe.NeedLinks(t, linked)
			if !strings.Contains(all, "outside the workspace") {
				t.Errorf("no problem mentions the link out of the workspace:\n%s", all)
			}
		})
	})
	t.Run("untrusted workspace", func(t *testing.T) {
		got, _ := commands.Load(commands.Source{UserDir: user, Workspace: w, Trusted: false, Check: check})
		var custom []string
		for _, c := range got[len(commands.Builtins()):] {
			custom = append(custom, c.Name+"="+c.Prompt)
		}
		if strings.Join(custom, " ") != "both=User's version. fix=Fix issue $ARGUMENTS." {
			t.Errorf("got %v, want the user's commands only", custom)
		}
	})
}
