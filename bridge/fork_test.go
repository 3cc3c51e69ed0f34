package bridge_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestFork_FirstRequestKeepsTheParentsPrefix(t *testing.T) {
	state := t.TempDir()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	m := newFakeModel(t,
		fakeTurn{reasoning: "look", text: "Reading.", calls: []fakeCall{{"r1", "read", args("file_path", "a.txt")}}},
		fakeTurn{text: "It says alpha."})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	parent := e.newSession(dir)
	e.prompt(parent, "read a.txt")
	parentLog := filepath.Join(state, parent+".jsonl")
	logged, _ := os.ReadFile(parentLog)

	res, rerr := e.call("session/fork", map[string]any{"sessionId": parent, "cwd": dir, "mcpServers": []any{}})
	if rerr != nil {
		t.Fatalf("session/fork: %+v", rerr)
	}
	var fr struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	json.Unmarshal(res, &fr)
	if fr.SessionID == "" || fr.SessionID == parent || fr.Modes.CurrentModeID == "" {
		t.Fatalf("session/fork answered %s", res)
	}
	if err := validate("NewSessionResponse", res); err != nil { // ForkSessionResponse has the same fields
		t.Errorf("the fork's answer: %v", err)
	}
	m.add(fakeTurn{text: "side answer"}, fakeTurn{text: "more side"})
	n := len(m.rawBodies())
	e.prompt(fr.SessionID, "next question")
	e.prompt(fr.SessionID, "another side question")
	forkFirst := m.rawBodies()[n]
	if now, _ := os.ReadFile(parentLog); !bytes.Equal(now, logged) {
		t.Errorf("the fork's turns changed the parent's log:\n%s\n---\n%s", logged, now)
	}
	header, _ := os.ReadFile(filepath.Join(state, fr.SessionID+".jsonl"))
	if line, _, _ := bytes.Cut(header, []byte("\n")); !bytes.Contains(line, []byte(`"forkOf":"`+parent+`"`)) {
		t.Errorf("the fork's header %s does not name its parent", line)
	}

	m.add(fakeTurn{text: "main answer"})
	e.prompt(parent, "next question")
	parentNext := m.rawBodies()[len(m.rawBodies())-1]
	if !bytes.Equal(forkFirst, parentNext) {
		t.Errorf("the fork's first request differs from the parent's next one after byte %d:\nfork   %s\nparent %s",
			sharedPrefix(forkFirst, parentNext), forkFirst, parentNext)
	}
}

func TestFork_UnknownSession(t *testing.T) {
	h := setup(t, nil)
	if _, rerr := h.call("session/fork", map[string]any{"sessionId": "sess_none", "cwd": h.dir, "mcpServers": []any{}}); rerr == nil {
		t.Error("forking a session that does not exist succeeded")
	}
}
