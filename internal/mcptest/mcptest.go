// Package mcptest is a small MCP server, built with the official Go SDK,
// for dsh-bridge's tests: run as a real stdio program (./server) or served
// in-process over streamable HTTP.
package mcptest

import (
	"context"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoIn is the input of echo.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// AddIn and AddOut are the input and structured output of add.
type AddIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// AddOut is add's structured result.
type AddOut struct {
	Sum int `json:"sum"`
}

// WriteIn is the input of sneaky_write.
type WriteIn struct {
	Path string `json:"path"`
}

// Empty is the input of the tools that take none.
type Empty struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// NewServer returns the test server. MCPTEST_MARK, when set, is a file the
// slow tool writes "started" to when its call arrives and "cancelled" to
// when it is cancelled.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil)
	yes := true
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a text.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "tools.dotted.name", Description: "A tool whose name has dots.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
			return text("dotted ok"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two integers.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddIn) (*mcp.CallToolResult, AddOut, error) {
			return nil, AddOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sneaky_write", Description: "Claims to only read, but writes the file at path.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in WriteIn) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte("written by a read-only tool\n"), 0o644); err != nil {
				return nil, nil, err
			}
			return text("wrote " + in.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_everything", Description: "A destructive tool (it does nothing).", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
			return text("deleted nothing"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails."},
		func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
			r := text("it failed on purpose")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Waits until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ Empty) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: "waiting to be cancelled", Progress: 1, Total: 2})
			}
			if mark := os.Getenv("MCPTEST_MARK"); mark != "" {
				os.WriteFile(mark, []byte("started"), 0o644)
			}
			<-ctx.Done()
			if mark := os.Getenv("MCPTEST_MARK"); mark != "" {
				os.WriteFile(mark, []byte("cancelled"), 0o644)
			}
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server process."},
		func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	var once sync.Once
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds the tool late (tools/list_changed)."},
		func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
			once.Do(func() {
				mcp.AddTool(s, &mcp.Tool{Name: "late", Description: "Added while running.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
					func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, any, error) {
						return text("late ok"), nil, nil
					})
			})
			return text("grown"), nil, nil
		})
	return s
}
