package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// taskKey is a request's last user message: the parent's prompt, or a
// child's task.
func taskKey(r chatRequest) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return fmt.Sprint(r.Messages[i].Content)
		}
	}
	return ""
}

// toolResults are a request's tool messages by call id.
func toolResults(r chatRequest) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = fmt.Sprint(m.Content)
		}
	}
	return out
}

func offered(r chatRequest) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	slices.Sort(names)
	return names
}

// script answers each conversation (by its first user message) with its
// turns in order, one per request that conversation has made.
type script map[string][]fakeTurn

func (s script) respond(seen map[string]int) func(chatRequest) fakeTurn {
	return func(r chatRequest) fakeTurn {
		key := taskKey(r)
		turns, ok := s[key]
		n := seen[key]
		seen[key]++
		if !ok || n >= len(turns) {
			return fakeTurn{text: "unscripted: " + key}
		}
		return turns[n]
	}
}

// nested returns, for each call id a tool_call announced, its
// parentToolCallId ("" for none).
func nested(e *editor) map[string]string {
	out := map[string]string{}
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "tool_call" {
			out[u.ToolCallID] = metaOf(u.Raw).Meta.Dsh.ParentToolCallID
		}
	}
	return out
}

// finalOf is a call's last completed or failed update.
func finalOf(e *editor, id string) update {
	var last update
	for _, u := range e.toolUpdates(id) {
		if u.Status == "completed" || u.Status == "failed" {
			last = u
		}
	}
	return last
}

// TestBridge_Task: an explore child reads and greps (its own cards, nested
// under the task's with parentToolCallId), is refused the edit it tries
// (no prompt, the file kept), and its final answer is the task's result,
// which the parent model reads in its next request; session/load to a
// subagents client replays the child as its own session.
func TestBridge_Task(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n// TODO: fix\n"), 0o644)
	m := newFakeModel(t)
	m.respond = script{
		"look into a.go": {
			{reasoning: "delegate", calls: []fakeCall{{"t1", "task", args("description", "Find TODOs", "prompt", "find the TODOs", "agent", "explore")}}},
			{text: "Parent done."},
		},
		"find the TODOs": {
			{reasoning: "look", calls: []fakeCall{
				{"c1", "read", args("file_path", "a.go")},
				{"c2", "grep", args("pattern", "TODO")},
				{"c3", "edit", args("file_path", "a.go", "old_string", "fix", "new_string", "done")},
			}},
			{text: "TODO at a.go:2"},
		},
	}.respond(map[string]int{})
	first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	first.initialize(cardCaps())
	s := first.newSession(dir)
	if stop := first.prompt(s, "look into a.go"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	reqs := m.recorded()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4 (parent, child, child, parent)", len(reqs))
	}
	if got := strings.Join(offered(reqs[1]), " "); got != "glob grep read web_fetch" {
		t.Errorf("the explore child was offered %q", got)
	}
	if !strings.Contains(fmt.Sprint(reqs[1].Messages[0].Content), "You are a subagent") {
		t.Errorf("the child's system prompt lacks its brief")
	}
	child := toolResults(reqs[2])
	if !strings.Contains(child["t1:task:1"], "TODO: fix") || !strings.Contains(child["t1:task:2"], "a.go") {
		t.Errorf("the child's read and grep results: %q", child)
	}
	if !strings.Contains(child["t1:task:3"], "the explore agent cannot use edit") {
		t.Errorf("the child's edit: %q, want a refusal", child["t1:task:3"])
	}
	if got := toolResults(reqs[3])["t1"]; got != "TODO at a.go:2" {
		t.Errorf("the task's result to the parent model: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); !strings.Contains(string(b), "TODO: fix") {
		t.Errorf("a.go was changed: %q", b)
	}
	if n := first.permissionCount(); n != 0 {
		t.Errorf("%d permission prompts, want none (reads run, the edit is refused)", n)
	}
	live := nested(first)
	want := map[string]string{"t1": "", "t1:task:1": "t1", "t1:task:2": "t1", "t1:task:3": "t1"}
	for id, parent := range want {
		if got, ok := live[id]; !ok || got != parent {
			t.Errorf("card %s: parent %q (announced %v), want %q", id, got, ok, parent)
		}
	}
	for _, id := range []string{"t1:task:1", "t1:task:2", "t1:task:3"} {
		if f := finalOf(first, id); metaOf(f.Raw).Meta.Dsh.ParentToolCallID != "t1" {
			t.Errorf("%s's final update carries no parent: %s", id, f.Raw)
		}
	}
	if f := finalOf(first, "t1:task:3"); f.Status != "failed" {
		t.Errorf("the refused edit's card: %s", f.Raw)
	}
	progress := false
	for _, u := range first.toolUpdates("t1") {
		progress = progress || (u.Status == "in_progress" && strings.Contains(string(u.Content), "→ grep"))
	}
	if f := finalOf(first, "t1"); !progress || f.Status != "completed" || !strings.Contains(string(f.Content), "TODO at a.go:2") {
		t.Errorf("the task card: progress %v, final %s", progress, f.Raw)
	}
	liveCards := cardsOf(first)
	liveCost := lastCost(first)
	first.close()

	second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	caps := cardCaps()
	caps["subagents"] = map[string]any{}
	second.initialize(caps)
	if _, err := second.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); err != nil {
		t.Fatalf("session/load: %+v", err)
	}
	if c := lastCost(second); liveCost == 0 || c != liveCost {
		t.Errorf("the replayed cost %v, live %v: the child's requests must count in both", c, liveCost)
	}
	var replayedSub []subUpdate
	for _, raw := range checkUpdates(t, second) {
		var u subUpdate
		json.Unmarshal(raw, &u)
		replayedSub = append(replayedSub, u)
	}
	if len(replayedSub) != 1 || replayedSub[0].Title != "Find TODOs" || replayedSub[0].State == nil || replayedSub[0].State.StopReason != "end_turn" {
		t.Errorf("the replayed subagent_update: %+v", replayedSub)
	}
	// A subagents client gets the logged child's cards on its own session
	// (TestBridge_TaskChildSessions), top-level there.
	replayed := placement(t, second)
	for id, parent := range want {
		session := replayedSub[0].SessionID
		if parent == "" {
			session = s
		}
		if got := replayed[id]; got != session+"|" {
			t.Errorf("replayed card %s on session|parent %q, want %q", id, got, session+"|")
		}
	}
	again := cardsOf(second)
	for _, k := range []string{"t1:task:1/result", "t1:task:2/result", "t1:task:3/result", "t1/result"} {
		if again[k] != liveCards[k] {
			t.Errorf("%s differs after replay:\n live %s\n replay %s", k, liveCards[k], again[k])
		}
	}
}

