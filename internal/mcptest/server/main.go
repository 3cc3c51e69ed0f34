// Command server runs the mcptest MCP server over stdio.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/internal/mcptest"
)

func main() {
	if err := mcptest.NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
