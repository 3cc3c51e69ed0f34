package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBridge_SessionDirDotDot: a session folder whose ".." follows a
// symlink is the folder the kernel reaches (the one checked), not the one
// a lexical clean names: ws/link/../target, link a symlink to
// ../elsewhere/deep, is elsewhere/target, where ws/target does not exist.
// The workspace the tools see and the session log's folder are that one.
func TestBridge_SessionDirDotDot(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, elsewhere := filepath.Join(root, "ws"), filepath.Join(root, "elsewhere")
	target := filepath.Join(elsewhere, "target")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(filepath.Join(elsewhere, "deep"), 0o755)
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, "marker.txt"), []byte("here\n"), 0o644)
	if err := os.Symlink("../elsewhere/deep", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(ws, "link") + "/../target" // as written: filepath.Join would clean it

	// globResult prompts a glob of pattern (in path, when set) and returns
	// what the tool answered.
	globResult := func(t *testing.T, e *editor, m *fakeModel, id, pattern, path string) string {
		t.Helper()
		a := args("pattern", pattern)
		if path != "" {
			a = args("pattern", pattern, "path", path)
		}
		m.add(fakeTurn{calls: []fakeCall{{"g1", "glob", a}}}, fakeTurn{text: "done"})
		e.prompt(id, "look")
		ups := e.toolUpdates("g1")
		if len(ups) == 0 {
			t.Fatal("no glob call")
		}
		return string(ups[len(ups)-1].Content)
	}
	logCwd := func(t *testing.T, state string) (string, []string) {
		t.Helper()
		for p, b := range stateFiles(t, state) {
			if strings.HasSuffix(p, ".jsonl") {
				var first struct {
					Cwd  string   `json:"cwd"`
					Dirs []string `json:"additionalDirectories"`
				}
				json.Unmarshal([]byte(strings.SplitN(b, "\n", 2)[0]), &first)
				return first.Cwd, first.Dirs
			}
		}
		t.Fatal("no session log")
		return "", nil
	}

	for _, tc := range []struct {
		name, cwd, extra string
		pattern, path    string
		want             string
		wantCwd          string
	}{
		{"cwd link/../target", viaLink, "", "*", "", "marker.txt", target},
		{"cwd link/..", filepath.Join(ws, "link") + "/..", "", "target/*", "", "target/marker.txt", elsewhere},
		{"additional directory link/../target", ws, viaLink, "*", target, "marker.txt", ws},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFakeModel(t)
			state := t.TempDir()
			e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
			e.initialize(nil)
			params := map[string]any{"cwd": tc.cwd, "mcpServers": []any{}}
			if tc.extra != "" {
				params["additionalDirectories"] = []string{tc.extra}
			}
			res, rerr := e.call("session/new", params)
			if rerr != nil {
				t.Fatalf("session/new: %+v", rerr)
			}
			var r struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(res, &r)
			if got := globResult(t, e, m, r.SessionID, tc.pattern, tc.path); !strings.Contains(got, tc.want) {
				t.Errorf("glob: got %s, want %q", got, tc.want)
			}
			if n := e.permissionCount(); n != 0 {
				t.Errorf("got %d permission requests, want none (the folder is the workspace's)", n)
			}
			e.close()
			cwd, dirs := logCwd(t, state)
			if cwd != tc.wantCwd {
				t.Errorf("session log cwd: got %q, want %q", cwd, tc.wantCwd)
			}
			if tc.extra != "" && (len(dirs) != 1 || dirs[0] != target) {
				t.Errorf("session log additional directories: got %q, want [%q]", dirs, target)
			}
		})
	}

	t.Run("session/resume cwd link/../target", func(t *testing.T) {
		m := newFakeModel(t)
		state := t.TempDir()
		first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		first.initialize(nil)
		id := first.newSession(ws)
		first.close()
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		e.initialize(nil)
		if _, rerr := e.call("session/resume", map[string]any{"sessionId": id, "cwd": viaLink, "mcpServers": []any{}}); rerr != nil {
			t.Fatalf("session/resume: %+v", rerr)
		}
		if got := globResult(t, e, m, id, "*", ""); !strings.Contains(got, "marker.txt") {
			t.Errorf("glob: got %s, want marker.txt", got)
		}
	})

	if _, err := os.Lstat(filepath.Join(ws, "target")); err == nil {
		t.Errorf("%s was made", filepath.Join(ws, "target"))
	}
}
