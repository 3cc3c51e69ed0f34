package bridge_test

// Attacks on partial approval that held on main when written: kept as
// regression tests beside the findings (redhunks_test.go).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedHunksSanity is the harness's own check: [1] applies hunk 1 alone.
func TestRedHunksSanity(t *testing.T) {
	c := rhStart(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("w1", "write", map[string]any{"file_path": "a.txt", "content": rhTwoHunks()})}}),
		rhLine(map[string]any{"expect": []any{map[string]any{"id": "w1", "contains": "hunk 1 @@"}}, "text": "done"}),
	})
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte(rhLines(20)), 0o644)
	c.init(nil)
	sid := c.newSession()
	c.setAsk(rhAllowHunks("allow_once", "[1]"))
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	want := strings.Replace(rhLines(20), "line18\n", "CHANGED18\n", 1)
	if got := rhRead(t, filepath.Join(c.ws, "a.txt")); got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	for _, u := range c.updatesSince(n) {
		if strings.Contains(string(u.Raw), "model error") {
			t.Errorf("model error: %s", u.Raw)
		}
	}
	_ = json.RawMessage{}
}

// Selections docs/meta-dsh.md refuses: nothing is written.
func TestRedHunksBadSelections(t *testing.T) {
	for _, raw := range []string{`[2]`, `[-1]`, `[0,0]`, `[1.0]`, `[1e0]`, `[99999999999999999999]`, `["0"]`, `{"0":true}`, `0`, `"0"`, `[[0]]`, `[true]`, `[-0]`} {
		t.Run(raw, func(t *testing.T) { rhBadSelection(t, "allow_once", raw) })
	}
	t.Run("reject_once", func(t *testing.T) { rhBadSelection(t, "reject_once", `[0]`) })
	t.Run("reject_always", func(t *testing.T) { rhBadSelection(t, "reject_always", `[0]`) })
}

// A symlink to a file outside the workspace swapped in while the person
// decides is not written through.
func TestRedHunksSymlinkSwapped(t *testing.T) {
	c := rhStartIn(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("w1", "write", map[string]any{"file_path": "a.txt", "content": rhTwoHunks()})}}),
		rhLine(map[string]any{"text": "done"}),
	})
	a := filepath.Join(c.ws, "a.txt")
	outside := filepath.Join(filepath.Dir(c.ws), "outside.txt")
	os.WriteFile(a, []byte(rhLines(20)), 0o644)
	os.WriteFile(outside, []byte(rhLines(20)), 0o644)
	c.init(nil)
	sid := c.newSession()
	ask := rhAllowHunks("allow_once", "[1]")
	c.setAsk(func(p json.RawMessage) any {
		os.Remove(a)
		if err := os.Symlink(outside, a); err != nil {
			t.Error(err)
		}
		return ask(p)
	})
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	if got := rhRead(t, outside); got != rhLines(20) {
		st, text := rhResultText(c.updatesSince(n), "w1")
		t.Errorf("a file outside the workspace was written through a symlink swapped in: %q; call %s: %s", got, st, text)
	}
}

// A child's write, approved in part on the child's session.
func TestRedHunksChildPartialApproval(t *testing.T) {
	c := rhStartIn(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("T", "task", map[string]any{"description": "write the file", "prompt": "write"})}}),
		rhLine(map[string]any{"tool_calls": []any{rhCall("w", "write", map[string]any{"file_path": "a.txt", "content": rhTwoHunks()})}}),
		rhLine(map[string]any{"text": "child done"}),
		rhLine(map[string]any{"text": "done"}),
	})
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte(rhLines(20)), 0o644)
	c.init(map[string]any{"subagents": map[string]any{}})
	sid := c.newSession()
	var askSession string
	var askMeta string
	ask := rhAllowHunks("allow_once", "[1]")
	c.setAsk(func(p json.RawMessage) any {
		var q struct {
			SessionID string          `json:"sessionId"`
			Meta      json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(p, &q)
		askSession, askMeta = q.SessionID, string(q.Meta)
		return ask(p)
	})
	c.prompt(sid, "go", nil)
	want := strings.Replace(rhLines(20), "line18\n", "CHANGED18\n", 1)
	if got := rhRead(t, filepath.Join(c.ws, "a.txt")); got != want {
		t.Errorf("file = %q", got)
	}
	if askSession == sid || askSession == "" {
		t.Errorf("the child's permission request is on %q (parent %q)", askSession, sid)
	}
	if !strings.Contains(askMeta, `"hunks":2`) {
		t.Errorf("the child's request's _meta = %s", askMeta)
	}
}

