package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rhLines is a file of n numbered lines.
func rhLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line%02d\n", i)
	}
	return b.String()
}

// rhTwoHunks is rhLines(20) with lines 2 and 18 changed: two hunks.
func rhTwoHunks() string {
	return strings.Replace(strings.Replace(rhLines(20), "line02\n", "CHANGED02\n", 1), "line18\n", "CHANGED18\n", 1)
}

// rhBadSelection runs one write of two hunks answered with opt and
// _meta.dsh.hunks raw, and checks that nothing was written and the call
// did not complete.
func rhBadSelection(t *testing.T, opt, raw string) {
	c := rhStart(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("w1", "write", map[string]any{"file_path": "a.txt", "content": rhTwoHunks()})}}),
		rhLine(map[string]any{"text": "done"}),
	})
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte(rhLines(20)), 0o644)
	c.init(nil)
	sid := c.newSession()
	c.setAsk(rhAllowHunks(opt, raw))
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	if got := rhRead(t, filepath.Join(c.ws, "a.txt")); got != rhLines(20) {
		t.Errorf("_meta.dsh.hunks %s with %s: the file was written:\n%s", raw, opt, got)
	}
	if st, text := rhResultText(c.updatesSince(n), "w1"); st != "failed" {
		t.Errorf("_meta.dsh.hunks %s with %s: the call ended %q (%q), want failed", raw, opt, st, text)
	}
}

// Finding (wrong): a null inside _meta.dsh.hunks is taken as hunk 0
// (encoding/json leaves an int untouched on null), so [null] applies hunk
// 0 and [1,null] the whole change, where docs/meta-dsh.md says a value
// that is not a list of integers refuses the call with nothing written.
func TestRedHunksNullIndexRefused(t *testing.T) {
	for _, raw := range []string{`[null]`, `[1,null]`} {
		t.Run(raw, func(t *testing.T) { rhBadSelection(t, "allow_once", raw) })
	}
}

// Finding (wrong): a write or edit whose file_path is absolute but not
// clean (ws + "/./a.txt") can never be approved in part: the selection's
// path is the card's (views.Env.abs does not clean an absolute path), the
// tool's is workspace.Abs (cleaned), and applySelection refuses the
// mismatch with FS_STALE_VERSION although nothing changed.
func TestRedHunksAbsolutePathNotClean(t *testing.T) {
	// the script names the file by an absolute path with a "./" in it
	c := rhStartWith(t, func(ws string) []string {
		return []string{
			rhLine(map[string]any{"tool_calls": []any{rhCall("w1", "write", map[string]any{"file_path": ws + "/./a.txt", "content": rhTwoHunks()})}}),
			rhLine(map[string]any{"text": "done"}),
		}
	})
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte(rhLines(20)), 0o644)
	c.init(nil)
	sid := c.newSession()
	c.setAsk(rhAllowHunks("allow_once", "[1]"))
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	want := strings.Replace(rhLines(20), "line18\n", "CHANGED18\n", 1)
	if got := rhRead(t, filepath.Join(c.ws, "a.txt")); got != want {
		st, text := rhResultText(c.updatesSince(n), "w1")
		t.Errorf("file = %q, want hunk 1 applied; call %s: %s", got, st, text)
	}
}

// Finding (wrong): a child's calls get the editor ids <task>:task:<n>,
// which the session's cardIDs never claims, so a parent call the model
// names "T:task:1" keeps that id and its card (on the parent, where a
// client without subagents sees the child's cards) overwrites the
// child's: two tool_call announcements with one toolCallId.
func TestRedHunksCardIDChildCollision(t *testing.T) {
	for _, sub := range []bool{false, true} {
		name := "nested"
		if sub {
			name = "subagents"
		}
		t.Run(name, func(t *testing.T) {
			c := rhStartIn(t, []string{
				rhLine(map[string]any{"tool_calls": []any{rhCall("T", "task", map[string]any{"description": "read the file", "prompt": "read a.txt"})}}),
				rhLine(map[string]any{"tool_calls": []any{rhCall("c", "read", map[string]any{"file_path": "a.txt"})}}),
				rhLine(map[string]any{"text": "child done"}),
				rhLine(map[string]any{"tool_calls": []any{rhCall("T:task:1", "read", map[string]any{"file_path": "b.txt"})}}),
				rhLine(map[string]any{"text": "done"}),
			})
			os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte("aaa\n"), 0o644)
			os.WriteFile(filepath.Join(c.ws, "b.txt"), []byte("bbb\n"), 0o644)
			caps := map[string]any{}
			if sub {
				caps["subagents"] = map[string]any{}
			}
			c.init(caps)
			sid := c.newSession()
			n := c.nUpdates()
			c.prompt(sid, "go", nil)
			var ids []string
			for _, u := range c.updatesSince(n) {
				if u.Kind == "tool_call" {
					ids = append(ids, u.SessionID[:4]+"/"+u.CallID)
				}
			}
			seen := map[string]int{}
			for _, u := range c.updatesSince(n) {
				if u.Kind == "tool_call" {
					seen[u.CallID]++
				}
			}
			for id, k := range seen {
				if k > 1 {
					t.Errorf("card id %q announced %d times (cards %v)", id, k, ids)
				}
			}
			rhSameCardsOnLoad(t, c, sid, n)
		})
	}
}

