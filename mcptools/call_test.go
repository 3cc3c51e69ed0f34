package mcptools

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// A call that meets a connection the server has closed (a crash no
// watcher has marked yet) fails as a call to a server that is down: the
// model reads that the server is unavailable, not a transport error.
func TestCall_ServerGoneBeforeItsWatcherNoticed(t *testing.T) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "gone"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, nil, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	s := &server{cfg: Server{Name: "gone"}, session: cs} // no watcher runs
	if _, err := s.call(ctx, "echo", "mcp__gone__echo", "", jsonv.MustParse(`{}`), nil); err != nil {
		t.Fatalf("a call while up: %v", err)
	}
	ss.Close()
	cs.Wait()
	_, err = s.call(ctx, "echo", "mcp__gone__echo", "", jsonv.MustParse(`{}`), nil)
	if err == nil || !strings.Contains(err.Error(), `the MCP server "gone" is unavailable (`) || !strings.Contains(err.Error(), "its tools cannot run until it is back") {
		t.Errorf("a call after the server went: %v", err)
	}
}
