package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contentText(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// TestInstructions_ReachTheModel: the root AGENTS.md is in the system
// message of every request; a nested one arrives after the result of the
// read that first touched its folder, and the system message (the
// request's prefix) stays byte for byte; a denied AGENTS.md and one
// symlinked out of the workspace are never sent.
func TestInstructions_ReachTheModel(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	dir, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	writeFile(t, filepath.Join(dir, "AGENTS.md"), "ROOT-RULE: run make test.")
	writeFile(t, filepath.Join(dir, "sub", "AGENTS.md"), "NESTED-RULE: tabs, not spaces.")
	writeFile(t, filepath.Join(dir, "sub", "f.txt"), "hello\n")
	writeFile(t, filepath.Join(dir, "secret", "AGENTS.md"), "DENIED-RULE")
	writeFile(t, filepath.Join(dir, "secret", "g.txt"), "x\n")
	writeFile(t, filepath.Join(outside, "AGENTS.md"), "OUTSIDE-RULE")
	writeFile(t, filepath.Join(dir, "linked", "h.txt"), "y\n")
	if err := os.Symlink(filepath.Join(outside, "AGENTS.md"), filepath.Join(dir, "linked", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".dsh", "settings.json"), `{"permissions":{"deny":["read(secret/AGENTS.md)"]}}`)
	m := newFakeModel(t,
		fakeTurn{calls: []fakeCall{{"r1", "read", args("file_path", "sub/f.txt")}}},
		fakeTurn{calls: []fakeCall{{"r2", "grep", args("pattern", "x", "path", "secret")}, {"r3", "read", args("file_path", "linked/h.txt")}}},
		fakeTurn{calls: []fakeCall{{"r4", "read", args("file_path", "sub/f.txt")}}},
		fakeTurn{text: "done"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
	e.initialize(nil)
	s := e.newSession(dir)
	e.prompt(s, "look")
	reqs, bodies := m.recorded(), m.rawBodies()
	if len(reqs) != 4 {
		t.Fatalf("got %d requests, want 4", len(reqs))
	}
	system := contentText(reqs[0].Messages[0].Content)
	if !strings.Contains(system, "ROOT-RULE") {
		t.Errorf("got system message without the root AGENTS.md:\n%s", system)
	}
	for i, r := range reqs {
		if got := contentText(r.Messages[0].Content); got != system {
			t.Errorf("request %d: system message changed:\n%s", i, got)
		}
		for _, msg := range r.Messages {
			for _, bad := range []string{"DENIED-RULE", "OUTSIDE-RULE"} {
				if strings.Contains(contentText(msg.Content), bad) {
					t.Errorf("request %d sent %s", i, bad)
				}
			}
		}
	}
	// The second request's messages: system, user, assistant, tool r1, then the nested instructions.
	var nestedAt []int
	for _, r := range reqs {
		n := 0
		for _, msg := range r.Messages {
			if strings.Contains(contentText(msg.Content), "NESTED-RULE") {
				n++
			}
		}
		nestedAt = append(nestedAt, n)
	}
	if want := []int{0, 1, 1, 1}; !equalInts(nestedAt, want) {
		t.Errorf("got the nested AGENTS.md %v times per request, want %v (once, after the read that found it)", nestedAt, want)
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(contentText(last.Content), "NESTED-RULE") || msgs[len(msgs)-2].ToolCallID != "r1" {
		t.Errorf("got the nested instructions not right after r1's result: %+v", msgs[len(msgs)-2:])
	}
	// Byte for byte: each request starts with the whole of the one before
	// it, up to the end of its messages' shared part.
	head := bytes.Index(bodies[0], []byte(`"role":"user"`))
	for i := 1; i < len(bodies); i++ {
		if n := sharedPrefix(bodies[i-1], bodies[i]); n < head {
			t.Errorf("request %d shares %d bytes with the one before, want at least %d (the system message)", i, n, head)
		}
	}
	notices := 0
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "notice" && strings.Contains(string(u.Raw), "Project instructions loaded") {
			notices++
			if strings.Contains(string(u.Raw), "secret") || strings.Contains(string(u.Raw), "outside") {
				t.Errorf("announced a file that was not read: %s", u.Raw)
			}
		}
	}
	if notices != 2 {
		t.Errorf("got %d instructions notices, want 2 (the root's at start, the nested one once)", notices)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSystemPrompt_Client: a client's systemPrompt is appended, replaces
// our own section in override mode, and an unknown mode or a non-text
// block fails session/new; the capability is advertised.
func TestSystemPrompt_Client(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
	res, rerr := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !strings.Contains(string(res), `"systemPrompt":{"mode":{"override":{}}}`) {
		t.Errorf("got %s, want sessionCapabilities.systemPrompt advertised", res)
	}
	for _, tc := range []struct {
		name     string
		sp       any
		want     []string
		notWant  []string
		wantCode int
	}{
		{"append", map[string]any{"mode": "append", "content": []any{map[string]any{"type": "text", "text": "CLIENT-APPENDED"}}},
			[]string{"You are dsh-bridge", "# From the editor\nCLIENT-APPENDED"}, nil, 0},
		{"override", map[string]any{"mode": "override", "content": []any{map[string]any{"type": "text", "text": "CLIENT-OVERRIDE"}}},
			[]string{"CLIENT-OVERRIDE", "# Environment"}, []string{"You are dsh-bridge"}, 0},
		{"unknown mode", map[string]any{"mode": "prepend", "content": []any{map[string]any{"type": "text", "text": "x"}}}, nil, nil, -32602},
		{"image block", map[string]any{"mode": "append", "content": []any{map[string]any{"type": "image", "data": "", "mimeType": "image/png"}}}, nil, nil, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, rerr := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}, "systemPrompt": tc.sp})
			if tc.wantCode != 0 {
				if rerr == nil || rerr.Code != tc.wantCode {
					t.Fatalf("got %+v, want error %d", rerr, tc.wantCode)
				}
				return
			}
			if rerr != nil {
				t.Fatal(rerr)
			}
			var r struct{ SessionID string }
			json.Unmarshal(res, &r)
			e.prompt(r.SessionID, "hi")
			reqs := m.recorded()
			system := contentText(reqs[len(reqs)-1].Messages[0].Content)
			for _, w := range tc.want {
				if !strings.Contains(system, w) {
					t.Errorf("got system message without %q:\n%s", w, system)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(system, w) {
					t.Errorf("got system message with %q", w)
				}
			}
		})
	}
}

// TestPlan_Updates: todo_write gives a plain client a schema-valid plan
// update, an opted-in one plan_update and plan_removed with one planId,
// and session/load replays the plan.
func TestPlan_Updates(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	todos := `{"todos":[{"content":"Read the code","status":"completed","priority":"high"},{"content":"Fix the bug","status":"in_progress"}]}`
	script := func() []fakeTurn {
		return []fakeTurn{{calls: []fakeCall{{"p1", "todo_write", todos}}}, {calls: []fakeCall{{"p2", "todo_write", `{"todos":[]}`}}}, {text: "done"}}
	}
	plans := func(e *editor) []string {
		var out []string
		for _, u := range e.decodedUpdates() {
			if strings.HasPrefix(u.SessionUpdate, "plan") {
				out = append(out, string(u.Raw))
			}
		}
		return out
	}
	t.Run("plain client", func(t *testing.T) {
		m := newFakeModel(t, script()...)
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		e.initialize(nil)
		s := e.newSession(dir)
		e.prompt(s, "plan it")
		got := plans(e)
		want := []string{
			`{"sessionUpdate":"plan","entries":[{"content":"Read the code","priority":"high","status":"completed"},{"content":"Fix the bug","priority":"medium","status":"in_progress"}]}`,
			`{"sessionUpdate":"plan","entries":[]}`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		e.close()
		again := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		again.initialize(nil)
		if _, rerr := again.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); rerr != nil {
			t.Fatal(rerr)
		}
		if replayed := plans(again); strings.Join(replayed, "\n") != strings.Join(want, "\n") {
			t.Errorf("session/load replayed\n%s\nwant\n%s", strings.Join(replayed, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("opted-in client", func(t *testing.T) {
		m := newFakeModel(t, script()...)
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
		e.noValidate = true // the snapshot predates plan_update: checked below against its own schema
		e.initialize(map[string]any{"plan": map[string]any{}})
		s := e.newSession(dir)
		e.prompt(s, "plan it")
		got := plans(e)
		want := []string{
			`{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"todo","entries":[{"content":"Read the code","priority":"high","status":"completed"},{"content":"Fix the bug","priority":"medium","status":"in_progress"}]}}`,
			`{"sessionUpdate":"plan_removed","planId":"todo"}`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		ops := planOpsSchema(t)
		for _, u := range got {
			doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"sessionId":"` + s + `","update":` + u + `}`))
			if err := ops.Validate(doc); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}
	})
}

func planOpsSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/acp-plan-operations.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("ops.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("ops.json#/$defs/SessionNotification")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// BenchmarkSystemPrompt_Tokens reports the first request's prompt tokens
// as the fake measures them (system message, tools and a one-word
// prompt) and the system message's bytes, with a root AGENTS.md.
func BenchmarkSystemPrompt_Tokens(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Run make test before you finish.\n"), 0o644)
	m := newFakeModel(b)
	m.always = &fakeTurn{text: "ok"}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL)
	e.initialize(nil)
	var tokens, bytes int
	for b.Loop() {
		s := e.newSession(dir)
		e.prompt(s, "hi")
		u := m.reported()
		tokens = u[len(u)-1].prompt
		r := m.recorded()
		bytes = len(contentText(r[len(r)-1].Messages[0].Content))
	}
	b.ReportMetric(float64(tokens), "prompt-tokens")
	b.ReportMetric(float64(bytes), "system-bytes")
}

// BenchmarkSystemPrompt_Share10Turns measures the system prompt's and the
// tools' share of a typical 10-turn session's prompt tokens: each turn
// reads a 100-line file and answers. The prefix is the first request's
// prompt less its user message; every request sends it again (DeepSeek's
// prefix cache serves it from the second on).
func BenchmarkSystemPrompt_Share10Turns(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Run make test before you finish.\n"), 0o644)
	var src strings.Builder
	for i := range 100 {
		fmt.Fprintf(&src, "func f%d() int { return %d } // a line of ordinary Go code\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "a.go"), []byte(src.String()), 0o644)
	m := newFakeModel(b)
	n := 0
	m.respond = func(r chatRequest) fakeTurn {
		n++
		if last := r.Messages[len(r.Messages)-1]; last.Role == "user" {
			return fakeTurn{calls: []fakeCall{{fmt.Sprintf("r%d", n), "read", args("file_path", "a.go")}}}
		}
		return fakeTurn{text: "The file defines 100 small functions; nothing needs to change."}
	}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL)
	e.initialize(nil)
	var prefix, total, requests int
	for b.Loop() {
		before := len(m.reported())
		s := e.newSession(dir)
		for turn := range 10 {
			e.prompt(s, fmt.Sprintf("turn %d: what does a.go do?", turn))
		}
		u := m.reported()[before:]
		prefix = u[0].prompt - len("turn 0: what does a.go do?")/4
		total, requests = 0, len(u)
		for _, x := range u {
			total += x.prompt
		}
	}
	b.ReportMetric(float64(prefix), "prefix-tokens")
	b.ReportMetric(float64(requests), "requests")
	b.ReportMetric(float64(total), "session-prompt-tokens")
	b.ReportMetric(100*float64(prefix*requests)/float64(total), "prefix-%")
}