// rhSameCardsOnLoad checks that a load of session sid (closed first)
// announces the cards its prompts did since update n, with the same ids,
// in the same order.
func rhSameCardsOnLoad(t *testing.T, c *rhClient, sid string, n int) {
	t.Helper()
	cards := func(from int) []string {
		var ids []string
		for _, u := range c.updatesSince(from) {
			if u.Kind == "tool_call" {
				ids = append(ids, u.CallID)
			}
		}
		return ids
	}
	live := cards(n)
	if r := c.call("session/close", map[string]any{"sessionId": sid}); r.Error != nil {
		t.Fatalf("session/close: %+v", r.Error)
	}
	m := c.nUpdates()
	if r := c.call("session/load", map[string]any{"sessionId": sid, "cwd": c.ws, "mcpServers": []any{}}); r.Error != nil {
		t.Fatalf("session/load: %+v", r.Error)
	}
	if got := cards(m); strings.Join(got, " ") != strings.Join(live, " ") {
		t.Errorf("the load announced the cards %v, live %v", got, live)
	}
}

// Finding (wrong): likewise a Code Mode sub-call's id <run_code>:code:<n>
// is not claimed: a later call the model names "R:code:1" takes the
// sub-call's card id.
func TestRedHunksCardIDCodeModeCollision(t *testing.T) {
	c := rhStartIn(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("R", "run_code", map[string]any{"code": `return (await tools.read({file_path: "a.txt"})).content`, "description": "read the file a.txt"})}}),
		rhLine(map[string]any{"tool_calls": []any{rhCall("R:code:1", "run_code", map[string]any{"code": `return 1`, "description": "return one and stop"})}}),
		rhLine(map[string]any{"text": "done"}),
	})
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte("aaa\n"), 0o644)
	c.init(nil)
	sid := c.newSession()
	if r := c.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "tools_mode", "value": "code"}); r.Error != nil {
		t.Fatalf("set tools_mode: %+v", r.Error)
	}
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	seen := map[string]int{}
	var ids []string
	for _, u := range c.updatesSince(n) {
		if u.Kind == "tool_call" {
			seen[u.CallID]++
			ids = append(ids, u.CallID)
		}
	}
	for id, k := range seen {
		if k > 1 {
			t.Errorf("card id %q announced %d times (cards %v)", id, k, ids)
		}
	}
	rhSameCardsOnLoad(t, c, sid, n)
}

// Finding (wrong): forking at the messageId of a child's answer (sent
// to a subagents client on the child's session, and logged in the
// parent's turn) passes forkAtMessage's turnOf check but matches no user
// or assistant event: cut stays -1 and the handler panics (makeslice),
// answering -32603 instead of the documented -32602 for a foreign id.
func TestRedHunksForkAtChildMessage(t *testing.T) {
	c := rhStartIn(t, []string{
		rhLine(map[string]any{"tool_calls": []any{rhCall("T", "task", map[string]any{"description": "say hi", "prompt": "say hi"})}}),
		rhLine(map[string]any{"text": "child answer"}),
		rhLine(map[string]any{"text": "done"}),
	})
	c.init(map[string]any{"subagents": map[string]any{}})
	sid := c.newSession()
	n := c.nUpdates()
	c.prompt(sid, "go", nil)
	var childMsg string
	for _, u := range c.updatesSince(n) {
		if u.SessionID != sid && u.Kind == "agent_message_chunk" {
			var p struct {
				Update struct {
					MessageID string `json:"messageId"`
				} `json:"update"`
			}
			json.Unmarshal(u.Raw, &p)
			childMsg = p.Update.MessageID
		}
	}
	if childMsg == "" {
		t.Fatal("the child's answer carried no messageId")
	}
	r := c.call("session/fork", map[string]any{"sessionId": sid, "messageId": childMsg, "cwd": c.ws, "mcpServers": []any{}})
	if r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("session/fork at the child's message %q: %s %+v, want -32602", childMsg, r.Result, r.Error)
	}
}

