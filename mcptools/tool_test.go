package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// serving is a manager with one in-memory server offering tools, every
// one answering with handler.
func serving(t *testing.T, cfg Server, handler mcp.ToolHandler, tools ...*mcp.Tool) (*registry.Registry, *registry.Scope) {
	t.Helper()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: cfg.Name}, nil)
	for _, tool := range tools {
		srv.AddTool(tool, handler)
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
	m := &Manager{reg: reg, scope: scope}
	s := &server{cfg: cfg, m: m, session: cs}
	m.servers = []*server{s}
	if err := s.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return reg, scope
}

type fakeRun struct{}

func (fakeRun) Execution() registry.Execution        { return registry.Execution{CallID: "c1"} }
func (fakeRun) DeferContext(registry.ContextMessage) {}
func (fakeRun) ConcludeTurn()                        {}

// TestTool_StructuredOutputChecked: structuredContent that breaks the
// tool's outputSchema is an invalid output, with one violation as with
// several; a conforming one is the result's "structured".
func TestTool_StructuredOutputChecked(t *testing.T) {
	// The tool answers with its arguments as its structuredContent.
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var v any
		if err := json.Unmarshal(req.Params.Arguments, &v); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{StructuredContent: v}, nil
	}
	reg, scope := serving(t, Server{Name: "srv"}, echo, &mcp.Tool{
		Name:         "out",
		InputSchema:  map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}, "s": map[string]any{"type": "string"}}, "required": []any{"n"}},
	})
	tool := reg.Get("mcp__srv__out", scope)
	if tool == nil {
		t.Fatal("mcp__srv__out is not registered")
	}
	for _, tc := range []struct {
		name, structured string
		valid            bool
	}{
		{"conforming", `{"n":1,"s":"x"}`, true},
		{"no violation, optional property left out", `{"n":1}`, true},
		{"exactly one violation: a wrong type", `{"n":"x","s":"y"}`, false},
		{"exactly one violation: a required property missing", `{"s":"y"}`, false},
		{"two violations", `{"n":"x","s":1}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tool.Execute(context.Background(), jsonv.MustParse(tc.structured), fakeRun{})
			if tc.valid {
				if err != nil {
					t.Fatalf("got %v, want a result", err)
				}
				if got, _ := v.Get("structured"); got.String() != tc.structured {
					t.Errorf("got structured %s, want %s", got, tc.structured)
				}
				return
			}
			var re *registry.Error
			if !errors.As(err, &re) || re.Code != registry.CodeInvalidToolOutput || len(re.Violations) == 0 {
				t.Errorf("got %v (%s), want an invalid output", err, v)
			}
		})
	}
}

// TestTool_Timeout: a server that sets no timeout (or one that is not
// positive) gets DefaultCallTimeout for each call; a positive one is
// kept, however short.
func TestTool_Timeout(t *testing.T) {
	none := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{"unset", 0, DefaultCallTimeout},
		{"one past unset", time.Nanosecond, time.Nanosecond},
		{"negative", -time.Second, DefaultCallTimeout},
		{"set", 5 * time.Second, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, scope := serving(t, Server{Name: "srv", Timeout: tc.timeout}, none, &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}})
			tool := reg.Get("mcp__srv__t", scope)
			if tool == nil {
				t.Fatal("mcp__srv__t is not registered")
			}
			if tool.Timeout != tc.want {
				t.Errorf("got a timeout of %v, want %v", tool.Timeout, tc.want)
			}
		})
	}
}