// lastCost is the last usage_update's cost (0: none).
func lastCost(e *editor) float64 {
	cost := 0.0
	for _, u := range e.decodedUpdates() {
		var v struct {
			Cost *struct{ Amount float64 } `json:"cost"`
		}
		if u.SessionUpdate == "usage_update" && json.Unmarshal(u.Raw, &v) == nil && v.Cost != nil {
			cost = v.Cost.Amount
		}
	}
	return cost
}

// TestBridge_TaskApprovalsAndGuards: a child's call goes through the
// session's policy: its edit asks the editor with the child call's own
// id, and in plan mode the session's guard refuses it without asking.
func TestBridge_TaskApprovalsAndGuards(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		asked      string // the toolCallIds the editor was asked about
		file       string // a.txt after the turn
		result     string // in the child's edit result
	}{
		{"default asks the editor", "default", "t1:task:1", "kept\n", "a.txt"},
		{"plan mode's guard refuses", "plan", "", "keep\n", "plan mode is read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setupWorkspace(t, "", "", nil)
			var mu sync.Mutex
			var asked []string
			h.onPermission = func(p json.RawMessage) any {
				var req struct {
					ToolCall struct {
						ToolCallID string `json:"toolCallId"`
					} `json:"toolCall"`
				}
				json.Unmarshal(p, &req)
				mu.Lock()
				asked = append(asked, req.ToolCall.ToolCallID)
				mu.Unlock()
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
			}
			h.model.respond = script{
				"change a.txt": {
					{reasoning: "delegate", calls: []fakeCall{{"t1", "task", args("description", "Edit", "prompt", "edit a.txt")}}},
					{text: "ok"},
				},
				"edit a.txt": {
					{reasoning: "edit", calls: []fakeCall{{"c1", "edit", args("file_path", "a.txt", "old_string", "keep", "new_string", "kept")}}},
					{text: "edited"},
				},
			}.respond(map[string]int{})
			if _, err := h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": tc.mode}); err != nil {
				t.Fatal(err)
			}
			if stop := h.prompt(h.session, "change a.txt"); stop != "end_turn" {
				t.Fatalf("stop %q", stop)
			}
			mu.Lock()
			got := strings.Join(asked, ",")
			mu.Unlock()
			if got != tc.asked {
				t.Errorf("asked about %q, want %q", got, tc.asked)
			}
			if b := h.contentOf(h.dir, "a.txt"); b != tc.file {
				t.Errorf("a.txt is %q, want %q", b, tc.file)
			}
			res := ""
			for _, r := range h.model.recorded() {
				if taskKey(r) == "edit a.txt" {
					res += toolResults(r)["t1:task:1"]
				}
			}
			if !strings.Contains(res, tc.result) {
				t.Errorf("the child's edit result %q, want %q in it", res, tc.result)
			}
		})
	}
}

