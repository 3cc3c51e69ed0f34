package bridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model that gives every call the id call_0 (some OpenAI-compatible
// servers do), twice in one answer and again in the next turn, gets a
// card of its own for each call, with its own result; the model's
// history keeps call_0 as sent; a load shows the same cards.
func TestCardIDs_ReusedModelIDsGetCardsOfTheirOwn(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	for _, f := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(dir, f+".txt"), []byte("content of "+f+"\n"), 0o644)
	}
	m := newFakeModel(t,
		fakeTurn{calls: []fakeCall{{"call_0", "read", args("file_path", "a.txt")}, {"call_0", "read", args("file_path", "b.txt")}}},
		fakeTurn{text: "Read two."},
		fakeTurn{calls: []fakeCall{{"call_0", "read", args("file_path", "c.txt")}}},
		fakeTurn{text: "Read one more."})
	first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	first.initialize(nil)
	s := first.newSession(dir)
	first.prompt(s, "read a and b")
	first.prompt(s, "read c")

	ids := map[string]string{} // card id → the file its result shows
	var order []string
	for _, u := range first.decodedUpdates() {
		if u.SessionUpdate == "tool_call" {
			if _, dup := ids[u.ToolCallID]; dup {
				t.Errorf("card %q announced twice", u.ToolCallID)
			}
			ids[u.ToolCallID] = ""
			order = append(order, u.ToolCallID)
		}
		if u.SessionUpdate == "tool_call_update" && u.Status == "completed" {
			for _, f := range []string{"a", "b", "c"} {
				if strings.Contains(string(u.Content), "content of "+f) {
					if ids[u.ToolCallID] != "" {
						t.Errorf("card %q got a second result (%s after %s)", u.ToolCallID, f, ids[u.ToolCallID])
					}
					ids[u.ToolCallID] = f
				}
			}
		}
	}
	if len(order) != 3 {
		t.Fatalf("cards %v, want three", order)
	}
	for i, f := range []string{"a", "b", "c"} {
		if ids[order[i]] != f {
			t.Errorf("card %d (%q) shows %q, want %s.txt's result", i, order[i], ids[order[i]], f)
		}
	}
	if order[0] != "call_0" {
		t.Errorf("the first call's card id is %q, want the model's call_0", order[0])
	}

	// The model reads its own ids back: every call and result is call_0.
	reqs := m.recorded()
	last := reqs[len(reqs)-1]
	var results []string
	for _, msg := range last.Messages {
		for _, tc := range msg.ToolCalls {
			if tc.ID != "call_0" {
				t.Errorf("the history holds call id %q, want the model's call_0", tc.ID)
			}
		}
		if msg.Role == "tool" {
			results = append(results, msg.ToolCallID)
		}
	}
	if strings.Join(results, ",") != "call_0,call_0,call_0" {
		t.Errorf("the history's results name %v, want call_0 three times", results)
	}
	live := cardsOf(first)
	first.close()

	second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	second.initialize(nil)
	if _, rerr := second.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); rerr != nil {
		t.Fatalf("session/load: %+v", rerr)
	}
	replayed := cardsOf(second)
	if len(replayed) != len(live) {
		t.Errorf("replayed %d card entries, live %d:\n%v\n%v", len(replayed), len(live), replayed, live)
	}
	for k, v := range live {
		if replayed[k] != v {
			t.Errorf("%s differs after replay:\n live   %s\n replay %s", k, v, replayed[k])
		}
	}

	// After the load, a reused id still gets a new card, and the restored
	// history still names the model's ids.
	m.add(fakeTurn{calls: []fakeCall{{"call_0", "read", args("file_path", "a.txt")}}}, fakeTurn{text: "Again."})
	second.prompt(s, "read a again")
	n := 0
	for _, u := range second.decodedUpdates() {
		if u.SessionUpdate == "tool_call" {
			n++
			if _, old := ids[u.ToolCallID]; old && n > 3 {
				t.Errorf("the call after the load took the logged card id %q", u.ToolCallID)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d tool_call announcements after the load, want 3 replayed and 1 new", n)
	}
	reqs = m.recorded()
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.Role == "tool" && msg.ToolCallID != "call_0" {
			t.Errorf("the restored history names result %q, want call_0", msg.ToolCallID)
		}
	}
}
