// Command dsh-bridge is an ACP agent that editors spawn over stdio.
//
// Usage:
//
//	dsh-bridge tools    print the registered tool schemas as JSON
//
// stdout carries only protocol bytes (or, for subcommands, their output);
// logs go to stderr.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, nil)))
	if len(args) == 0 {
		fmt.Fprintln(stderr, "dsh-bridge: serving ACP over stdio is not built yet; available subcommands: tools")
		return 2
	}
	switch args[0] {
	case "tools":
		reg := registry.New()
		cwd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(stderr, "dsh-bridge:", err)
			return 1
		}
		ws, err := tools.NewWorkspace(cwd)
		if err != nil {
			fmt.Fprintln(stderr, "dsh-bridge:", err)
			return 1
		}
		dispose, err := tools.Register(reg, nil, tools.Options{Workspace: ws})
		if err != nil {
			fmt.Fprintln(stderr, "dsh-bridge:", err)
			return 1
		}
		defer dispose()
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reg.Schemas(nil)); err != nil {
			fmt.Fprintln(stderr, "dsh-bridge:", err)
			return 1
		}
		return 0
	default:
		fmt.Fprintf(stderr, "dsh-bridge: unknown subcommand %q; available: tools\n", args[0])
		return 2
	}
}
