package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Server is how to run one language's server.
type Server struct {
	// Language names it (the settings' key): "go", "python", …
	Language string
	// Command is the program and its arguments; the program is looked up
	// on $PATH's absolute folders.
	Command []string
	// Extensions are the file name endings it serves (".go").
	Extensions []string
	// StartTimeout bounds its start and initial load (0: the manager's).
	StartTimeout time.Duration
	// Configuration answers workspace/configuration, by section; a
	// section not named gets null (the server's defaults).
	Configuration map[string]any
}

// Builtins are the servers dsh-bridge knows without settings.
func Builtins() []Server {
	return []Server{
		// gopls computes the diagnostics of the packages a change does not
		// open (the files that import it) diagnosticsDelay after the
		// change, 1s by default (gopls's doc/settings.md, v0.23, read
		// 2026-12-08): none would come within an edit's wait. 0s: with
		// the changed file's.
		{Language: "go", Command: []string{"gopls"}, Extensions: []string{".go"},
			Configuration: map[string]any{"gopls": map[string]any{"diagnosticsDelay": "0s"}}},
		{Language: "python", Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py", ".pyi"}},
		{Language: "typescript", Command: []string{"typescript-language-server", "--stdio"},
			Extensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}},
		{Language: "rust", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}},
		{Language: "c", Command: []string{"clangd"}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"}},
	}
}

// languageIDs are LSP's language identifiers of the extensions whose
// identifier is not the server's language (LSP 3.17's table of
// TextDocumentItem.languageId, read 2026-12-07).
var languageIDs = map[string]string{
	".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".jsx": "javascriptreact", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp",
}

// languageID is the identifier a file of path gets in didOpen.
func (s Server) languageID(path string) string {
	if id, ok := languageIDs[strings.ToLower(filepath.Ext(path))]; ok {
		return id
	}
	return s.Language
}

// Settings are the "lsp" key of one settings file: servers to add or
// change, and languages turned off.
type Settings struct {
	// Off turns every server off ("lsp": false).
	Off bool
	// Servers are the entries with a command or extensions.
	Servers []Server
	// Disabled are the languages turned off ("go": false, or
	// {"disabled": true}).
	Disabled []string
}

// entry is one language's settings.
type entry struct {
	Command        []string `json:"command"`
	Extensions     []string `json:"extensions"`
	Disabled       bool     `json:"disabled"`
	StartTimeoutMs int      `json:"startTimeoutMs"`
}

// ParseSettings reads the value of a settings file's "lsp" key (absent:
// nil raw). The forms:
//
//	"lsp": false                                   every server off
//	"lsp": {"go": false}                           one off
//	"lsp": {"ruby": {"command": ["ruby-lsp"], "extensions": [".rb"]}}
//	"lsp": {"go": {"command": ["gopls", "-remote=auto"]}}  a built-in's command
//
// An entry may set "startTimeoutMs". A malformed value is an error and
// yields no settings.
func ParseSettings(raw json.RawMessage) (Settings, error) {
	var s Settings
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return Settings{Off: !b}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Settings{}, fmt.Errorf("lsp: want false or an object of languages: %v", err)
	}
	langs := make([]string, 0, len(m))
	for k := range m {
		langs = append(langs, k)
	}
	sort.Strings(langs)
	for _, lang := range langs {
		v := m[lang]
		if json.Unmarshal(v, &b) == nil {
			if !b {
				s.Disabled = append(s.Disabled, lang)
			}
			continue
		}
		var e entry
		if err := json.Unmarshal(v, &e); err != nil {
			return Settings{}, fmt.Errorf("lsp.%s: %v", lang, err)
		}
		if e.Disabled {
			s.Disabled = append(s.Disabled, lang)
			continue
		}
		for i, x := range e.Extensions {
			if !strings.HasPrefix(x, ".") || len(x) < 2 {
				return Settings{}, fmt.Errorf("lsp.%s.extensions[%d]: %q is not an extension like \".rb\"", lang, i, x)
			}
		}
		if len(e.Command) > 0 && strings.TrimSpace(e.Command[0]) == "" {
			return Settings{}, fmt.Errorf("lsp.%s.command: the program is empty", lang)
		}
		if e.StartTimeoutMs < 0 {
			return Settings{}, fmt.Errorf("lsp.%s.startTimeoutMs must not be negative", lang)
		}
		s.Servers = append(s.Servers, Server{Language: lang, Command: e.Command, Extensions: e.Extensions,
			StartTimeout: time.Duration(e.StartTimeoutMs) * time.Millisecond})
	}
	return s, nil
}

// Merge applies layers of settings (the user's, then a trusted
// workspace's) to base: an entry replaces what it sets of the server of
// its language (or adds one, which needs both a command and
// extensions), a disabled language goes, and Off leaves none.
func Merge(base []Server, layers ...Settings) []Server {
	out := slices.Clone(base)
	for _, l := range layers {
		if l.Off {
			return nil
		}
		for _, s := range l.Servers {
			i := slices.IndexFunc(out, func(o Server) bool { return o.Language == s.Language })
			if i < 0 {
				if len(s.Command) > 0 && len(s.Extensions) > 0 {
					out = append(out, s)
				}
				continue
			}
			if len(s.Command) > 0 {
				out[i].Command = s.Command
			}
			if len(s.Extensions) > 0 {
				out[i].Extensions = s.Extensions
			}
			if s.StartTimeout > 0 {
				out[i].StartTimeout = s.StartTimeout
			}
		}
		out = slices.DeleteFunc(out, func(o Server) bool { return slices.Contains(l.Disabled, o.Language) })
	}
	return out
}

// serverFor is the server of path's extension among servers (the last
// that names it), or -1.
func serverFor(servers []Server, path string) int {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return -1
	}
	found := -1
	for i, s := range servers {
		if slices.ContainsFunc(s.Extensions, func(x string) bool { return strings.EqualFold(x, ext) }) {
			found = i
		}
	}
	return found
}
