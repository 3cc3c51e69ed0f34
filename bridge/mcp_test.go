package bridge_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/internal/mcptest"
	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// mcpServerBin is the stdio MCP test server, built in TestMain.
var mcpServerBin string

func stdioServer(name string, env ...string) map[string]any {
	var e []any
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e = append(e, map[string]any{"name": k, "value": v})
	}
	return map[string]any{"name": name, "command": mcpServerBin, "args": []any{}, "env": e}
}

// mcpHarness is a session with MCP servers configured by the editor.
type mcpHarness struct {
	*harness
}

func setupMCP(t *testing.T, servers []any, turns ...fakeTurn) *mcpHarness {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t, turns...)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
	e.initialize(nil)
	res, err := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": servers})
	if err != nil {
		t.Fatalf("session/new: %+v", err)
	}
	var r struct{ SessionID string }
	json.Unmarshal(res, &r)
	return &mcpHarness{&harness{editor: e, model: m, dir: dir, session: r.SessionID}}
}

func (h *mcpHarness) offered(i int) []string {
	reqs := h.model.recorded()
	var names []string
	for _, t := range reqs[i].Tools {
		if strings.HasPrefix(t.Function.Name, "mcp__") {
			names = append(names, t.Function.Name)
		}
	}
	return names
}

func (h *mcpHarness) notices() string {
	var b strings.Builder
	for _, u := range h.decodedUpdates() {
		if u.SessionUpdate == "notice" {
			b.Write(u.Raw)
		}
	}
	return b.String()
}

func TestMCP_ToolsFlowThroughThePipeline(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	h := setupMCP(t, []any{stdioServer("test", "MCPTEST_MARK="+mark)},
		fakeTurn{calls: []fakeCall{
			{"e1", "mcp__test__echo", `{"text":"hi"}`},
			{"b1", "mcp__test__echo", `{"text":5}`},
			{"a1", "mcp__test__add", `{"a":2,"b":40}`},
			{"f1", "mcp__test__fail", `{}`},
		}},
		fakeTurn{text: "done"})
	h.prompt(h.session, "use the tools")
	offered := strings.Join(h.offered(0), ",")
	for _, want := range []string{"mcp__test__echo", "mcp__test__add", "mcp__test__slow", "mcp__test__tools_dotted_name_"} {
		if !strings.Contains(offered, want) {
			t.Errorf("the model was not offered %s: %s", want, offered)
		}
	}
	msgs := h.toolMessages(1)
	for id, want := range map[string]string{
		"e1": "echo: hi",
		"b1": `"text" must be a string`, // refused before anything asks
		"a1": `"sum":42`,
		"f1": "Error: it failed on purpose",
	} {
		if !strings.Contains(msgs[id], want) {
			t.Errorf("%s: the model got %q, want %q", id, msgs[id], want)
		}
	}
	// The editor's server is not trusted for its annotations: echo and
	// add ask though they claim to be read-only; b1 never asked.
	if n := h.permissionCount(); n != 3 {
		t.Errorf("%d permission requests, want 3 (echo, add, fail)", n)
	}
	var title string
	for _, u := range h.toolUpdates("e1") {
		if u.SessionUpdate == "tool_call" {
			title = u.Title
		}
	}
	if title != "test · echo" {
		t.Errorf("card title %q", title)
	}
}