// A Code Mode sub-call's write, approved in part.
func TestRedHunksCodeModePartialApproval(t *testing.T) {
	code := "await tools.write({file_path: \"a.txt\", content: " + string(rhMust(json.Marshal(rhTwoHunks()))) + "}); return 1"
	c := rhStartIn(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("R", "run_code", map[string]any{"code": code, "description": "write the file now"})}}),
		rhLine(map[string]any{"text": "done"}),
	})
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte(rhLines(20)), 0o644)
	c.init(nil)
	sid := c.newSession()
	if r := c.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "tools_mode", "value": "code"}); r.Error != nil {
		t.Fatalf("set tools_mode: %+v", r.Error)
	}
	var askMeta string
	ask := rhAllowHunks("allow_once", "[1]")
	c.setAsk(func(p json.RawMessage) any {
		var q struct {
			Meta json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(p, &q)
		askMeta = string(q.Meta)
		return ask(p)
	})
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	want := strings.Replace(rhLines(20), "line18\n", "CHANGED18\n", 1)
	if got := rhRead(t, filepath.Join(c.ws, "a.txt")); got != want {
		st, text := rhResultText(c.updatesSince(n), "R:code:1")
		t.Errorf("file = %q; sub-call %s %s; ask meta %s", got, st, text, askMeta)
	}
}

// rhMust is b, or a panic.
func rhMust(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Files of other shapes, one hunk of two accepted.
func TestRedHunksShapes(t *testing.T) {
	lines := func(n int, eol string, last bool) string {
		s := strings.ReplaceAll(rhLines(n), "\n", eol)
		if !last {
			s = strings.TrimSuffix(s, eol)
		}
		return s
	}
	for _, tc := range []struct {
		name, before, after, want string
		hunks                     string
	}{
		{"crlf", lines(20, "\r\n", true), strings.Replace(strings.Replace(lines(20, "\r\n", true), "line02", "X02", 1), "line18", "X18", 1),
			strings.Replace(lines(20, "\r\n", true), "line18", "X18", 1), "[1]"},
		{"no final newline, last line changed", lines(20, "\n", false), strings.Replace(strings.Replace(lines(20, "\n", false), "line02", "X02", 1), "line20", "X20\nadded", 1),
			strings.Replace(lines(20, "\n", false), "line02", "X02", 1), "[0]"},
		{"no final newline, last accepted", lines(20, "\n", false), strings.Replace(strings.Replace(lines(20, "\n", false), "line02", "X02", 1), "line20", "X20\nadded", 1),
			strings.Replace(lines(20, "\n", false), "line20", "X20\nadded", 1), "[1]"},
		{"final newline added", lines(20, "\n", false), strings.Replace(lines(20, "\n", true), "line02", "X02", 1),
			strings.Replace(lines(20, "\n", false), "line02", "X02", 1), "[0]"},
		{"hunks just apart", rhLines(20), strings.Replace(strings.Replace(rhLines(20), "line05", "X05", 1), "line13", "X13", 1),
			strings.Replace(rhLines(20), "line13", "X13", 1), "[1]"},
		{"empty file", "", "new\n", "", "[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rhStartIn(t, []string{
				rhLine(map[string]any{"tool_calls": []any{rhCall("w1", "write", map[string]any{"file_path": "a.txt", "content": tc.after})}}),
				rhLine(map[string]any{"text": "done"}),
			})
			os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte(tc.before), 0o644)
			c.init(nil)
			sid := c.newSession()
			var askMeta string
			ask := rhAllowHunks("allow_once", tc.hunks)
			c.setAsk(func(p json.RawMessage) any {
				var q struct {
					Meta json.RawMessage `json:"_meta"`
				}
				json.Unmarshal(p, &q)
				askMeta = string(q.Meta)
				return ask(p)
			})
			n := c.nUpdates()
			c.prompt(sid, "go", nil)
			want := tc.want
			if tc.name == "empty file" {
				want = "new\n"
			}
			if got := rhRead(t, filepath.Join(c.ws, "a.txt")); got != want {
				st, text := rhResultText(c.updatesSince(n), "w1")
				t.Errorf("file = %q, want %q; call %s %s; ask meta %s", got, want, st, text, askMeta)
			}
		})
	}
}
