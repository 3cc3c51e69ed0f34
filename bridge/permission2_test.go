package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/store"
)

// TestBridge_PermissionOutcomes: each answer to session/request_permission
// has its own effect, seen by the model and on disk.
func TestBridge_PermissionOutcomes(t *testing.T) {
	edit := fakeTurn{calls: []fakeCall{{"e", "edit", args("file_path", "a.txt", "old_string", "one", "new_string", "two")}}}
	for _, tc := range []struct {
		name    string
		answer  any
		file    string
		message string
	}{
		{"allow once", map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}, "two\n", "has been updated"},
		{"reject once", map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "reject_once"}}, "one\n", `Error: the user rejected tool "edit"`},
		{"cancelled", map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, "one\n", `Error: approval for tool "edit" was cancelled`},
		{"an unknown option rejects", map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "maybe"}}, "one\n", `Error: the user rejected tool "edit"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, nil, edit, fakeTurn{text: "ok"})
			h.file("a.txt", "one\n")
			h.onPermission = func(json.RawMessage) any { return tc.answer }
			h.prompt(h.session, "edit")
			if got := h.content("a.txt"); got != tc.file {
				t.Errorf("a.txt = %q, want %q", got, tc.file)
			}
			if got := h.toolMessages(1)["e"]; !strings.Contains(got, tc.message) {
				t.Errorf("the model got %q, want %q", got, tc.message)
			}
		})
	}
}

// TestBridge_AlwaysAllowStaysInsideTheWorkspace: "always allow" for an
// edit inside the workspace never covers an edit outside it.
func TestBridge_AlwaysAllowStaysInsideTheWorkspace(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(outside, "x.txt")
	os.WriteFile(target, []byte("one\n"), 0o644)
	edit := func(id, path string) fakeTurn {
		return fakeTurn{calls: []fakeCall{{id, "edit", args("file_path", path, "old_string", "one", "new_string", "two")}}}
	}
	h := setup(t, nil, edit("in", "a.txt"), edit("out", target), fakeTurn{text: "ok"})
	h.file("a.txt", "one\n")
	answers := []string{"allow_always", "reject_once"}
	h.onPermission = func(json.RawMessage) any {
		opt := "reject_once"
		if n := h.permissionCount(); n-1 < len(answers) {
			opt = answers[n-1]
		}
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": opt}}
	}
	h.prompt(h.session, "edit inside, then outside")
	if n := h.permissionCount(); n != 2 {
		t.Errorf("asked %d times, want 2: the outside edit must ask although edits were always allowed", n)
	}
	if b, _ := os.ReadFile(target); string(b) != "one\n" || h.content("a.txt") != "two\n" {
		t.Errorf("outside %q, inside %q", b, h.content("a.txt"))
	}
}

// TestBridge_SessionListPages: more sessions than a page hold come back in
// pages linked by nextCursor, each session once.
func TestBridge_SessionListPages(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	st, _ := store.Open(state)
	for i := range 57 {
		l, err := st.Create(fmt.Sprintf("sess_page_%02d", i), store.Event{Cwd: dir})
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	e := startEditor(t, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		params := map[string]any{"cwd": dir}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := e.call("session/list", params)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Sessions   []struct{ SessionID string }
			NextCursor string
		}
		json.Unmarshal(res, &page)
		pages++
		for _, s := range page.Sessions {
			if seen[s.SessionID] {
				t.Errorf("%s listed twice", s.SessionID)
			}
			seen[s.SessionID] = true
		}
		if page.NextCursor == "" || pages > 5 {
			break
		}
		cursor = page.NextCursor
	}
	if pages != 2 || len(seen) != 57 {
		t.Errorf("%d pages, %d sessions; want 2 pages of 57 sessions", pages, len(seen))
	}
}

// TestBridge_ReadHeldToItsDecision: a read runs only on what its decision
// saw. While the person is asked about reading link.txt (which leads
// inside the workspace), a command beside the call points it at a file
// outside: the read is refused, and the outside file's text goes nowhere.
// A link that pointed outside when the decision was made (and so asked)
// is read once allowed.
func TestBridge_ReadHeldToItsDecision(t *testing.T) {
	outsideDir, _ := filepath.EvalSymlinks(t.TempDir())
	outside := filepath.Join(outsideDir, "notes.txt")
	os.WriteFile(outside, []byte("outsideSecret\n"), 0o644)
	read := fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", "link.txt")}}}
	for _, tc := range []struct {
		name      string
		before    string // the link's target when the call is decided: "inside" or "outside"
		swap      bool   // pointed outside while the person is asked
		want      string // in what the model reads
		wantFound bool   // the outside text reaches the model
	}{
		{"swapped outside while asked", "inside", true, "which this call was not judged on", false},
		{"outside when decided, and allowed", "outside", false, "outsideSecret", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An ask rule makes the inside read ask (rules judge the file a
			// link leads to): a moment between the decision and the read.
			h := setupWithSettings(t, `{"permissions":{"ask":["read(inside.txt)"]}}`, read, fakeTurn{text: "ok"})
			inside := h.file("inside.txt", "insideText\n")
			link := filepath.Join(h.dir, "link.txt")
			target := inside
			if tc.before == "outside" {
				target = outside
			}
			os.Symlink(target, link)
			h.onPermission = func(json.RawMessage) any {
				if tc.swap {
					os.Remove(link)
					os.Symlink(outside, link)
				}
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
			}
			h.prompt(h.session, "read")
			if n := h.permissionCount(); n != 1 {
				t.Fatalf("asked %d times, want once", n)
			}
			got := h.toolMessages(1)["r"]
			if !strings.Contains(got, tc.want) || strings.Contains(got, "outsideSecret") != tc.wantFound {
				t.Errorf("the model read %q, want %q", got, tc.want)
			}
			if !tc.wantFound {
				for _, u := range h.toolUpdates("r") {
					if strings.Contains(string(u.Raw), "outsideSecret") {
						t.Errorf("the outside text reached the editor: %s", u.Raw)
					}
				}
			}
		})
	}
}

// TestBridge_AllowedReadRunsAsJudged: a call the policy allows without
// asking carries the decision's judgement to its host: in
// bypassPermissions a read outside the workspace reads the file.
func TestBridge_AllowedReadRunsAsJudged(t *testing.T) {
	outsideDir, _ := filepath.EvalSymlinks(t.TempDir())
	outside := filepath.Join(outsideDir, "notes.txt")
	os.WriteFile(outside, []byte("outsideText\n"), 0o644)
	h := setup(t, nil, fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", outside)}}}, fakeTurn{text: "ok"})
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	h.prompt(h.session, "read")
	if n := h.permissionCount(); n != 0 {
		t.Errorf("asked %d times, want never", n)
	}
	if got := h.toolMessages(1)["r"]; !strings.Contains(got, "outsideText") {
		t.Errorf("the model read %q, want the outside file's text", got)
	}
}

// TestBridge_WriteHeldToItsDecision: while the person is asked about a
// write into d/, a command beside the call swaps d for a symlink to a
// directory outside the workspace: the write is refused, and nothing
// lands outside (before the decision's paths reached the host, the write
// followed the symlink out).
func TestBridge_WriteHeldToItsDecision(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	write := fakeTurn{calls: []fakeCall{{"w", "write", args("file_path", "d/x.txt", "content", "written\n")}}}
	h := setup(t, nil, write, fakeTurn{text: "ok"})
	h.file("d/keep.txt", "keep\n")
	d := filepath.Join(h.dir, "d")
	h.onPermission = func(json.RawMessage) any {
		os.Rename(d, d+".moved")
		os.Symlink(outside, d)
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
	}
	h.prompt(h.session, "write")
	if n := h.permissionCount(); n != 1 {
		t.Fatalf("asked %d times, want once", n)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("the write reached the directory outside: %v", entries)
	}
	if got := h.toolMessages(1)["w"]; !strings.Contains(got, "which this call was not judged on") {
		t.Errorf("the model read %q", got)
	}
}
