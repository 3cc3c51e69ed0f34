package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// liveWorld is a workspace, a state dir, user settings and the DeepSeek
// fake, shared by the editor processes of one test.
type liveWorld struct {
	t     *testing.T
	dir   string
	state string
	cfg   string
	model *fakeModel
	env   []string
}

func newLiveWorld(t *testing.T, userSettings string, turns ...fakeTurn) *liveWorld {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	w := &liveWorld{t: t, dir: dir, state: t.TempDir(), cfg: t.TempDir(), model: newFakeModel(t, turns...)}
	if userSettings != "" {
		os.MkdirAll(filepath.Join(w.cfg, "dsh-bridge"), 0o700)
		os.WriteFile(filepath.Join(w.cfg, "dsh-bridge", "settings.json"), []byte(userSettings), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	return w
}

// editor starts a bridge process in this world; DSH_MODEL stays unset
// unless env sets it.
func (w *liveWorld) editor(caps map[string]any, env ...string) *editor {
	e := startEditor(w.t, append([]string{"DSH_BASE_URL=" + w.model.srv.URL, "DSH_STATE_DIR=" + w.state, "XDG_CONFIG_HOME=" + w.cfg}, env...)...)
	e.initialize(caps)
	return e
}

func (w *liveWorld) load(e *editor, session string) json.RawMessage {
	w.t.Helper()
	res, err := e.call("session/load", map[string]any{"sessionId": session, "cwd": w.dir, "mcpServers": []any{}})
	if err != nil {
		w.t.Fatalf("session/load: %+v", err)
	}
	return res
}

// messagesPrefix is a request body up to the end of its messages array.
func messagesPrefix(body []byte) []byte {
	i := bytes.Index(body, []byte(`],"tools"`))
	if i < 0 {
		return body
	}
	return body[:i]
}

func readCall(id string) fakeCall { return fakeCall{id, "read", args("file_path", "a.txt")} }

// TestLiveModel_ToolLoops: with only a key (no DSH_MODEL), two prompts
// with tool calls end cleanly against today's DeepSeek, every request
// extends the previous one byte for byte (the prefix cache hits), and the
// same holds after session/load in a new process.
func TestLiveModel_ToolLoops(t *testing.T) {
	w := newLiveWorld(t, "",
		fakeTurn{calls: []fakeCall{readCall("r1")}}, fakeTurn{text: "first done"},
		fakeTurn{reasoning: "", calls: []fakeCall{{"g1", "grep", args("pattern", "hello")}}}, fakeTurn{text: "second done"})
	e := w.editor(nil)
	s := e.newSession(w.dir)
	for _, p := range []string{"read a.txt", "grep it"} {
		if stop := e.prompt(s, p); stop != "end_turn" {
			t.Fatalf("%s: stop %q", p, stop)
		}
	}
	if txt := e.agentText(); strings.Contains(txt, "[model error]") || !strings.Contains(txt, "second done") {
		t.Fatalf("the turns failed: %q", txt)
	}
	reqs, bodies := w.model.recorded(), w.model.rawBodies()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Model != "deepseek-v4-flash" || !r.thinking() || r.ReasoningEffort != "high" {
			t.Errorf("request %d: model %q thinking %v effort %q", i, r.Model, r.thinking(), r.ReasoningEffort)
		}
	}
	last := reqs[3].Messages
	if m := last[2]; m.Role != "assistant" || m.ReasoningContent == nil || *m.ReasoningContent != "Thinking it over." {
		t.Errorf("the first tool-call message lost its reasoning in a later turn: %+v", m)
	}
	for i := 1; i < len(bodies); i++ {
		if p := messagesPrefix(bodies[i-1]); !bytes.HasPrefix(bodies[i], p) {
			t.Errorf("request %d does not extend request %d byte for byte", i, i-1)
		}
	}
	if u := w.model.reported(); u[len(u)-1].hit == 0 {
		t.Errorf("the prefix cache never hit: %+v", u)
	}
	e.close()

	w.model.add(fakeTurn{calls: []fakeCall{readCall("r2")}}, fakeTurn{text: "third done"})
	e2 := w.editor(nil)
	w.load(e2, s)
	if stop := e2.prompt(s, "once more"); stop != "end_turn" || strings.Contains(e2.agentText(), "[model error]") {
		t.Fatalf("after load: stop %q text %q", stop, e2.agentText())
	}
	bodies = w.model.rawBodies()
	if !bytes.HasPrefix(bodies[4], messagesPrefix(bodies[3])) {
		t.Errorf("the history rebuilt by session/load differs from the live one:\n live %s\n load %s", messagesPrefix(bodies[3]), bodies[4])
	}
}

// TestLiveModel_OneConnection: over HTTPS, as the real service is served,
// the model list and every request of two prompts (tool rounds between
// them) go over one connection: each answer's body is read to its end
// after [DONE], which comes in a TLS record of its own, so the connection
// goes back to the pool instead of costing the next request a handshake.
func TestLiveModel_OneConnection(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	m := newFakeModelTLS(t)
	m.add(fakeTurn{calls: []fakeCall{readCall("r1")}}, fakeTurn{calls: []fakeCall{readCall("r2")}}, fakeTurn{text: "first done"},
		fakeTurn{calls: []fakeCall{readCall("r3")}}, fakeTurn{text: "second done"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "SSL_CERT_FILE="+m.ca, "DSH_STATE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	e.initialize(nil)
	s := e.newSession(dir)
	for _, p := range []string{"read a.txt twice", "once more"} {
		if stop := e.prompt(s, p); stop != "end_turn" {
			t.Fatalf("%s: stop %q", p, stop)
		}
		time.Sleep(20 * time.Millisecond) // the editor's user reads the answer
	}
	if txt := e.agentText(); !strings.Contains(txt, "second done") || strings.Contains(txt, "[model error]") {
		t.Fatalf("the turns failed: %q", txt)
	}
	if n := len(m.recorded()); n != 5 {
		t.Fatalf("%d requests, want 5", n)
	}
	if got := m.conns.Load(); got != 1 {
		t.Errorf("the model list and 5 requests opened %d connections, want 1", got)
	}
}

// configOptions decodes the configOptions of a result.
func configOptions(t *testing.T, raw json.RawMessage) map[string]string {
	t.Helper()
	var r struct {
		ConfigOptions []struct {
			ID, CurrentValue string
			Options          []struct{ Value string }
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range r.ConfigOptions {
		var vals []string
		for _, v := range o.Options {
			vals = append(vals, v.Value)
		}
		out[o.ID] = o.CurrentValue + " of " + strings.Join(vals, ",")
	}
	return out
}

func TestLiveModel_ConfigOptions(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{calls: []fakeCall{readCall("r1")}}, fakeTurn{text: "ok"})
	e := w.editor(nil)
	res, rerr := e.call("session/new", map[string]any{"cwd": w.dir, "mcpServers": []any{}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	opts := configOptions(t, res)
	if opts["model"] != "deepseek-v4-flash of deepseek-v4-flash,deepseek-v4-pro,qwen3-coder" || opts["thought_level"] != "high of off,high,max" || !strings.HasPrefix(opts["mode"], "default of") {
		t.Fatalf("session/new configOptions %v", opts)
	}
	var s struct{ SessionID string }
	json.Unmarshal(res, &s)
	set := func(id, value string) (map[string]string, *rpcError) {
		res, err := e.call("session/set_config_option", map[string]any{"sessionId": s.SessionID, "configId": id, "value": value})
		if err != nil {
			return nil, err
		}
		return configOptions(t, res), nil
	}
	e.prompt(s.SessionID, "with a tool call first")

	for _, tc := range []struct {
		id, value string
		check     func(chatRequest) bool
	}{
		{"thought_level", "max", func(r chatRequest) bool {
			return r.thinking() && r.ReasoningEffort == "max" && r.Model == "deepseek-v4-flash"
		}},
		{"model", "deepseek-v4-pro", func(r chatRequest) bool { return r.Model == "deepseek-v4-pro" && r.ReasoningEffort == "max" }},
		{"thought_level", "off", func(r chatRequest) bool { return !r.thinking() && r.ReasoningEffort == "" }},
		{"model", "qwen3-coder", func(r chatRequest) bool { return r.Model == "qwen3-coder" && r.Thinking == nil }},
	} {
		t.Run(tc.id+"="+tc.value, func(t *testing.T) {
			opts, err := set(tc.id, tc.value)
			if err != nil || !strings.HasPrefix(opts[tc.id], tc.value+" of") {
				t.Fatalf("set: %v %+v", opts, err)
			}
			e.waitFor(func() bool {
				for _, u := range e.decodedUpdates() {
					if u.SessionUpdate == "config_option_update" && strings.Contains(string(u.Raw), `"currentValue":"`+tc.value+`"`) {
						return true
					}
				}
				return false
			})
			before := len(w.model.recorded())
			if stop := e.prompt(s.SessionID, "next"); stop != "end_turn" || strings.Contains(e.agentText(), "[model error]") {
				t.Fatalf("stop %q text %q", stop, e.agentText())
			}
			reqs := w.model.recorded()
			if len(reqs) != before+1 || !tc.check(reqs[before]) {
				t.Errorf("the next request did not follow the choice: %+v", reqs[before])
			}
		})
	}
	if opts, _ := set("mode", "plan"); opts["thought_level"] != "" {
		t.Errorf("a model without thinking still offers thought levels: %v", opts)
	}
	for _, bad := range [][2]string{{"model", "deepseek-chat"}, {"thought_level", "ultra"}, {"temperature", "1"}} {
		if _, err := set(bad[0], bad[1]); err == nil || err.Code != -32602 {
			t.Errorf("%s=%s: %+v", bad[0], bad[1], err)
		}
	}
	e.close()

	e2 := w.editor(nil)
	if opts := configOptions(t, w.load(e2, s.SessionID)); !strings.HasPrefix(opts["model"], "qwen3-coder of") || !strings.HasPrefix(opts["mode"], "plan of") {
		t.Errorf("the choices were not restored: %v", opts)
	}
	e2.prompt(s.SessionID, "after load")
	if reqs := w.model.recorded(); reqs[len(reqs)-1].Model != "qwen3-coder" {
		t.Errorf("after load the request went to %q", reqs[len(reqs)-1].Model)
	}
}

// usageUpdates returns the usage_update payloads.
type usageSeen struct {
	Used, Size int64
	Cost       *struct {
		Amount   float64
		Currency string
	}
}

func usages(e *editor) []usageSeen {
	var out []usageSeen
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "usage_update" {
			var x usageSeen
			json.Unmarshal(u.Raw, &x)
			out = append(out, x)
		}
	}
	return out
}

func TestLiveModel_Cost(t *testing.T) {
	w := newLiveWorld(t, `{"models":{"deepseek-v4-flash":{"price":{"cacheHit":1,"cacheMiss":2,"output":4}}}}`,
		fakeTurn{calls: []fakeCall{readCall("r1")}}, fakeTurn{text: "one"}, fakeTurn{text: "two"})
	// Usages whose costs add up with float noise: 100 and 126 millionths
	// of a dollar make 0.00022600000000000002, which must not reach the
	// editor as such.
	w.model.tokens = []fakeUsage{{prompt: 50}, {prompt: 63}, {prompt: 3000, completion: 7, hit: 128}}
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "first")
	e.prompt(s, "second")
	want := 0.0
	for _, u := range w.model.billed() { // the title request's cost included
		want += (float64(u.hit)*1 + float64(u.miss)*2 + float64(u.completion)*4) / 1e6
	}
	seen := usages(e)
	if len(seen) != 4 { // the first turn's two, the title request's, the second turn's
		t.Fatalf("%d usage updates, want 4", len(seen))
	}
	last := seen[3]
	if last.Cost == nil || math.Abs(last.Cost.Amount-want) > 1e-12 || last.Cost.Currency != "USD" {
		t.Errorf("cost %+v, want %v USD", last.Cost, want)
	}
	if fu := w.model.reported()[2]; last.Used != int64(fu.prompt) || last.Size != 1_000_000 {
		t.Errorf("used %d size %d, want %d of 1000000", last.Used, last.Size, fu.prompt)
	}
	if seen[0].Cost.Amount >= seen[1].Cost.Amount {
		t.Errorf("the cost does not accumulate: %+v", seen)
	}
	// The amounts are written as the decimals they are, not with a sum's
	// float noise (0.0006386339999999999): nine places at most.
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate != "usage_update" {
			continue
		}
		var raw struct{ Cost struct{ Amount json.Number } }
		json.Unmarshal(u.Raw, &raw)
		if _, frac, _ := strings.Cut(raw.Cost.Amount.String(), "."); len(frac) > 9 {
			t.Errorf("cost amount written as %s", raw.Cost.Amount)
		}
	}

	e.call("session/set_config_option", map[string]any{"sessionId": s, "configId": "model", "value": "qwen3-coder"})
	e.prompt(s, "unpriced")
	if seen := usages(e); seen[len(seen)-1].Cost != nil || seen[len(seen)-1].Size != 128_000 {
		t.Errorf("a model without a known price reported %+v", seen[len(seen)-1])
	}
}

// TestLiveModel_Errors: every class of API failure reaches the editor as
// text a person can act on, and the turn ends cleanly.
func TestLiveModel_Errors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      []string
		turns    []fakeTurn
		want     []string
		requests int
		minTime  time.Duration
	}{
		{"wrong key", []string{"DSH_API_KEY=sk-wrong-0123456789"}, nil,
			[]string{"API key was refused", "DSH_API_KEY", "Authentication Fails"}, 0, 0},
		{"no balance", nil, []fakeTurn{{status: 402, message: "Insufficient Balance"}},
			[]string{"insufficient balance", "Insufficient Balance"}, 1, 0},
		{"unknown model", []string{"DSH_MODEL=deepseek-v9"}, nil,
			[]string{"does not list the model \"deepseek-v9\"", "does not serve the model \"deepseek-v9\"", "Model Not Exist", "deepseek-v4-flash, deepseek-v4-pro, qwen3-coder"}, 1, 0},
		{"retired model", []string{"DSH_MODEL=deepseek-chat"}, nil,
			[]string{"retired", "2026-07-24", "deepseek-v4-flash, deepseek-v4-pro"}, 0, 0},
		{"429 waits for Retry-After", nil, []fakeTurn{{status: 429, retryAfter: "1", message: "Rate Limit Reached"}, {text: "after the wait"}},
			[]string{"after the wait"}, 2, time.Second},
		{"429 reported after the retries", nil, []fakeTurn{{status: 429, retryAfter: "0.2"}, {status: 429, retryAfter: "0.2"}, {status: 429, retryAfter: "0.2"}, {status: 429, retryAfter: "0.2", message: "Rate Limit Reached"}},
			[]string{"rate limiting", "4 attempts", "Rate Limit Reached"}, 4, 600 * time.Millisecond},
		{"503 retried", nil, []fakeTurn{{status: 503, retryAfter: "0.1"}, {text: "recovered"}}, []string{"recovered"}, 2, 0},
		{"stream cut", nil, []fakeTurn{{text: "partial answ", cut: true}},
			[]string{"partial answ", "cut off", "What arrived is kept"}, 1, 0},
		// DeepSeek's streams sometimes stop without ending: the bridge cuts
		// one quiet for DSH_STREAM_IDLE instead of waiting forever.
		{"stream goes quiet", []string{"DSH_STREAM_IDLE=300ms"}, []fakeTurn{{text: "partial answ", hang: true}},
			[]string{"partial answ", "cut off", "no data from the model for 300ms", "What arrived is kept"}, 1, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newLiveWorld(t, "", tc.turns...)
			e := w.editor(nil, tc.env...)
			s := e.newSession(w.dir)
			start := time.Now()
			if stop := e.prompt(s, "go"); stop != "end_turn" {
				t.Errorf("stop %q", stop)
			}
			txt := e.agentText()
			for _, want := range tc.want {
				if !strings.Contains(txt, want) {
					t.Errorf("%q lacks %q", txt, want)
				}
			}
			chat := 0
			for _, r := range w.model.recorded() {
				if r.Model != "" {
					chat++
				}
			}
			if tc.requests > 0 && chat != tc.requests || time.Since(start) < tc.minTime {
				t.Errorf("%d requests in %v, want %d in at least %v", chat, time.Since(start), tc.requests, tc.minTime)
			}
			e.close()
			seen := e.stderr.String() + fmt.Sprint(e.decodedUpdates())
			filepath.WalkDir(w.state, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					seen += string(b)
				}
				return nil
			})
			if strings.Contains(seen, "sk-wrong-0123456789") || strings.Contains(seen, "test-key") {
				t.Error("the API key leaked into a log, a session file or an update")
			}
		})
	}
	t.Run("a cut answer stays in the history", func(t *testing.T) {
		w := newLiveWorld(t, "", fakeTurn{text: "partial answ", cut: true}, fakeTurn{text: "whole"})
		e := w.editor(nil)
		s := e.newSession(w.dir)
		e.prompt(s, "go")
		e.prompt(s, "continue")
		reqs := w.model.recorded()
		msgs := reqs[len(reqs)-1].Messages
		if len(msgs) < 3 || msgs[2].Role != "assistant" || fmt.Sprint(msgs[2].Content) != "partial answ" {
			t.Errorf("the partial answer was dropped: %+v", msgs)
		}
	})
}

// TestLiveModel_EmptyReasoningIsSentBack: a tool call made with thinking
// off has no reasoning; once thinking is back on, DeepSeek still wants
// reasoning_content on that message, as "".
func TestLiveModel_EmptyReasoningIsSentBack(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{calls: []fakeCall{readCall("r1")}}, fakeTurn{text: "read"}, fakeTurn{text: "thought again"})
	e := w.editor(nil)
	s := e.newSession(w.dir)
	set := func(v string) {
		if _, err := e.call("session/set_config_option", map[string]any{"sessionId": s, "configId": "thought_level", "value": v}); err != nil {
			t.Fatal(err)
		}
	}
	set("off")
	e.prompt(s, "read without thinking")
	set("high")
	if stop := e.prompt(s, "think now"); stop != "end_turn" || strings.Contains(e.agentText(), "[model error]") {
		t.Fatalf("stop %q text %q", stop, e.agentText())
	}
	reqs := w.model.recorded()
	m := reqs[len(reqs)-1].Messages[2]
	if m.ReasoningContent == nil || *m.ReasoningContent != "" || len(m.ToolCalls) != 1 {
		t.Errorf("tool-call message %+v", m)
	}
}
