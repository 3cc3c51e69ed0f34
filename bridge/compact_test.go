package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compactions returns the compaction_update payloads.
func compactions(e *editor) []map[string]any {
	var out []map[string]any
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "compaction_update" {
			var m map[string]any
			json.Unmarshal(u.Raw, &m)
			out = append(out, m)
		}
	}
	return out
}

// bigFile writes a file of about n bytes of numbered lines.
func bigFile(t *testing.T, dir, name string, n int) {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %05d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
}

// TestLiveModel_Compaction: a session pushed past 80 % of a small window
// compacts before the request that would not fit, announces it, and the
// next request fits; session/load rebuilds the compacted history.
func TestLiveModel_Compaction(t *testing.T) {
	const window = 13_000 // tokens; the fake counts 4 bytes to a token
	caps := map[string]any{"session": map[string]any{"compaction": map[string]any{}}}
	big := strings.Repeat("Please keep this requirement in mind. ", 500) // ~19 KB
	for _, tc := range []struct {
		name         string
		fakeWindow   int    // the API's real window (default window)
		settings     string // the user's window for deepseek-v4-flash
		turns        []fakeTurn
		prompts      []string
		wantSummary  string
		wantInResult string
	}{
		{"old tool results become placeholders", 0, fmt.Sprintf(`{"models":{"deepseek-v4-flash":{"contextWindow":%d}}}`, window),
			[]fakeTurn{{calls: []fakeCall{{"r1", "read", args("file_path", "big.txt")}}}, {text: "read once"},
				{calls: []fakeCall{{"r2", "read", args("file_path", "big.txt")}}}, {text: "read twice"}},
			[]string{"read big.txt", "read it again"}, "Replaced 1 old tool results", "The result of this tool call was removed to save context: read("},
		{"old turns are summarised", 0, fmt.Sprintf(`{"models":{"deepseek-v4-flash":{"contextWindow":%d}}}`, window),
			[]fakeTurn{{text: "noted"}, {text: "noted again"}},
			[]string{big, big}, "SUMMARY OF THE FIRST TURN", "Summary of the earlier part of this conversation"},
		{"a too-long refusal compacts and retries", 9_000, `{"models":{"deepseek-v4-flash":{"contextWindow":100000}}}`,
			[]fakeTurn{{text: "noted"}, {text: "noted again"}},
			[]string{big, big}, "SUMMARY OF THE FIRST TURN", "Summary of the earlier part of this conversation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newLiveWorld(t, tc.settings, tc.turns...)
			w.model.window = window
			if tc.fakeWindow > 0 {
				w.model.window = tc.fakeWindow
			}
			w.model.summary = "SUMMARY OF THE FIRST TURN"
			bigFile(t, w.dir, "big.txt", 16_000)
			e := w.editor(caps)
			s := e.newSession(w.dir)
			for _, p := range tc.prompts {
				if stop := e.prompt(s, p); stop != "end_turn" {
					t.Fatalf("stop %q", stop)
				}
			}
			if txt := e.agentText(); strings.Contains(txt, "[model error]") {
				t.Fatalf("a request failed: %q", txt)
			}
			w.model.mu.Lock()
			refused := w.model.refused
			w.model.mu.Unlock()
			if wantRefused := tc.fakeWindow > 0; (refused > 0) != wantRefused {
				t.Errorf("%d requests refused as too long; compaction must come before the request that would not fit", refused)
			}
			cs := compactions(e)
			if len(cs) != 2 || cs[0]["status"] != "in_progress" || cs[1]["status"] != "completed" || cs[0]["compactionId"] != cs[1]["compactionId"] {
				t.Fatalf("compaction updates %v", cs)
			}
			if sum, _ := json.Marshal(cs[1]["summary"]); !strings.Contains(string(sum), tc.wantSummary) {
				t.Errorf("summary %s lacks %q", sum, tc.wantSummary)
			}
			bodies := w.model.rawBodies()
			last := bodies[len(bodies)-1]
			if len(last)/4 > window || !bytes.Contains(last, []byte(tc.wantInResult)) {
				t.Errorf("the last request (%d tokens) does not fit or was not compacted: %.300s", len(last)/4, last)
			}
			e.close()

			w.model.add(fakeTurn{text: "after load"})
			e2 := w.editor(caps)
			w.load(e2, s)
			if len(compactions(e2)) != 1 {
				t.Errorf("the replay does not show the compaction: %v", compactions(e2))
			}
			e2.prompt(s, "go on")
			bodies = w.model.rawBodies()
			if !bytes.HasPrefix(bodies[len(bodies)-1], messagesPrefix(last)) {
				t.Errorf("session/load did not rebuild the compacted history:\n live %.400s\n load %.400s", messagesPrefix(last), bodies[len(bodies)-1])
			}
		})
	}
	t.Run("without the capability a notice says so", func(t *testing.T) {
		w := newLiveWorld(t, fmt.Sprintf(`{"models":{"deepseek-v4-flash":{"contextWindow":%d}}}`, window), fakeTurn{text: "a"}, fakeTurn{text: "b"})
		w.model.window = window
		w.model.summary = "SUMMARY"
		e := w.editor(nil)
		s := e.newSession(w.dir)
		e.prompt(s, big)
		e.prompt(s, big)
		found := false
		for _, u := range e.decodedUpdates() {
			found = found || (u.SessionUpdate == "notice" && strings.Contains(u.Title, "compacted"))
			if u.SessionUpdate == "compaction_update" {
				t.Errorf("compaction_update sent to a client that did not advertise it")
			}
		}
		if !found {
			t.Error("no notice of the compaction")
		}
	})
}

