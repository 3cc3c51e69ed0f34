package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// titleUpdates are the titles of the session_info_updates received.
func (e *editor) titleUpdates() []string {
	var out []string
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "session_info_update" {
			out = append(out, u.Title)
		}
	}
	return out
}

// listTitles is session/list's titles by session id.
func (e *editor) listTitles() map[string]string {
	e.t.Helper()
	res, err := e.call("session/list", map[string]any{})
	if err != nil {
		e.t.Fatalf("session/list: %+v", err)
	}
	var list struct {
		Sessions []struct{ SessionID, Title string }
	}
	json.Unmarshal(res, &list)
	out := map[string]string{}
	for _, s := range list.Sessions {
		out[s.SessionID] = s.Title
	}
	return out
}

// TestTitle_FromTheModel: after the first exchange the model names the
// session in a request of its own (thinking off, no tools), which takes
// no scripted turn; the title arrives as session_info_update, shows in
// session/list, and session/load replays it.
func TestTitle_FromTheModel(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	m := newFakeModel(t, fakeTurn{text: "one"}, fakeTurn{text: "two"})
	m.title = "Fix the flaky parser"
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	s := e.newSession(dir)
	e.prompt(s, "the parser test fails every other run\nsee pkg/a")
	e.waitFor(func() bool { return len(e.titleUpdates()) > 0 })
	if got := e.titleUpdates(); len(got) != 1 || got[0] != "Fix the flaky parser" {
		t.Fatalf("session_info_update titles %q", got)
	}
	e.prompt(s, "and again")
	if text := e.agentText(); !strings.Contains(text, "one") || !strings.Contains(text, "two") {
		t.Errorf("the title took a scripted turn: the agent said %q", text)
	}
	if n := len(m.recorded()); n != 2 {
		t.Errorf("%d conversation requests, want 2", n)
	}
	titles := m.titleRequests()
	if len(titles) != 1 {
		t.Fatalf("%d title requests, want 1 (only after the first exchange)", len(titles))
	}
	if tr := titles[0]; len(tr.Tools) != 0 || tr.thinking() {
		t.Errorf("the title request has %d tools, thinking %v", len(tr.Tools), tr.thinking())
	}
	if got := e.listTitles()[s]; got != "Fix the flaky parser" {
		t.Errorf("session/list title %q", got)
	}
	e.close()

	e2 := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e2.initialize(nil)
	if _, err := e2.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); err != nil {
		t.Fatalf("load: %+v", err)
	}
	if got := e2.titleUpdates(); len(got) != 1 || got[0] != "Fix the flaky parser" {
		t.Errorf("replayed titles %q", got)
	}
	e2.prompt(s, "third")
	if n := len(m.titleRequests()); n != 1 {
		t.Errorf("a loaded session asked for its title again (%d requests)", n)
	}
}

