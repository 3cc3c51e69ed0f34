package mcptools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestTool_EffectByTrust: annotations set a tool's effect and card kind
// only when its server is trusted for them; an untrusted server's tools
// are all the most careful class, whatever they claim.
func TestTool_EffectByTrust(t *testing.T) {
	no, yes := false, true
	for _, tc := range []struct {
		name     string
		a        *mcp.ToolAnnotations
		trusted  bool
		want     registry.Effect
		wantKind card.Kind
	}{
		{"trusted, no annotations", nil, true, registry.EffectUnknown, card.KindOther},
		{"trusted, read-only", &mcp.ToolAnnotations{ReadOnlyHint: true}, true, registry.EffectRead, card.KindRead},
		{"trusted, not destructive", &mcp.ToolAnnotations{DestructiveHint: &no}, true, registry.EffectEdit, card.KindOther},
		{"trusted, destructive", &mcp.ToolAnnotations{DestructiveHint: &yes}, true, registry.EffectUnknown, card.KindOther},
		{"trusted, destructive by default", &mcp.ToolAnnotations{}, true, registry.EffectUnknown, card.KindOther},
		{"untrusted, no annotations", nil, false, registry.EffectUnknown, card.KindOther},
		{"untrusted, read-only", &mcp.ToolAnnotations{ReadOnlyHint: true}, false, registry.EffectUnknown, card.KindOther},
		{"untrusted, read-only and not destructive", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no}, false, registry.EffectUnknown, card.KindOther},
		{"untrusted, not destructive", &mcp.ToolAnnotations{DestructiveHint: &no}, false, registry.EffectUnknown, card.KindOther},
		{"untrusted, destructive", &mcp.ToolAnnotations{DestructiveHint: &yes}, false, registry.EffectUnknown, card.KindOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := effectOf(tc.a, tc.trusted); got != tc.want {
				t.Errorf("effect: got %v, want %v", got, tc.want)
			}
			if got := kindOf(tc.a, tc.trusted); got != tc.wantKind {
				t.Errorf("kind: got %v, want %v", got, tc.wantKind)
			}
		})
	}
}

// TestManager_RegisteredEffects: the tools a server registers carry the
// effect its trust allows, and plan mode's note names only the untrusted
// server's tools that claim to be read-only.
func TestManager_RegisteredEffects(t *testing.T) {
	for _, tc := range []struct {
		name     string
		trusted  bool
		effects  map[string]registry.Effect
		withNote []string
	}{
		{"untrusted", false, map[string]registry.Effect{"look": registry.EffectUnknown, "add": registry.EffectUnknown, "zap": registry.EffectUnknown},
			[]string{"mcp__srv__look"}},
		{"trusted", true, map[string]registry.Effect{"look": registry.EffectRead, "add": registry.EffectEdit, "zap": registry.EffectUnknown}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, reg, scope := connected(t, Server{Name: "srv", TrustAnnotations: tc.trusted})
			for tool, want := range tc.effects {
				def := reg.Get("mcp__srv__"+tool, scope)
				if def == nil {
					t.Fatalf("%s is not registered", tool)
				}
				if def.Effect != want {
					t.Errorf("%s: got %v, want %v", tool, def.Effect, want)
				}
			}
			for _, tool := range []string{"mcp__srv__look", "mcp__srv__add", "mcp__srv__zap", "read"} {
				note := m.PlanNote(tool)
				wantNote := strings.Contains(strings.Join(tc.withNote, ","), tool)
				if (note != "") != wantNote {
					t.Errorf("%s: note %q, want one: %v", tool, note, wantNote)
				}
				if wantNote && (!strings.Contains(note, `"trustAnnotations": true`) || !strings.Contains(note, `"srv"`) || !strings.Contains(note, "/home/u/.config/dsh-bridge/settings.json")) {
					t.Errorf("%s: the note %q does not say how to trust the server", tool, note)
				}
			}
		})
	}
}