// TestLiveModel_BodyTooLarge: an endpoint that refuses a request's body
// as too large (HTTP 413, the openresty page api.deepseek.com and many
// relays send, before the body is read) gets the conversation compacted
// and the request once more; later requests are compacted to stay under
// that size before they are sent; and when nothing brings a request
// under it, the person reads what happened, not the page's markup.
func TestLiveModel_BodyTooLarge(t *testing.T) {
	caps := map[string]any{"session": map[string]any{"compaction": map[string]any{}}}
	big := strings.Repeat("Please keep this requirement in mind. ", 500) // ~19 KB
	t.Run("compacted, sent again, and kept under", func(t *testing.T) {
		w := newLiveWorld(t, "", fakeTurn{text: "noted"}, fakeTurn{text: "noted again"}, fakeTurn{text: "noted a third time"})
		w.model.summary = "SUMMARY OF THE FIRST TURN"
		e := w.editor(caps)
		s := e.newSession(w.dir)
		if stop := e.prompt(s, big); stop != "end_turn" {
			t.Fatalf("stop %q", stop)
		}
		first := len(w.model.rawBodies()[0])
		w.model.mu.Lock()
		w.model.maxBody = first + 8<<10 // the second prompt's request is larger
		w.model.mu.Unlock()
		for i, p := range []string{big, big} {
			if stop := e.prompt(s, p); stop != "end_turn" {
				t.Fatalf("prompt %d: stop %q", i+2, stop)
			}
		}
		if txt := e.agentText(); strings.Contains(txt, "[model error]") || !strings.Contains(txt, "noted a third time") {
			t.Fatalf("the answers: %q", txt)
		}
		if large := w.model.tooLarge(); large != 1 {
			t.Errorf("%d requests refused as too large, want 1: the third prompt's must be compacted before it is sent", large)
		}
		if cs := compactions(e); len(cs) < 2 || cs[1]["status"] != "completed" {
			t.Errorf("compaction updates %v", cs)
		}
		bodies := w.model.rawBodies()
		if last := bodies[len(bodies)-1]; len(last) > first+8<<10 || !bytes.Contains(last, []byte("Summary of the earlier part of this conversation")) {
			t.Errorf("the last request (%d bytes, the cap %d) is not the compacted conversation: %.200s", len(last), first+8<<10, last)
		}
		e.close()
	})
	t.Run("nothing brings it under", func(t *testing.T) {
		w := newLiveWorld(t, "", fakeTurn{text: "never"})
		w.model.maxBody = 1 << 10 // below the system prompt and the tools alone
		e := w.editor(caps)
		s := e.newSession(w.dir)
		if stop := e.prompt(s, "hello"); stop != "end_turn" {
			t.Fatalf("stop %q", stop)
		}
		txt := e.agentText()
		if !strings.Contains(txt, "[model error]") || !strings.Contains(txt, "HTTP 413") || !strings.Contains(txt, "413 Request Entity Too Large") ||
			strings.Contains(txt, "<") || strings.Contains(txt, "script") {
			t.Errorf("the person reads %q", txt)
		}
		if large := w.model.tooLarge(); large != 2 {
			t.Errorf("%d requests refused, want 2 (the request, then once more after compacting)", large)
		}
		e.close()
	})
}

// TestLiveModel_HugeToolResult: a result larger than the cap reaches the
// model truncated, with a note on how to read the rest.
func TestLiveModel_HugeToolResult(t *testing.T) {
	w := newLiveWorld(t, `{"compaction":{"maxToolResultBytes":20000}}`,
		fakeTurn{calls: []fakeCall{{"r1", "read", args("file_path", "big.txt")}}}, fakeTurn{text: "ok"})
	bigFile(t, w.dir, "big.txt", 60_000)
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "read it")
	reqs := w.model.recorded()
	var result string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			result = fmt.Sprint(m.Content)
		}
	}
	if len(result) > 21_000 || !strings.Contains(result, "bytes omitted here") || !strings.Contains(result, "offset and limit") || !strings.HasPrefix(result, "     1") && !strings.Contains(result[:200], "line 00000") {
		t.Errorf("result of %d bytes: %.200s … %.300s", len(result), result, result[len(result)/2:])
	}
}
