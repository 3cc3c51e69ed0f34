package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Checker is what the session's language servers say of files (package
// lsp implements it; the bridge passes it in Options). The tools know
// only this.
type Checker interface {
	// Touch says a tool read path: its language's server may start. It
	// never blocks.
	Touch(path string)
	// Changed tells the servers that path holds text and, with wait,
	// waits (bounded) for the file's diagnostics: its errors and
	// warnings. It returns at once, with an error, when no server checks
	// the file.
	Changed(ctx context.Context, path, text string, wait bool) ([]card.Diagnostic, error)
	// Open lists the files the servers hold open.
	Open() []string
	// All is every error and warning the servers have published.
	All() []card.Diagnostic
	// Query asks path's server (path holds text) a question at a 1-based
	// line and character column: LSPOps.
	Query(ctx context.Context, op, path, text string, line, col int, query string) (string, error)
}

// LSPOps are the lsp tool's operations.
var LSPOps = []string{"definition", "references", "hover", "document_symbols", "workspace_symbols"}

// Diagnostics caps: what an edit's result and the diagnostics tool list.
const (
	maxDiagnostics      = 20
	maxDiagnosticsBytes = 4 * 1024
	maxWorkspaceDiags   = 100
	maxCheckedFile      = 8 << 20 // a file the servers are sent, at most
)

// Caps of the other files' new problems in an edit's result (the lsp
// package sends at most a few files, a few lines each).
const (
	maxOtherDiagnostics      = 15
	maxOtherDiagnosticsBytes = 2 * 1024
)

// diagnosticsBlock is the text an edit's result gets for ds ("" none):
// path's problems, then the new ones of other files; the envelope's
// tags in their texts are neutralised (neutral).
func diagnosticsBlock(path string, ds []card.Diagnostic) string {
	own, others := splitDiags(path, ds)
	out := ""
	if len(own) > 0 {
		out += "\n\nThe language server reports in " + path + ":\n" + card.DiagnosticsText(own, maxDiagnostics, maxDiagnosticsBytes)
	}
	if len(others) > 0 {
		out += "\n\nNew problems in other files (they may import it):\n" + card.DiagnosticsText(others, maxOtherDiagnostics, maxOtherDiagnosticsBytes)
	}
	return neutral(out)
}

func splitDiags(path string, ds []card.Diagnostic) (own, others []card.Diagnostic) {
	for _, d := range ds {
		if d.Path == path {
			own = append(own, d)
		} else {
			others = append(others, d)
		}
	}
	return own, others
}

// afterChange is the diagnostics of a file a tool has just written, and
// the new ones of other files, those read may show (nil without a
// checker, or when no server checks the file, or none came in time).
func afterChange(ctx context.Context, chk Checker, h Host, w *workspace.Workspace, path, text string) []card.Diagnostic {
	if chk == nil {
		return nil
	}
	ds, _ := chk.Changed(ctx, path, text, true)
	return readable(h, w, ds)
}

// readable is the diagnostics of ds whose files read may show without
// asking, judged as read judges a path: resolved (symlinks, ".."), in
// the workspace's roots, and neither a process's secret nor refused by
// the permission rules (what the guard of h holds to). A server names
// the files it likes; only these are shown.
func readable(h Host, w *workspace.Workspace, ds []card.Diagnostic) []card.Diagnostic {
	seen := map[string]bool{}
	var out []card.Diagnostic
	for _, d := range ds {
		ok, known := seen[d.Path]
		if !known {
			ok = readableFile(h, w, d.Path)
			seen[d.Path] = ok
		}
		if ok {
			out = append(out, d)
		}
	}
	return out
}

func readableFile(h Host, w *workspace.Workspace, path string) bool {
	if path == "" || !filepath.IsAbs(path) {
		return false
	}
	real := w.Resolve(path)
	if !w.ContainsResolved(real) {
		return false
	}
	if g, ok := h.(guardedHost); ok {
		return g.judge(real, false) == nil
	}
	return workspace.ProcessSecret(real) == nil
}

// recheck tells the servers of the open files a command may have
// changed: each is read again through h (as any read is judged), and
// sent when it differs. It does not wait for diagnostics.
func recheck(ctx context.Context, chk Checker, h Host) {
	if chk == nil {
		return
	}
	for _, p := range chk.Open() {
		text, err := readChecked(ctx, h, p)
		if err != nil {
			continue
		}
		_, _ = chk.Changed(ctx, p, text, false)
	}
}

// readChecked is a file's text for the servers, judged as a read.
func readChecked(ctx context.Context, h Host, path string) (string, error) {
	info, err := statFile(ctx, h, path, "read")
	if err != nil {
		return "", err
	}
	if info.Size() > maxCheckedFile {
		return "", fsError("FS_FILE_TOO_LARGE", fmt.Sprintf("%q is larger than %d bytes; the language server is not sent it", path, maxCheckedFile))
	}
	text, err := h.ReadTextFile(ctx, path)
	if err != nil {
		return "", ioError(err, fmt.Sprintf("cannot read %q: %v", path, err))
	}
	return text, nil
}

type diagnosticsArgs struct {
	FilePath string `json:"file_path,omitempty" desc:"The file to check: absolute, or relative to the workspace. Omitted: every problem the language servers have reported in the session's files."`
}