// Finding (wrong): a client's messageId is kept as sent, so after a
// rewind a new prompt may carry the id of a rewound message. forkAtMessage
// checks the id against the current history but cuts at the first event
// with that id in the whole log: the fork holds the rewound message
// ("first") instead of the current one ("third").
//
// Since the rewind fix, a prompt whose messageId a message of the log had
// (rewound ones included) runs under a new id, which its answer's
// _meta.dsh.userMessageId names (docs/meta-dsh.md, "Message ids"): m1
// names only the rewound message, so a fork at m1 is -32602, and the
// fork at the id the answer named holds "third". (The red team's test
// forked at m1 and wanted "third", which the docs no longer promise; a
// log that holds an id twice, written before the fix, is pinned by
// TestForkAtMessageCut.)
func TestRedHunksForkAfterRewindReusedMessageID(t *testing.T) {
	c := rhStartIn(t, []string{
		rhLine(map[string]any{"text": "a1"}),
		rhLine(map[string]any{"text": "a2"}),
		rhLine(map[string]any{"text": "a3"}),
	})
	c.init(nil)
	sid := c.newSession()
	c.prompt(sid, "first", map[string]any{"messageId": "m1"})
	c.prompt(sid, "second", map[string]any{"messageId": "m2"})
	if r := c.call("_dsh/session/rewind", map[string]any{"sessionId": sid, "toMessageId": "m1"}); r.Error != nil {
		t.Fatalf("rewind: %+v", r.Error)
	}
	third := c.prompt(sid, "third", map[string]any{"messageId": "m1"})
	var answer struct {
		Meta struct {
			Dsh struct {
				UserMessageID string `json:"userMessageId"`
			} `json:"dsh"`
		} `json:"_meta"`
	}
	json.Unmarshal(third.Result, &answer)
	thirdID := answer.Meta.Dsh.UserMessageID
	if thirdID == "" || thirdID == "m1" {
		t.Fatalf("the prompt reusing the rewound id m1 runs under %q, want a new id", thirdID)
	}
	if r := c.call("session/fork", map[string]any{"sessionId": sid, "messageId": "m1", "cwd": c.ws, "mcpServers": []any{}}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("session/fork at the rewound m1: %s %+v, want -32602", r.Result, r.Error)
	}
	r := c.call("session/fork", map[string]any{"sessionId": sid, "messageId": thirdID, "cwd": c.ws, "mcpServers": []any{}})
	if r.Error != nil {
		t.Fatalf("fork: %+v", r.Error)
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(r.Result, &res)
	// The fork's history, as a load replays it (its log, a copy of the
	// parent's, keeps the rewound turns and the rewind, as a whole fork's).
	if r := c.call("session/close", map[string]any{"sessionId": res.SessionID}); r.Error != nil {
		t.Fatalf("session/close of the fork: %+v", r.Error)
	}
	n := c.nUpdates()
	if r := c.call("session/load", map[string]any{"sessionId": res.SessionID, "cwd": c.ws, "mcpServers": []any{}}); r.Error != nil {
		t.Fatalf("session/load of the fork: %+v", r.Error)
	}
	var users []string
	for _, u := range c.updatesSince(n) {
		if u.SessionID == res.SessionID && u.Kind == "user_message_chunk" {
			var p struct {
				Update struct {
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			}
			json.Unmarshal(u.Raw, &p)
			users = append(users, p.Update.Content.Text)
		}
	}
	if strings.Join(users, "|") != "third" {
		t.Errorf("the fork at %s (the current history's message \"third\") holds the user messages %q", thirdID, users)
	}
}
