//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSearch_SymlinkRoot: grep and glob with path set to a symlink search
// what it leads to, and show what they find under the path the call gave.
func TestSearch_SymlinkRoot(t *testing.T) {
	searchModes(t, func(t *testing.T, e *env) {
		e.write("open/a.txt", "needle\n")
		e.write("open/sub/b.txt", "needle\n")
		os.Symlink(filepath.Join(e.dir, "open"), filepath.Join(e.dir, "link"))
		os.Symlink(filepath.Join(e.dir, "open", "a.txt"), filepath.Join(e.dir, "link.txt"))
		for _, tc := range []struct {
			name, tool, args string
			want             []string
		}{
			{"grep in a linked folder", "grep", `{"pattern":"needle","path":"link"}`, []string{"link/a.txt", "link/sub/b.txt"}},
			{"grep in a linked folder, absolute", "grep", `{"pattern":"needle","path":"` + filepath.Join(e.dir, "link") + `"}`, []string{"link/a.txt", "link/sub/b.txt"}},
			{"grep in a linked folder with an include glob", "grep", `{"pattern":"needle","path":"link","include":"b.txt"}`, []string{"link/sub/b.txt"}},
			{"grep of a linked file", "grep", `{"pattern":"needle","path":"link.txt"}`, []string{"link.txt"}},
			{"grep of the workspace", "grep", `{"pattern":"needle"}`, []string{"open/a.txt", "open/sub/b.txt"}},
			{"glob in a linked folder", "glob", `{"pattern":"**/*.txt","path":"link"}`, []string{"link/a.txt", "link/sub/b.txt"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.call(tc.tool, tc.args)
				if r.IsError {
					t.Fatalf("got error %v", r.Error)
				}
				var got []string
				for _, l := range strings.Split(text(r), "\n") {
					if strings.HasSuffix(l, ".txt") {
						got = append(got, l)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}
	})
}

// TestGrep_RootFlippedAfterJudgement: a symlink root pointed at a denied
// tree after the call was judged cannot lead the search there. ripgrep is
// handed the resolved root (a stand-in for rg flips the link before it
// runs the real one, and back after); the native walker walks the
// resolved root (the link flips as the first file found is judged).
func TestGrep_RootFlippedAfterJudgement(t *testing.T) {
	setup := func(t *testing.T, rules *recordingRules) (*env, string) {
		e := newEnv(t, LocalHost{}, func(o *Options) {
			rules.root = filepath.Join(o.Workspace.Roots()[0], "secrets")
			o.Rules, o.NativeSearch = rules, true
		})
		e.write("open/key.txt", "needle open\n")
		e.write("secrets/key.txt", "needle secret\n")
		link := filepath.Join(e.dir, "link")
		os.Symlink(filepath.Join(e.dir, "open"), link)
		return e, link
	}
	check := func(t *testing.T, out string) {
		t.Helper()
		if strings.Contains(out, "secret") || !strings.Contains(out, "needle open") || !strings.Contains(out, "link/key.txt") {
			t.Errorf("got %q, want link/key.txt's open needle alone", out)
		}
	}

	t.Run("ripgrep", func(t *testing.T) {
		rg := ripgrep(false)
		if rg == "" {
			t.Fatal("ripgrep is not installed: make deps installs it")
		}
		rules := &recordingRules{}
		e, link := setup(t, rules)
		root := rootOf(e.ws, "link")
		if cmd := rgGrep(context.Background(), rg, e.ws, nil, root, "needle", ""); cmd.Args[len(cmd.Args)-1] != filepath.Join(e.dir, "open") || cmd.Dir != e.dir {
			t.Errorf("rg runs in %q as %q, want it handed the resolved root", cmd.Dir, cmd.Args)
		}
		// The stand-in flips the link back before it prints what rg found,
		// so the results are judged on the link as the call was.
		bin := t.TempDir()
		fake := filepath.Join(bin, "rg")
		script := "#!/bin/sh\nln -sfn '" + rules.root + "' '" + link + "'\n'" + rg + "' \"$@\" >'" + bin + "/out'\nst=$?\n" +
			"ln -sfn '" + filepath.Join(e.dir, "open") + "' '" + link + "'\ncat '" + bin + "/out'\nexit $st\n"
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		res, err := grepRG(context.Background(), fake, searchJail{}, e.ws, newHider(e.ws, rules), root, "needle", "")
		if err != nil {
			t.Fatal(err)
		}
		check(t, renderGrep(res))
	})

	t.Run("native", func(t *testing.T) {
		rules := &recordingRules{}
		e, link := setup(t, rules)
		flipped := false
		rules.onJudge = func() {
			if !flipped {
				flipped = true
				swapLink(t, rules.root, link)
			}
		}
		check(t, text(e.call("grep", `{"pattern":"needle","path":"link"}`)))
		if !flipped {
			t.Errorf("the link never flipped: the test tested nothing")
		}
	})
}