func TestMCP_DottedNameCancelAndListChanged(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	h := setupMCP(t, []any{stdioServer("test", "MCPTEST_MARK="+mark)})
	// The dotted tool's model-facing name, as offered.
	h.model.add(fakeTurn{text: "listing"})
	h.prompt(h.session, "what tools?")
	var dotted string
	for _, n := range h.offered(0) {
		if strings.HasPrefix(n, "mcp__test__tools_dotted_name") {
			dotted = n
		}
	}
	if dotted == "" || len(dotted) > 64 {
		t.Fatalf("dotted tool offered as %q", dotted)
	}
	h.model.add(fakeTurn{calls: []fakeCall{{"d1", dotted, `{}`}, {"g1", "mcp__test__grow", `{}`}}}, fakeTurn{text: "ok"})
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	h.prompt(h.session, "call it")
	if got := h.toolMessages(2)["d1"]; got != "dotted ok" {
		t.Errorf("dotted tool: %q", got)
	}
	h.waitFor(func() bool {
		h.model.add(fakeTurn{text: "looking"})
		h.prompt(h.session, "again")
		reqs := h.model.recorded()
		for _, tl := range reqs[len(reqs)-1].Tools {
			if tl.Function.Name == "mcp__test__late" {
				return true
			}
		}
		return false
	})

	h.model.add(fakeTurn{calls: []fakeCall{{"s1", "mcp__test__slow", `{}`}}})
	ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "slow"}}})
	h.waitFor(func() bool { b, _ := os.ReadFile(mark); return string(b) == "started" }) // the server runs the call
	h.waitFor(func() bool {                                                             // its progress reached the card
		for _, u := range h.toolUpdates("s1") {
			if strings.Contains(string(u.Raw), "Progress: 1 / 2 — waiting to be cancelled") {
				return true
			}
		}
		return false
	})
	h.notify("session/cancel", map[string]any{"sessionId": h.session})
	if m := within(t, ch); !strings.Contains(string(m.Result), "cancelled") {
		t.Errorf("prompt answered %s", m.Result)
	}
	h.waitFor(func() bool { b, _ := os.ReadFile(mark); return string(b) == "cancelled" })
}

func TestMCP_FailuresLeaveTheSessionWorking(t *testing.T) {
	h := setupMCP(t, []any{
		stdioServer("good"),
		map[string]any{"name": "broken", "command": "/nonexistent/mcp-server", "args": []any{}, "env": []any{}},
	}, fakeTurn{calls: []fakeCall{{"c1", "mcp__good__crash", `{}`}}}, fakeTurn{calls: []fakeCall{{"e1", "mcp__good__echo", `{"text":"after"}`}}}, fakeTurn{text: "ok"})
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	h.waitFor(func() bool { return strings.Contains(h.notices(), `MCP server \"broken\" is not available`) })
	if stop := h.prompt(h.session, "crash it"); stop != "end_turn" {
		t.Errorf("stop %q", stop)
	}
	h.waitFor(func() bool { return strings.Contains(h.notices(), `MCP server \"good\" stopped`) })
	if got := h.toolMessages(2)["e1"]; !strings.Contains(got, "echo: after") && !strings.Contains(got, "is unavailable") {
		t.Errorf("a call after the crash got %q", got)
	}
	h.waitFor(func() bool { return strings.Contains(h.notices(), `MCP server \"good\" is back`) })
}

func TestMCP_HTTPServerAndNoOrphans(t *testing.T) {
	var sawHeader atomic.Bool
	streamable := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		sawHeader.Store(sawHeader.Load() || r.Header.Get("X-Test") == "1")
		return mcptest.NewServer()
	}, nil)
	srv := httptest.NewServer(streamable)
	defer srv.Close()
	sse := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return mcptest.NewServer() }, nil))
	defer sse.Close()
	h := setupMCP(t, []any{
		map[string]any{"type": "http", "name": "remote", "url": srv.URL, "headers": []any{map[string]any{"name": "X-Test", "value": "1"}}},
		map[string]any{"type": "sse", "name": "events", "url": sse.URL, "headers": []any{}},
		stdioServer("local"),
	}, fakeTurn{calls: []fakeCall{{"r1", "mcp__remote__echo", `{"text":"over http"}`}, {"r2", "mcp__events__echo", `{"text":"over sse"}`}}}, fakeTurn{text: "ok"})
	h.prompt(h.session, "call remote")
	msgs := h.toolMessages(1)
	if msgs["r1"] != "echo: over http" || msgs["r2"] != "echo: over sse" || !sawHeader.Load() {
		t.Errorf("http gave %q, sse %q, header seen %v", msgs["r1"], msgs["r2"], sawHeader.Load())
	}
	if !running(mcpServerBin) {
		t.Fatal("the stdio server is not running")
	}
	if _, err := h.call("session/close", map[string]any{"sessionId": h.session}); err != nil {
		t.Fatal(err)
	}
	if !proctest.Gone(mcpServerBin) {
		t.Error("the stdio MCP server outlived its session")
	}
}

