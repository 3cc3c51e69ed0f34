package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pendingCard is what a pending tool_call (or a permission request's
// toolCall) says of a file change.
type pendingCard struct {
	Content []struct {
		Type    string  `json:"type"`
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"content"`
	Meta struct {
		Dsh struct {
			Changes []struct {
				Path  string `json:"path"`
				Hunks []struct {
					OldStart, OldLines, NewStart, NewLines int
					Lines                                  []struct{ Op, Text string }
				} `json:"hunks"`
			} `json:"changes"`
		} `json:"dsh"`
	} `json:"_meta"`
}

func decodeCard(t *testing.T, raw json.RawMessage) pendingCard {
	t.Helper()
	var c pendingCard
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("card: %v: %s", err, raw)
	}
	return c
}

// pendingOf is the tool_call update of call id.
func pendingOf(t *testing.T, e *editor, id string) pendingCard {
	t.Helper()
	for _, u := range e.toolUpdates(id) {
		if u.SessionUpdate == "tool_call" {
			return decodeCard(t, u.Raw)
		}
	}
	t.Fatalf("no tool_call for %s", id)
	return pendingCard{}
}

// numbered is lines "l1\n" … "ln\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	return b.String()
}

// hunkText is a change's first hunk as "@@ -a,b +c,d @@" and its lines.
func hunkText(c pendingCard) string {
	if len(c.Meta.Dsh.Changes) == 0 || len(c.Meta.Dsh.Changes[0].Hunks) == 0 {
		return "(no hunks)"
	}
	h := c.Meta.Dsh.Changes[0].Hunks[0]
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	for _, l := range h.Lines {
		b.WriteString(l.Op + l.Text)
	}
	return b.String()
}

func allow(json.RawMessage) any {
	return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
}

// TestBridge_PendingDiffIsTheFiles: while a call waits for approval, its
// card and the permission request show the change against the file as it
// is, at the file's line numbers with context, and a ACP diff content of
// the whole file; a write over an existing file likewise.
func TestBridge_PendingDiffIsTheFiles(t *testing.T) {
	edit := fakeCall{"e", "edit", args("file_path", "a.go", "old_string", "l12\nl13\n", "new_string", "L12\n")}
	write := fakeCall{"w", "write", args("file_path", "b.txt", "content", "one\nTWO\nthree\n")}
	h := setup(t, cardCaps(), fakeTurn{calls: []fakeCall{edit}}, fakeTurn{calls: []fakeCall{write}}, fakeTurn{text: "ok"})
	file := numbered(20)
	h.file("a.go", file)
	h.file("b.txt", "one\ntwo\nthree\n")
	asked := map[string]pendingCard{}
	h.onPermission = func(p json.RawMessage) any {
		var r struct {
			ToolCall json.RawMessage `json:"toolCall"`
		}
		json.Unmarshal(p, &r)
		var id struct {
			ToolCallID string `json:"toolCallId"`
		}
		json.Unmarshal(r.ToolCall, &id)
		asked[id.ToolCallID] = decodeCard(t, r.ToolCall)
		return allow(p)
	}
	h.prompt(h.session, "edit and write")

	wantEdit := "@@ -9,8 +9,7 @@\n l9\n l10\n l11\n-l12\n-l13\n+L12\n l14\n l15\n l16\n"
	wantWrite := "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
	for _, tc := range []struct {
		name, id, tool, hunk, old, new string
	}{
		{"edit", "e", "edit", wantEdit, file, strings.Replace(file, "l12\nl13\n", "L12\n", 1)},
		{"write over a file", "w", "write", wantWrite, "one\ntwo\nthree\n", "one\nTWO\nthree\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for where, c := range map[string]pendingCard{"tool_call": pendingOf(t, h.editor, tc.id), "permission request": asked[tc.id]} {
				if got := hunkText(c); got != tc.hunk {
					t.Errorf("%s hunk:\n%s\nwant:\n%s", where, got, tc.hunk)
				}
				items := 1
				if where == "permission request" {
					items = 2 // and what "always" remembers
				}
				if len(c.Content) != items || c.Content[0].Type != "diff" || c.Content[0].OldText == nil ||
					*c.Content[0].OldText != tc.old || c.Content[0].NewText != tc.new {
					t.Errorf("%s diff content is not the whole file: %+v", where, c.Content)
				}
				if want := `"Always" remembers, for this session: every ` + tc.tool + ` call.`; items == 2 && c.Content[1].Content.Text != want {
					t.Errorf("%s says %q, want %q", where, c.Content[1].Content.Text, want)
				}
			}
		})
	}
	if got := h.content("a.go"); got != strings.Replace(file, "l12\nl13\n", "L12\n", 1) {
		t.Errorf("a.go after approval = %q", got)
	}
}

// TestBridge_PendingDiffNeverReadsWhatItMayNot: a path outside the
// workspace, or one a read rule denies, is never read to show a diff: its
// card is the arguments' snippet.
func TestBridge_PendingDiffNeverReadsWhatItMayNot(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(outside, "x.txt")
	os.WriteFile(target, []byte("zero\none\n"), 0o644)
	calls := []fakeCall{
		{"out", "edit", args("file_path", target, "old_string", "one", "new_string", "two")},
		{"denied", "edit", args("file_path", "secrets/k.txt", "old_string", "one", "new_string", "two")},
		{"link", "edit", args("file_path", "link.txt", "old_string", "one", "new_string", "two")},
	}
	h := setupWorkspace(t, "", `{"trustedWorkspaces":["WORKSPACE"],"permissions":{"deny":["read(secrets/**)"]}}`, cardCaps(),
		fakeTurn{calls: calls}, fakeTurn{text: "ok"})
	h.file("secrets/k.txt", "zero\none\n")
	os.Symlink(target, filepath.Join(h.dir, "link.txt"))
	h.onPermission = func(json.RawMessage) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "reject_once"}}
	}
	h.prompt(h.session, "edit them")
	for _, id := range []string{"out", "denied", "link"} {
		t.Run(id, func(t *testing.T) {
			c := pendingOf(t, h.editor, id)
			if len(c.Content) != 1 || c.Content[0].OldText == nil || *c.Content[0].OldText != "one" || c.Content[0].NewText != "two" {
				t.Errorf("want the snippet card, got %+v", c.Content)
			}
			if got := hunkText(c); got != "@@ -1,1 +1,1 @@\n-one+two" {
				t.Errorf("hunk %q", got)
			}
		})
	}
}

// TestBridge_EditChangedBeforeApproval: a file that changes while the
// person decides is edited as it is then; an edit that no longer applies
// fails cleanly and leaves the file as it was changed.
func TestBridge_EditChangedBeforeApproval(t *testing.T) {
	for _, tc := range []struct {
		name, changed, want, message string
	}{
		{"still applies", "new top\nl1\nl2\nl3\n", "new top\nl1\nL2\nl3\n", "has been updated"},
		{"no longer applies", "l1\nX2\nl3\n", "l1\nX2\nl3\n", "old_string was not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, cardCaps(), fakeTurn{calls: []fakeCall{{"e", "edit", args("file_path", "a.txt", "old_string", "l2\n", "new_string", "L2\n")}}}, fakeTurn{text: "ok"})
			h.file("a.txt", "l1\nl2\nl3\n")
			h.onPermission = func(p json.RawMessage) any {
				h.file("a.txt", tc.changed)
				return allow(p)
			}
			h.prompt(h.session, "edit")
			if got := h.content("a.txt"); got != tc.want {
				t.Errorf("a.txt = %q, want %q", got, tc.want)
			}
			if got := h.toolMessages(1)["e"]; !strings.Contains(got, tc.message) {
				t.Errorf("the model got %q, want %q", got, tc.message)
			}
		})
	}
}

// TestBridge_PendingDiffReplaysFromTheLog: session/load shows a pending
// edit's card from its arguments alone (the file as it was when it was
// announced is not in the log), so replay is the same whatever the file
// holds now; the completed card is the applied change, as it was live.
func TestBridge_PendingDiffReplaysFromTheLog(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(numbered(10)), 0o644)
	m := newFakeModel(t, fakeTurn{calls: []fakeCall{{"e", "edit", args("file_path", "a.txt", "old_string", "l5\n", "new_string", "L5\n")}}}, fakeTurn{text: "ok"})
	first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	first.onPermission = allow
	first.initialize(cardCaps())
	s := first.newSession(dir)
	first.prompt(s, "edit")
	if got := hunkText(pendingOf(t, first, "e")); !strings.HasPrefix(got, "@@ -2,7 +2,7 @@\n") {
		t.Fatalf("live pending hunk %q", got)
	}
	live := cardsOf(first)
	first.close()

	var replays []map[string]string
	for _, content := range []string{"changed since\n", numbered(10)} {
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte(content), 0o644)
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		e.initialize(cardCaps())
		if _, rerr := e.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); rerr != nil {
			t.Fatalf("session/load: %+v", rerr)
		}
		if got := hunkText(pendingOf(t, e, "e")); got != "@@ -1,1 +1,1 @@\n-l5\n+L5\n" {
			t.Errorf("replayed pending hunk %q, want the arguments' snippet", got)
		}
		replays = append(replays, cardsOf(e))
		e.close()
	}
	if fmt.Sprint(replays[0]) != fmt.Sprint(replays[1]) {
		t.Errorf("replay depends on the file:\n%v\n%v", replays[0], replays[1])
	}
	if replays[0]["e/result"] != live["e/result"] {
		t.Errorf("completed card differs after replay:\n live %s\n replay %s", live["e/result"], replays[0]["e/result"])
	}
}
