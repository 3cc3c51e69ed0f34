package bridge_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// noKey is the environment of a bridge with no key anywhere: none set,
// the keychain off, the config folder cfg (where login stores the file).
func noKey(cfg string) []string {
	return []string{"DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=", "DSH_KEYCHAIN=off", "XDG_CONFIG_HOME=" + cfg}
}

type wireAuthMethod struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Type string         `json:"type"`
	Args []string       `json:"args"`
	Meta map[string]any `json:"_meta"`
}

func initializeAuth(t *testing.T, e *editor, caps map[string]any) []wireAuthMethod {
	t.Helper()
	res, err := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps})
	if err != nil {
		t.Fatalf("initialize: %+v", err)
	}
	var r struct {
		AuthMethods []wireAuthMethod `json:"authMethods"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	return r.AuthMethods
}

// TestAuth_Methods checks initialize's authMethods (the harness validates
// each answer against the ACP schema), and the ACP Registry's check: a
// method of type agent (no type) or terminal.
func TestAuth_Methods(t *testing.T) {
	agent := wireAuthMethod{ID: "dsh-api-key", Name: "API key"}
	terminal := wireAuthMethod{ID: "dsh-login", Name: "Sign in with an API key", Type: "terminal", Args: []string{"login"}}
	for _, tc := range []struct {
		name      string
		caps      map[string]any
		want      []wireAuthMethod
		legacyTUI bool // the terminal method carries the older _meta["terminal-auth"]
	}{
		{"no terminal auth: the agent method only", map[string]any{"terminal": true}, []wireAuthMethod{agent}, false},
		{"auth.terminal", map[string]any{"auth": map[string]any{"terminal": true}}, []wireAuthMethod{terminal, agent}, false},
		{"auth.terminal false", map[string]any{"auth": map[string]any{"terminal": false}}, []wireAuthMethod{agent}, false},
		{"the older _meta terminal-auth, as the registry's check sends it", map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true,
			"_meta": map[string]any{"terminal_output": true, "terminal-auth": true}}, []wireAuthMethod{terminal, agent}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startEditor(t, noKey(t.TempDir())...)
			got := initializeAuth(t, e, tc.caps)
			if len(got) != len(tc.want) {
				t.Fatalf("authMethods %+v, want %+v", got, tc.want)
			}
			listable := false
			for i, m := range got {
				w := tc.want[i]
				if m.ID != w.ID || m.Name != w.Name || m.Type != w.Type || !slices.Equal(m.Args, w.Args) {
					t.Errorf("method %d = %+v, want %+v", i, m, w)
				}
				if m.Type == "" || m.Type == "agent" || m.Type == "terminal" {
					listable = true
				}
				legacy, _ := m.Meta["terminal-auth"].(map[string]any)
				if want := tc.legacyTUI && m.Type == "terminal"; (legacy != nil) != want {
					t.Errorf("method %s _meta %v, want terminal-auth: %v", m.ID, m.Meta, want)
				} else if want && (legacy["command"] != binary || legacy["label"] != "dsh-bridge login" || !slices.Equal(toStrings(legacy["args"]), []string{"login"})) {
					t.Errorf("terminal-auth %v, want the bridge's path and login", legacy)
				}
			}
			if !listable {
				t.Error("the registry's check would refuse this answer: no method of type agent or terminal")
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// TestAuth_SignIn: with no key anywhere sessions fail with auth_required
// and authenticate says how to sign in; `dsh-bridge login` then stores a
// key, which the running bridge and a new one use to reach the model;
// the key is in no log, session file or message.
func TestAuth_SignIn(t *testing.T) {
	const key = "sk-login-0123456789abcdef"
	cfg, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	m := newFakeModel(t, fakeTurn{text: "first answer"}, fakeTurn{text: "second answer"})
	m.key = key
	env := append(noKey(cfg), "DSH_STATE_DIR="+state, "DSH_BASE_URL=")
	e := startEditor(t, env...)
	initializeAuth(t, e, map[string]any{"auth": map[string]any{"terminal": true}})

	_, rerr := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	if rerr == nil || rerr.Code != -32000 || !strings.Contains(rerr.Message, "dsh-bridge login") || !strings.Contains(rerr.Message, "DSH_API_KEY") {
		t.Fatalf("session/new without a key: %+v, want -32000 saying how to sign in", rerr)
	}
	var data struct {
		AuthMethods []wireAuthMethod `json:"authMethods"`
	}
	if err := json.Unmarshal(rerr.Data, &data); err != nil || len(data.AuthMethods) != 2 || data.AuthMethods[0].ID != "dsh-login" || data.AuthMethods[1].ID != "dsh-api-key" {
		t.Errorf("the error's data %s (%v), want both auth methods", rerr.Data, err)
	}
	if _, rerr := e.call("session/load", map[string]any{"sessionId": "sess_0", "cwd": dir, "mcpServers": []any{}}); rerr == nil || rerr.Code != -32000 {
		t.Errorf("session/load without a key: %+v, want -32000", rerr)
	}
	if _, rerr := e.call("authenticate", map[string]any{"methodId": "dsh-api-key"}); rerr == nil || rerr.Code != -32000 || !strings.Contains(rerr.Message, "dsh-bridge login") {
		t.Errorf("authenticate without a key: %+v, want -32000 saying how to sign in", rerr)
	}
	if _, rerr := e.call("authenticate", map[string]any{"methodId": "oauth"}); rerr == nil || rerr.Code != -32602 {
		t.Errorf("authenticate with an unknown id: %+v, want -32602", rerr)
	}

	login := exec.Command(binary, "login")
	login.Env = append(os.Environ(), env...)
	login.Stdin = strings.NewReader(key + "\n" + m.srv.URL + "\n")
	if out, err := login.CombinedOutput(); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	} else if strings.Contains(string(out), key) {
		t.Errorf("login printed the key: %s", out)
	}

	// The running bridge takes the stored key.
	if _, rerr := e.call("authenticate", map[string]any{"methodId": "dsh-api-key"}); rerr != nil {
		t.Fatalf("authenticate after login: %+v", rerr)
	}
	if stop := e.prompt(e.newSession(dir), "hello"); stop != "end_turn" || !strings.Contains(e.agentText(), "first answer") {
		t.Errorf("after login: stop %q, text %q", stop, e.agentText())
	}
	// A new bridge does too, with no variable set.
	e2 := startEditor(t, env...)
	initializeAuth(t, e2, map[string]any{})
	if stop := e2.prompt(e2.newSession(dir), "again"); stop != "end_turn" || !strings.Contains(e2.agentText(), "second answer") {
		t.Errorf("a new bridge: stop %q, text %q", stop, e2.agentText())
	}
	if n := len(m.recorded()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
	e.close()
	e2.close()
	for i, ed := range []*editor{e, e2} {
		if strings.Contains(ed.stderr.String(), key) {
			t.Errorf("bridge %d logged the key", i)
		}
		ed.mu.Lock()
		for _, line := range ed.raw {
			if strings.Contains(line, key) {
				t.Errorf("bridge %d sent the key: %s", i, line)
			}
		}
		ed.mu.Unlock()
	}
	logs := 0
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		logs++
		if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
	if logs == 0 {
		t.Error("no session file was written to look in")
	}
}