// TestTitle_Fallbacks: a title request that fails, or an answer with
// nothing usable, leaves the first prompt cut short; a title the person
// gave with /title wins and no title is asked for.
func TestTitle_Fallbacks(t *testing.T) {
	long := "please look at the failing build in the parser package and tell me what broke it this time around"
	for _, tc := range []struct {
		name, title string
		status      int
		want        string
	}{
		{"the model fails", "", 400, "please look at the failing build in the parser package and…"},
		{"an empty answer", "  \"…\"  ", 0, "please look at the failing build in the parser package and…"},
		{"a labelled answer", "Title: \"Parser build failure.\"", 0, "Parser build failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			m := newFakeModel(t)
			m.title, m.titleStatus = tc.title, tc.status
			e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
			e.initialize(nil)
			s := e.newSession(dir)
			e.prompt(s, long)
			e.waitFor(func() bool { return len(e.titleUpdates()) > 0 })
			if got := e.titleUpdates(); len(got) != 1 || got[0] != tc.want {
				t.Errorf("titles %q, want %q", got, tc.want)
			}
			if got := e.listTitles()[s]; got != tc.want {
				t.Errorf("session/list title %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("the person's title", func(t *testing.T) {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		m := newFakeModel(t)
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
		e.initialize(nil)
		s := e.newSession(dir)
		e.prompt(s, "/title  My   own name ")
		e.prompt(s, long)
		e.prompt(s, "more")
		if n := len(m.titleRequests()); n != 0 {
			t.Errorf("%d title requests after /title", n)
		}
		if got := e.titleUpdates(); len(got) != 1 || got[0] != "My own name" {
			t.Errorf("titles %q", got)
		}
		if got := e.listTitles()[s]; got != "My own name" {
			t.Errorf("session/list title %q", got)
		}
	})
}

// TestSessionDelete: session/delete ends a live session and removes its
// log, title file and spill files; an unknown id is -32002; an id that
// is a path removes nothing and is -32602.
func TestSessionDelete(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	m := newFakeModel(t,
		fakeTurn{calls: []fakeCall{{"b1", "bash", `{"command":"head -c 100000 /dev/zero | tr '\\0' x","description":"print"}`}}},
		fakeTurn{text: "printed"})
	// The binary: a process's spill folder is removed when its server
	// ends, so an in-process server after another could not spill.
	e := startBinary(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	res, err := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if err != nil || !strings.Contains(string(res), `"delete":{}`) {
		t.Fatalf("initialize: %s %+v", res, err)
	}
	s := e.newSession(dir)
	e.call("session/set_mode", map[string]any{"sessionId": s, "modeId": "bypassPermissions"})
	e.prompt(s, "print a lot")
	e.waitFor(func() bool { return len(e.titleUpdates()) > 0 })
	var spill string
	for _, r := range m.recorded()[1].Messages {
		if r.ToolCallID == "b1" {
			c, _ := r.Content.(string)
			if i := strings.Index(c, "bash-output-"); i > 0 {
				start := strings.LastIndexAny(c[:i], " \n(\"") + 1
				spill = c[start : i+len("bash-output-0123456789abcdef.txt")]
			}
		}
	}
	if _, err := os.Stat(spill); spill == "" || err != nil {
		t.Fatalf("no spill file (%q: %v)", spill, err)
	}
	for _, f := range []string{s + ".jsonl", s + ".title"} {
		if _, err := os.Stat(filepath.Join(state, f)); err != nil {
			t.Fatalf("before delete: %v", err)
		}
	}
	outside := filepath.Join(filepath.Dir(state), filepath.Base(state)+"-keep.jsonl")
	os.WriteFile(outside, []byte("{}\n"), 0o600)
	t.Cleanup(func() { os.Remove(outside) })
	for _, id := range []string{"../" + filepath.Base(state) + "-keep", "..", "a/b", "", s + "/../" + s} {
		if _, err := e.call("session/delete", map[string]any{"sessionId": id}); err == nil || err.Code != -32602 {
			t.Errorf("delete %q: %+v, want -32602", id, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("a traversal id deleted %s", outside)
	}
	if _, err := e.call("session/delete", map[string]any{"sessionId": s}); err != nil {
		t.Fatalf("delete: %+v", err)
	}
	for _, f := range []string{filepath.Join(state, s+".jsonl"), filepath.Join(state, s+".title"), spill} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", f, err)
		}
	}
	if _, ok := e.listTitles()[s]; ok {
		t.Errorf("session/list still lists %s", s)
	}
	if _, err := e.call("session/prompt", map[string]any{"sessionId": s, "prompt": []any{}}); err == nil || err.Code != -32002 {
		t.Errorf("prompt after delete: %+v", err)
	}
	if _, err := e.call("session/delete", map[string]any{"sessionId": s}); err == nil || err.Code != -32002 {
		t.Errorf("delete again: %+v, want -32002", err)
	}
	if _, err := e.call("session/delete", map[string]any{"sessionId": "sess_unknown"}); err == nil || err.Code != -32002 {
		t.Errorf("delete unknown: %+v, want -32002", err)
	}
}

// TestPromptUsage: a turn's answer carries the tokens of its requests,
// input, output, thought and cached, as the SDK's unstable Usage has
// them.
func TestPromptUsage(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	m := newFakeModel(t,
		fakeTurn{reasoning: "Let me read the file first, carefully.", calls: []fakeCall{{"r1", "read", `{"file_path":"a.txt"}`}}},
		fakeTurn{text: "It says hello."})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
	e.initialize(nil)
	s := e.newSession(dir)
	res, rerr := e.call("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "read a.txt"}}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	f, err := os.Open("testdata/acp-prompt-usage.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	c := jsonschema.NewCompiler()
	if err == nil {
		err = c.AddResource("u.json", doc)
	}
	sch, err2 := c.Compile("u.json#/$defs/PromptResponse")
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	got, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(res)))
	if err := sch.Validate(got); err != nil {
		t.Errorf("%s: %v", res, err)
	}
	var r struct {
		Usage struct{ TotalTokens, InputTokens, OutputTokens, ThoughtTokens, CachedReadTokens int }
	}
	json.Unmarshal(res, &r)
	var want struct{ in, out, thought, hit int }
	for i, u := range m.reported() {
		want.in += u.prompt
		want.out += u.completion
		want.hit += u.hit
		if i == 0 {
			want.thought += len("Let me read the file first, carefully.") / 4
		} else {
			want.thought += len("Thinking it over.") / 4
		}
	}
	u := r.Usage
	if u.InputTokens != want.in || u.OutputTokens != want.out || u.ThoughtTokens != want.thought || u.CachedReadTokens != want.hit || u.TotalTokens != want.in+want.out {
		t.Errorf("usage %+v, want %+v (%s)", u, want, res)
	}
	if want.in == 0 || want.hit == 0 || len(m.reported()) != 2 {
		t.Fatalf("the fake reported %v", m.reported())
	}
}

// TestTitle_ScriptedBinary: through the binary with a scripted model, the
// title request takes no line of the script: each prompt gets its own
// scripted answer, and the title is the script's title line.
func TestTitle_ScriptedBinary(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	script := filepath.Join(t.TempDir(), "turns.jsonl")
	os.WriteFile(script, []byte("{\"text\":\"answer one\"}\n{\"title\":\"Scripted session\"}\n{\"text\":\"answer two\"}\n"), 0o644)
	e := startBinary(t, "DSH_MODEL=script:"+script)
	e.initialize(nil)
	s := e.newSession(dir)
	e.prompt(s, "first")
	e.prompt(s, "second")
	if text := e.agentText(); text != "answer oneanswer two" {
		t.Errorf("the agent said %q", text)
	}
	if got := e.titleUpdates(); len(got) != 1 || got[0] != "Scripted session" {
		t.Errorf("titles %q", got)
	}
	if got := e.listTitles()[s]; got != "Scripted session" {
		t.Errorf("session/list title %q", got)
	}
}

// TestSessionDelete_DuringATurn: deleting a session whose turn is running
// cancels the turn (its prompt answers cancelled) before the log goes.
func TestSessionDelete_DuringATurn(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	m := newFakeModel(t, fakeTurn{text: "working on it", hang: true})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	s := e.newSession(dir)
	answer := e.start("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	e.waitFor(func() bool { return strings.Contains(e.agentText(), "working on it") })
	if _, err := e.call("session/delete", map[string]any{"sessionId": s}); err != nil {
		t.Fatalf("delete: %+v", err)
	}
	select {
	case got := <-answer:
		if !strings.Contains(string(got.Result), `"stopReason":"cancelled"`) {
			t.Errorf("the prompt answered %s %+v", got.Result, got.Error)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the running turn never answered")
	}
	if _, err := os.Stat(filepath.Join(state, s+".jsonl")); !os.IsNotExist(err) {
		t.Errorf("the log is still there (%v)", err)
	}
}
