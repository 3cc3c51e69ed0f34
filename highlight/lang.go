package highlight

import (
	"path/filepath"
	"strings"
)

// fenceByExt maps file extensions to the language names Markdown renderers
// recognise in a code fence (the names highlight.js, GitHub and Zed use).
var fenceByExt = map[string]string{
	".go": "go", ".mod": "go", ".py": "python", ".pyi": "python", ".rb": "ruby",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp",
	".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".cs": "csharp", ".java": "java",
	".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".swift": "swift",
	".m": "objectivec", ".mm": "objectivec", ".php": "php", ".pl": "perl",
	".lua": "lua", ".r": "r", ".jl": "julia", ".dart": "dart", ".zig": "zig",
	".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell",
	".ml": "ocaml", ".mli": "ocaml", ".clj": "clojure", ".el": "elisp",
	".sh": "bash", ".bash": "bash", ".zsh": "zsh", ".fish": "fish", ".ps1": "powershell",
	".sql": "sql", ".html": "html", ".htm": "html", ".xml": "xml", ".svg": "xml",
	".css": "css", ".scss": "scss", ".less": "less", ".vue": "vue", ".svelte": "svelte",
	".json": "json", ".jsonc": "jsonc", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
	".ini": "ini", ".cfg": "ini", ".md": "markdown", ".markdown": "markdown", ".rst": "rst",
	".tex": "latex", ".proto": "protobuf", ".graphql": "graphql", ".gql": "graphql",
	".tf": "hcl", ".hcl": "hcl", ".nix": "nix", ".vim": "vim", ".diff": "diff",
	".patch": "diff", ".cmake": "cmake", ".gradle": "groovy", ".groovy": "groovy",
	".dockerfile": "dockerfile", ".mk": "makefile", ".nim": "nim", ".v": "verilog",
	".sol": "solidity", ".tmpl": "go-html-template", ".gotmpl": "go-html-template",
}

// fenceByName maps whole file names that have no telling extension.
var fenceByName = map[string]string{
	"Makefile": "makefile", "GNUmakefile": "makefile", "makefile": "makefile",
	"Dockerfile": "dockerfile", "CMakeLists.txt": "cmake", "go.sum": "",
	".bashrc": "bash", ".zshrc": "zsh", ".profile": "bash", "Gemfile": "ruby",
	"Rakefile": "ruby", "Jenkinsfile": "groovy", "go.work": "go",
}

// FenceLanguage names the language of a code fence for the file at path,
// or for the hint lang when one is given (lower-cased; a hint that is not
// a plain name gives ""). "" when the file's language is not known.
func FenceLanguage(path, lang string) string {
	if lang != "" {
		lang = strings.ToLower(lang)
		if strings.Trim(lang, "abcdefghijklmnopqrstuvwxyz0123456789+#-_.") != "" {
			return ""
		}
		return lang
	}
	base := filepath.Base(path)
	if l, ok := fenceByName[base]; ok {
		return l
	}
	return fenceByExt[strings.ToLower(filepath.Ext(base))]
}