func TestMCP_LoadReconnects(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{calls: []fakeCall{{"e1", "mcp__test__echo", `{"text":"before"}`}}}, fakeTurn{text: "ok"})
	servers := []any{stdioServer("test")}
	e := w.editor(nil)
	res, rerr := e.call("session/new", map[string]any{"cwd": w.dir, "mcpServers": servers})
	if rerr != nil {
		t.Fatal(rerr)
	}
	var s struct{ SessionID string }
	json.Unmarshal(res, &s)
	e.prompt(s.SessionID, "echo")
	e.close()

	w.model.add(fakeTurn{calls: []fakeCall{{"e2", "mcp__test__echo", `{"text":"after load"}`}}}, fakeTurn{text: "ok"})
	e2 := w.editor(nil)
	if _, err := e2.call("session/load", map[string]any{"sessionId": s.SessionID, "cwd": w.dir, "mcpServers": servers}); err != nil {
		t.Fatalf("load: %+v", err)
	}
	var replayedTitle string
	for _, u := range e2.decodedUpdates() {
		if u.SessionUpdate == "tool_call" && u.ToolCallID == "e1" {
			replayedTitle = u.Title
		}
	}
	if replayedTitle != "test · echo" {
		t.Errorf("the replayed card is titled %q", replayedTitle)
	}
	e2.prompt(s.SessionID, "echo again")
	reqs := w.model.recorded()
	var got string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.ToolCallID == "e2" {
			got = fmt.Sprint(m.Content)
		}
	}
	if got != "echo: after load" {
		t.Errorf("after load the tool gave %q", got)
	}
}

// TestMCP_RulesNameAServer: a deny rule naming a whole server refuses its
// tools, even in bypassPermissions; an allow rule for one tool lets it run
// without asking.
func TestMCP_RulesNameAServer(t *testing.T) {
	w := newLiveWorld(t, `{"permissions":{"deny":["mcp__blocked"],"allow":["mcp__open__fail"]}}`,
		fakeTurn{calls: []fakeCall{{"d1", "mcp__blocked__echo", `{"text":"x"}`}, {"o1", "mcp__open__fail", `{}`}}}, fakeTurn{text: "ok"})
	e := w.editor(nil)
	res, rerr := e.call("session/new", map[string]any{"cwd": w.dir, "mcpServers": []any{stdioServer("blocked"), stdioServer("open")}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	var s struct{ SessionID string }
	json.Unmarshal(res, &s)
	e.prompt(s.SessionID, "try")
	reqs := w.model.recorded()
	got := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			got[m.ToolCallID] = fmt.Sprint(m.Content)
		}
	}
	if !strings.Contains(got["d1"], "denied by the permission rule mcp__blocked") {
		t.Errorf("the blocked server's tool got %q", got["d1"])
	}
	if !strings.Contains(got["o1"], "it failed on purpose") || e.permissionCount() != 0 {
		t.Errorf("the allowed tool got %q after %d permission requests", got["o1"], e.permissionCount())
	}
}

// TestMCP_DestructiveAsksInAcceptEdits: acceptEdits lets file edits run,
// but an MCP tool marked destructive still asks, even from a server the
// user trusts for its annotations, whose read-only tool runs.
func TestMCP_DestructiveAsksInAcceptEdits(t *testing.T) {
	bin, _ := json.Marshal(mcpServerBin)
	w := newLiveWorld(t, `{"mcpServers":{"test":{"command":`+string(bin)+`,"trustAnnotations":true}}}`,
		fakeTurn{calls: []fakeCall{{"d1", "mcp__test__delete_everything", `{}`}, {"e1", "mcp__test__echo", `{"text":"x"}`}}}, fakeTurn{text: "ok"})
	e := w.editor(nil)
	res, rerr := e.call("session/new", map[string]any{"cwd": w.dir, "mcpServers": []any{}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	var s struct{ SessionID string }
	json.Unmarshal(res, &s)
	h := &mcpHarness{&harness{editor: e, model: w.model, dir: w.dir, session: s.SessionID}}
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "acceptEdits"})
	h.onPermission = selectOption("reject_once")
	h.prompt(h.session, "go")
	msgs := h.toolMessages(1)
	if h.permissionCount() != 1 || !strings.Contains(msgs["d1"], "rejected") || msgs["e1"] != "echo: x" {
		t.Errorf("%d permission requests; destructive %q, read-only %q", h.permissionCount(), msgs["d1"], msgs["e1"])
	}
}