// TestBridge_TaskParentDenyHolds: a deny rule of the session holds in its
// general child, in every mode.
func TestBridge_TaskParentDenyHolds(t *testing.T) {
	h := setupWorkspace(t, `{"permissions":{"deny":["read(secrets/**)"]}}`, "", nil)
	os.MkdirAll(filepath.Join(h.dir, "secrets"), 0o755)
	os.WriteFile(filepath.Join(h.dir, "secrets", "key.txt"), []byte("hunter2\n"), 0o644)
	h.model.respond = script{
		"read the key": {
			{reasoning: "delegate", calls: []fakeCall{{"t1", "task", args("description", "Read key", "prompt", "read secrets/key.txt")}}},
			{text: "ok"},
		},
		"read secrets/key.txt": {
			{reasoning: "read", calls: []fakeCall{{"c1", "read", args("file_path", "secrets/key.txt")}}},
			{text: "could not"},
		},
	}.respond(map[string]int{})
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	if stop := h.prompt(h.session, "read the key"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	reqs := h.model.recorded()
	got := ""
	for _, r := range reqs {
		if taskKey(r) == "read secrets/key.txt" {
			got += toolResults(r)["t1:task:1"]
		}
	}
	if got == "" || strings.Contains(got, "hunter2") || !strings.Contains(strings.ToLower(got), "deny") {
		t.Errorf("the child's read of a denied file: %q", got)
	}
}

var subagentSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open("../subagent/testdata/subagent-update.schema.json")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("subagent.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("subagent.json")
})

// checkUpdates validates what a subagents client received: subagent_update
// against its schema, everything else against ACP's.
func checkUpdates(t *testing.T, e *editor) (subagents []json.RawMessage) {
	t.Helper()
	sch, err := subagentSchema()
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	all := slices.Clone(e.updates)
	e.mu.Unlock()
	for _, p := range all {
		var n struct {
			Update json.RawMessage `json:"update"`
		}
		json.Unmarshal(p, &n)
		if !strings.Contains(string(n.Update), `"sessionUpdate":"subagent_update"`) {
			if err := validate("SessionNotification", p); err != nil {
				t.Errorf("session/update %s: %v", p, err)
			}
			continue
		}
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(n.Update)))
		if err := sch.Validate(doc); err != nil {
			t.Errorf("subagent_update %s: %v", n.Update, err)
		}
		subagents = append(subagents, n.Update)
	}
	return subagents
}

type subUpdate struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
	State     *struct {
		State      string `json:"state"`
		StopReason string `json:"stopReason"`
	} `json:"state"`
}