type diagnosticsValue struct {
	Path        string            `json:"path,omitempty"`
	Diagnostics []card.Diagnostic `json:"diagnostics"`
}

type lspArgs struct {
	Operation string `json:"operation" enum:"definition,references,hover,document_symbols,workspace_symbols" desc:"What to ask the language server."`
	FilePath  string `json:"file_path" desc:"The file: absolute, or relative to the workspace (for workspace_symbols, a file of the language to search)."`
	Line      int    `json:"line,omitempty" desc:"1-based line, as read numbers lines (definition, references, hover)."`
	Column    int    `json:"column,omitempty" desc:"1-based character column on that line (definition, references, hover)."`
	Query     string `json:"query,omitempty" desc:"The symbol name to search for (workspace_symbols)."`
}

func newLSPTools(h Host, w *workspace.Workspace, chk Checker) ([]*registry.Tool, error) {
	diag, err := registry.Define(registry.TypedTool[diagnosticsArgs, diagnosticsValue]{
		Name:        "diagnostics",
		Description: "The errors and warnings the language servers report: in one file (checked now), or, without file_path, in every file they have checked this session.",
		Execute: func(ctx context.Context, a diagnosticsArgs, _ registry.RunContext) (diagnosticsValue, error) {
			if strings.TrimSpace(a.FilePath) == "" {
				return diagnosticsValue{Diagnostics: firstDiags(readable(h, w, chk.All()), maxWorkspaceDiags)}, nil
			}
			path := w.Abs(a.FilePath)
			text, err := readChecked(ctx, h, path)
			if err != nil {
				return diagnosticsValue{}, err
			}
			ds, err := chk.Changed(ctx, path, text, true)
			if err != nil {
				return diagnosticsValue{}, registry.NewError("LspError", "LSP_UNAVAILABLE", err.Error())
			}
			own, _ := splitDiags(path, readable(h, w, ds))
			return diagnosticsValue{Path: path, Diagnostics: nonNil(own)}, nil
		},
		Render: func(a diagnosticsArgs, v diagnosticsValue) ([]card.Content, error) {
			if len(v.Diagnostics) == 0 {
				if v.Path == "" {
					return []card.Content{card.Text("No errors or warnings reported.")}, nil
				}
				return []card.Content{card.Text("No errors or warnings in " + v.Path + ".")}, nil
			}
			return []card.Content{card.Text(card.DiagnosticsText(v.Diagnostics, maxWorkspaceDiags, 16*1024))}, nil
		},
		PresentCall: func(a diagnosticsArgs) card.CallView {
			if a.FilePath == "" {
				return &card.Generic{Title: "Diagnostics", Kind: card.KindRead}
			}
			return &card.Generic{Title: "Diagnostics " + a.FilePath, Kind: card.KindRead, Locations: []card.FileLocation{{Path: a.FilePath}}}
		},
	})
	if err != nil {
		return nil, err
	}
	diag.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "file_path", false) }
	query, err := registry.Define(registry.TypedTool[lspArgs, string]{
		Name:        "lsp",
		Description: "Ask the file's language server: definition, references or hover at line and column (as read numbers them), document_symbols of the file, or workspace_symbols matching query. Locations come as path:line:column.",
		Execute: func(ctx context.Context, a lspArgs, _ registry.RunContext) (string, error) {
			if strings.TrimSpace(a.FilePath) == "" {
				return "", errors.New("file_path must be a non-empty string")
			}
			switch a.Operation {
			case "definition", "references", "hover":
				if a.Line < 1 || a.Column < 1 {
					return "", fmt.Errorf("%s needs line and column, each 1 or more", a.Operation)
				}
			case "workspace_symbols":
				if strings.TrimSpace(a.Query) == "" {
					return "", errors.New("workspace_symbols needs a query")
				}
			}
			path := w.Abs(a.FilePath)
			text, err := readChecked(ctx, h, path)
			if err != nil {
				return "", err
			}
			if n := strings.Count(text, "\n") + 1; a.Line > n && a.Operation != "document_symbols" && a.Operation != "workspace_symbols" {
				return "", fmt.Errorf("line %d is past the end of %s (%d lines)", a.Line, path, n)
			}
			out, err := chk.Query(ctx, a.Operation, path, text, a.Line, a.Column, a.Query)
			if err != nil {
				return "", registry.NewError("LspError", "LSP_UNAVAILABLE", err.Error())
			}
			return out, nil
		},
		PresentCall: func(a lspArgs) card.CallView {
			return &card.Generic{Title: "LSP " + a.Operation + " " + a.FilePath, Kind: card.KindSearch, Locations: []card.FileLocation{{Path: a.FilePath, Line: max(a.Line, 0)}}}
		},
	})
	if err != nil {
		return nil, err
	}
	query.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "file_path", false) }
	return []*registry.Tool{diag, query}, nil
}

func firstDiags(ds []card.Diagnostic, n int) []card.Diagnostic {
	if len(ds) > n {
		return ds[:n]
	}
	return nonNil(ds)
}

func nonNil(ds []card.Diagnostic) []card.Diagnostic {
	if ds == nil {
		return []card.Diagnostic{}
	}
	return ds
}