// connected is a manager with one in-memory server offering look
// (readOnlyHint), add (destructiveHint false) and zap (no annotations).
func connected(t *testing.T, cfg Server) (*Manager, *registry.Registry, *registry.Scope) {
	t.Helper()
	ctx := context.Background()
	no := false
	srv := mcp.NewServer(&mcp.Implementation{Name: cfg.Name}, nil)
	for _, tool := range []*mcp.Tool{
		{Name: "look", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "add", Annotations: &mcp.ToolAnnotations{DestructiveHint: &no}},
		{Name: "zap"},
	} {
		mcp.AddTool(srv, tool, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	reg := registry.New()
	scope := reg.NewScope("session", nil)
	m := &Manager{reg: reg, scope: scope, opts: Options{UserSettings: "/home/u/.config/dsh-bridge/settings.json"}}
	s := &server{cfg: cfg, m: m, session: cs}
	m.servers = []*server{s}
	if err := s.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return m, reg, scope
}

// TestTrustFromUser: an editor's server trusts its annotations only when
// the user's settings trust a server of its name that is the same server.
func TestTrustFromUser(t *testing.T) {
	user := Server{Name: "gh", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1"}, TrustAnnotations: true}
	web := Server{Name: "docs", Type: "http", URL: "https://docs.example/mcp", TrustAnnotations: true}
	for _, tc := range []struct {
		name      string
		editor    Server
		user      []Server
		want      bool
		differing bool
	}{
		{"the same stdio server", Server{Name: "gh", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1"}}, []Server{user}, true, false},
		{"the same http server, other headers", Server{Name: "docs", Type: "http", URL: "https://docs.example/mcp", Headers: map[string]string{"A": "b"}}, []Server{web}, true, false},
		{"another command", Server{Name: "gh", Type: "stdio", Command: "./gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1"}}, []Server{user}, false, true},
		{"other arguments", Server{Name: "gh", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio", "--evil"}, Env: map[string]string{"T": "1"}}, []Server{user}, false, true},
		{"another environment", Server{Name: "gh", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1", "LD_PRELOAD": "./x.so"}}, []Server{user}, false, true},
		{"another url", Server{Name: "docs", Type: "http", URL: "https://evil.example/mcp"}, []Server{web}, false, true},
		{"another transport", Server{Name: "docs", Type: "sse", URL: "https://docs.example/mcp"}, []Server{web}, false, true},
		{"the user's entry does not trust", Server{Name: "gh", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1"}},
			[]Server{{Name: "gh", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1"}}}, false, false},
		{"no entry of its name", Server{Name: "other", Type: "stdio", Command: "/bin/gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "1"}}, []Server{user}, false, false},
		{"the editor cannot trust its own server", Server{Name: "x", Type: "stdio", Command: "/bin/x", TrustAnnotations: true}, nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, differ := TrustFromUser([]Server{tc.editor}, tc.user)
			if got[0].TrustAnnotations != tc.want {
				t.Errorf("trusted: got %v, want %v", got[0].TrustAnnotations, tc.want)
			}
			if (len(differ) > 0) != tc.differing {
				t.Errorf("differing: got %v, want %v", differ, tc.differing)
			}
		})
	}
}

// TestSettings_TrustAnnotations: the settings entry's trustAnnotations
// reaches the server it describes.
func TestSettings_TrustAnnotations(t *testing.T) {
	var f struct {
		MCPServers Settings `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(`{"mcpServers":{"a":{"command":"/bin/a","trustAnnotations":true},"b":{"command":"/bin/b"}}}`), &f); err != nil {
		t.Fatal(err)
	}
	servers, err := f.MCPServers.Servers()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range servers {
		got[s.Name] = s.TrustAnnotations
	}
	if !got["a"] || got["b"] {
		t.Errorf("got %v, want a trusted and b not", got)
	}
}