// TestBridge_TasksInParallel: two tasks of one answer run at once (each
// child's first request waits for the other's: in series the second would
// never come), a subagents client gets schema-valid subagent_update for
// each, the children's usage counts in the session's cost; then a parent
// cancel ends two running children, and a session/cancel on one child's
// id ends that child alone, the parent going on.
func TestBridge_TasksInParallel(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t)
	seen := map[string]int{}
	m.respond = script{
		"two at once": {
			{reasoning: "split", calls: []fakeCall{
				{"t1", "task", args("description", "Task one", "prompt", "alpha")},
				{"t2", "task", args("description", "Task two", "prompt", "beta", "agent", "explore")},
			}},
			{text: "both done"},
		},
		"alpha":      {{text: "A done"}},
		"beta":       {{text: "B done"}},
		"hang two":   {{reasoning: "split", calls: []fakeCall{{"t3", "task", args("description", "Three", "prompt", "gamma")}, {"t4", "task", args("description", "Four", "prompt", "delta")}}}},
		"gamma":      {{text: "thinking", hang: true}},
		"delta":      {{text: "thinking", hang: true}},
		"cancel one": {{reasoning: "one", calls: []fakeCall{{"t5", "task", args("description", "Five", "prompt", "epsilon")}}}, {text: "went on"}},
		"epsilon":    {{text: "thinking", hang: true}},
	}.respond(seen)
	arrived := map[string]chan struct{}{"alpha": make(chan struct{}), "beta": make(chan struct{})}
	var overlapMu sync.Mutex
	var notOverlapped []string
	m.before = func(r chatRequest) {
		key := taskKey(r)
		ch, ok := arrived[key]
		if !ok || len(toolResults(r)) > 0 {
			return
		}
		close(ch)
		other := arrived[map[string]string{"alpha": "beta", "beta": "alpha"}[key]]
		select {
		case <-other:
		case <-time.After(20 * time.Second):
			overlapMu.Lock()
			notOverlapped = append(notOverlapped, key)
			overlapMu.Unlock()
		}
	}
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
	e.initialize(map[string]any{"subagents": map[string]any{}})
	s := e.newSession(dir)
	if stop := e.prompt(s, "two at once"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	if len(notOverlapped) > 0 {
		t.Fatalf("the children of %v waited alone: the two tasks did not run at once", notOverlapped)
	}
	var last chatRequest
	for _, r := range m.recorded() {
		if taskKey(r) == "two at once" {
			last = r
		}
	}
	if got := toolResults(last); got["t1"] != "A done" || got["t2"] != "B done" {
		t.Errorf("the tasks' results to the parent: %q", got)
	}
	subs := checkUpdates(t, e)
	byChild := map[string][]subUpdate{}
	var order []string
	for _, raw := range subs {
		var u subUpdate
		json.Unmarshal(raw, &u)
		if _, ok := byChild[u.SessionID]; !ok {
			order = append(order, u.SessionID)
		}
		byChild[u.SessionID] = append(byChild[u.SessionID], u)
	}
	if len(order) != 2 {
		t.Fatalf("subagent_update for %d children, want 2: %s", len(order), subs)
	}
	titles := []string{}
	for _, id := range order {
		us := byChild[id]
		if us[0].State == nil || us[0].State.State != "running" || us[len(us)-1].State.State != "idle" || us[len(us)-1].State.StopReason != "end_turn" {
			t.Errorf("child %s's updates: %+v", id, us)
		}
		titles = append(titles, us[0].Title)
	}
	slices.Sort(titles)
	if strings.Join(titles, ",") != "Task one,Task two" {
		t.Errorf("children's titles %v", titles)
	}
	var costs []float64
	for _, u := range e.decodedUpdates() {
		var v struct {
			Cost *struct{ Amount float64 } `json:"cost"`
		}
		if u.SessionUpdate == "usage_update" && json.Unmarshal(u.Raw, &v) == nil && v.Cost != nil {
			costs = append(costs, v.Cost.Amount)
		}
	}
	rising := len(costs) == 5
	for i := 1; rising && i < len(costs); i++ {
		rising = costs[i] > costs[i-1]
	}
	if !rising {
		t.Errorf("usage_update costs %v, want 5 rising totals (2 parent requests, 2 children's, the title request)", costs)
	}

	// A parent cancel ends both running children.
	done := e.start("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "hang two"}}})
	e.waitFor(func() bool { m.mu.Lock(); defer m.mu.Unlock(); return seen["gamma"] > 0 && seen["delta"] > 0 })
	e.notify("session/cancel", map[string]any{"sessionId": s})
	select {
	case res := <-done:
		if !strings.Contains(string(res.Result), `"cancelled"`) {
			t.Errorf("the cancelled turn answered %s", res.Result)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled turn never answered: a child outlived it")
	}
	for _, id := range []string{"t3", "t4"} {
		if f := finalOf(e, id); f.Status != "failed" || !strings.Contains(string(f.Content), "aborted") {
			t.Errorf("task %s after the parent's cancel: %s, want aborted with the turn", id, f.Raw)
		}
	}

	// A session/cancel on a child's id ends it alone.
	done = e.start("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "cancel one"}}})
	e.waitFor(func() bool { m.mu.Lock(); defer m.mu.Unlock(); return seen["epsilon"] > 0 })
	var childID string
	for _, raw := range checkUpdates(t, e) {
		var u subUpdate
		json.Unmarshal(raw, &u)
		if u.Title == "Five" {
			childID = u.SessionID
		}
	}
	if childID == "" {
		t.Fatal("no subagent_update announced the third child")
	}
	e.notify("session/cancel", map[string]any{"sessionId": childID})
	select {
	case res := <-done:
		if !strings.Contains(string(res.Result), `"end_turn"`) {
			t.Errorf("the parent's turn after its child's cancel answered %s", res.Result)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the parent's turn never answered")
	}
	var after chatRequest
	for _, r := range m.recorded() {
		if taskKey(r) == "cancel one" {
			after = r
		}
	}
	if got := toolResults(after)["t5"]; !strings.Contains(got, "cancelled") {
		t.Errorf("the cancelled child's task result: %q", got)
	}
	ended := ""
	for _, raw := range checkUpdates(t, e) {
		var u subUpdate
		json.Unmarshal(raw, &u)
		if u.SessionID == childID && u.State != nil && u.State.State == "idle" {
			ended = u.State.StopReason
		}
	}
	if ended != "cancelled" {
		t.Errorf("the cancelled child's last state: %q", ended)
	}
}

// TestBridge_TaskAgents: a trusted workspace's custom agent runs with its
// own tools, model and thinking level; an untrusted workspace's is not
// read; a child whose model fails is a failed task result, and the
// parent's turn goes on.
func TestBridge_TaskAgents(t *testing.T) {
	const reviewer = "---\ndescription: reviews\ntools: read\nmodel: deepseek-v4-pro\nthinking: off\n---\nReview what you are given.\n"
	for _, tc := range []struct {
		name   string
		user   string // the user's settings (WORKSPACE: the workspace)
		agent  string
		child  fakeTurn
		result string // in the task's result to the parent
		model  string // the child's request's model ("": no child request)
		tools  string
		think  bool
	}{
		{"a trusted workspace's agent", `{"trustedWorkspaces":["WORKSPACE"]}`, "reviewer", fakeTurn{text: "looks fine"}, "looks fine", "deepseek-v4-pro", "read", false},
		{"an untrusted workspace's agent is unknown", "", "reviewer", fakeTurn{text: "never"}, `unknown agent "reviewer"`, "", "", false},
		{"the child's model fails", "", "general", fakeTurn{status: 400, message: "scripted refusal"}, "the subagent failed", "deepseek-v4-flash", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setupWorkspace(t, "", tc.user, nil)
			os.MkdirAll(filepath.Join(h.dir, ".dsh", "agents"), 0o755)
			os.WriteFile(filepath.Join(h.dir, ".dsh", "agents", "reviewer.md"), []byte(reviewer), 0o644)
			h.model.respond = script{
				"review it": {
					{reasoning: "delegate", calls: []fakeCall{{"t1", "task", args("description", "Review", "prompt", "review a.txt", "agent", tc.agent)}}},
					{text: "went on"},
				},
				"review a.txt": {tc.child},
			}.respond(map[string]int{})
			if stop := h.prompt(h.session, "review it"); stop != "end_turn" {
				t.Fatalf("stop %q", stop)
			}
			var child, last chatRequest
			for _, r := range h.model.recorded() {
				switch taskKey(r) {
				case "review a.txt":
					child = r
				case "review it":
					last = r
				}
			}
			if got := toolResults(last)["t1"]; !strings.Contains(got, tc.result) {
				t.Errorf("the task's result %q, want %q in it", got, tc.result)
			}
			if child.Model != tc.model {
				t.Fatalf("the child's model %q, want %q", child.Model, tc.model)
			}
			if tc.model == "" {
				return
			}
			if child.thinking() != tc.think {
				t.Errorf("the child's thinking %v, want %v", child.thinking(), tc.think)
			}
			if tc.tools != "" && strings.Join(offered(child), " ") != tc.tools {
				t.Errorf("the child was offered %v, want %s", offered(child), tc.tools)
			}
		})
	}
}
