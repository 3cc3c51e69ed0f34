package bridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stateFiles lists what a state directory holds: name and content.
func stateFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// badDirs are the session folders a request must be refused for: the
// cwd or an additional directory that is missing, a file (also behind a
// symlink, or as a folder on the way), relative, or holding a NUL byte.
func badDirs(t *testing.T) (good string, cases []struct{ name, cwd, extra, want string }) {
	t.Helper()
	good, _ = filepath.EvalSymlinks(t.TempDir())
	file := filepath.Join(good, "file.txt")
	os.WriteFile(file, []byte("x\n"), 0o644)
	link := filepath.Join(good, "link")
	os.Symlink(file, link)
	missing := filepath.Join(good, "missing")
	return good, []struct{ name, cwd, extra, want string }{
		{"cwd missing", missing, "", `cwd "` + missing + `" does not exist`},
		{"cwd through a file", file + "/sub", "", `cwd "` + file + `/sub" does not exist`},
		{"cwd a file", file, "", `cwd "` + file + `" is not a directory`},
		{"cwd a symlink to a file", link, "", `cwd "` + link + `" is not a directory`},
		{"cwd relative", "rel/dir", "", `cwd must be an absolute path, got "rel/dir"`},
		{"cwd with a NUL byte", good + "\x00/x", "", `cwd "` + good + `\x00/x" contains a NUL byte`},
		{"additional directory missing", good, missing, `additional directory "` + missing + `" does not exist`},
		{"additional directory a file", good, file, `additional directory "` + file + `" is not a directory`},
		{"additional directory with a NUL byte", good, good + "\x00", `additional directory "` + good + `\x00" contains a NUL byte`},
		{"additional directory relative", good, "sub", `additional directory must be an absolute path, got "sub"`},
	}
}

// TestBridge_SessionDirsRefused: session/new, session/load and
// session/resume refuse a cwd or additional directory that is not an
// existing directory, with -32602 and a message naming the problem and
// the path, and create nothing (no session log, no log line added); a
// symlink to a directory is a directory.
func TestBridge_SessionDirsRefused(t *testing.T) {
	good, cases := badDirs(t)
	dirLink := filepath.Join(t.TempDir(), "dirlink")
	os.Symlink(good, dirLink)
	m := newFakeModel(t, fakeTurn{text: "ok"})

	t.Run("session/new", func(t *testing.T) {
		state := t.TempDir()
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		e.initialize(nil)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				params := map[string]any{"cwd": tc.cwd, "mcpServers": []any{}}
				if tc.extra != "" {
					params["additionalDirectories"] = []string{tc.extra}
				}
				res, rerr := e.call("session/new", params)
				if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, tc.want) {
					t.Errorf("got %s %+v, want -32602 %q", res, rerr, tc.want)
				}
			})
		}
		if files := stateFiles(t, state); len(files) != 0 {
			t.Errorf("refused requests left %v", files)
		}
		if _, rerr := e.call("session/new", map[string]any{"cwd": dirLink, "mcpServers": []any{}, "additionalDirectories": []string{dirLink}}); rerr != nil {
			t.Errorf("a symlink to a directory was refused: %+v", rerr)
		}
	})

	for _, method := range []string{"session/load", "session/resume"} {
		t.Run(method, func(t *testing.T) {
			state := t.TempDir()
			first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
			first.initialize(nil)
			id := first.newSession(good)
			first.close()
			before := stateFiles(t, state)
			e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
			e.initialize(nil)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					params := map[string]any{"sessionId": id, "cwd": tc.cwd, "mcpServers": []any{}}
					if tc.extra != "" {
						params["additionalDirectories"] = []string{tc.extra}
					}
					res, rerr := e.call(method, params)
					if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, method+": "+tc.want) {
						t.Errorf("got %s %+v, want -32602 %q", res, rerr, tc.want)
					}
				})
			}
			after := stateFiles(t, state)
			if len(after) != len(before) {
				t.Errorf("refused requests changed the state: %d files, want %d", len(after), len(before))
			}
			for p, b := range before {
				if after[p] != b {
					t.Errorf("refused requests changed %s", p)
				}
			}
			if _, rerr := e.call(method, map[string]any{"sessionId": id, "cwd": dirLink, "mcpServers": []any{}}); rerr != nil {
				t.Errorf("a symlink to a directory was refused: %+v", rerr)
			}
		})
	}

	t.Run("session/load of a log whose folder is gone", func(t *testing.T) {
		state := t.TempDir()
		gone := filepath.Join(t.TempDir(), "gone")
		os.Mkdir(gone, 0o755)
		first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		first.initialize(nil)
		id := first.newSession(gone)
		first.close()
		os.Remove(gone)
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		e.initialize(nil)
		want := `session/load: cwd "` + gone + `" does not exist`
		if res, rerr := e.call("session/load", map[string]any{"sessionId": id, "mcpServers": []any{}}); rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, want) {
			t.Errorf("got %s %+v, want -32602 %q", res, rerr, want)
		}
	})
}
