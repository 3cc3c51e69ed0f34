package prompt

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

//go:embed system.tmpl
var source string

var tmpl = template.Must(template.New("system").Parse(source))

// Tool is one tool's line in the prompt.
type Tool struct {
	Name string
	Use  string // when to use it, in a line
}

// Data is what a system prompt says; Render writes its fields in a fixed
// order.
type Data struct {
	// Override, when set, replaces the agent's own "who and how" section
	// (a client's systemPrompt in override mode); the rest stays.
	Override     string
	OS, Arch     string
	Shell        string
	Roots        []string
	Git          string // a sentence: GitState's
	Date         string // YYYY-MM-DD
	Confinement  string // what is confined and what asks, in a sentence
	Tools        []Tool
	Plans        bool   // todo_write is among the tools
	Instructions string // the instructions files' block
	Client       string // a client's systemPrompt in append mode
}

// Render is the system prompt of d.
func Render(d Data) string {
	var b strings.Builder
	if err := tmpl.Execute(&b, d); err != nil {
		panic("prompt: " + err.Error()) // the template is ours and d has no methods: tested
	}
	return b.String()
}

// uses are the built-in tools' when-to-use lines.
var uses = map[string]string{
	"read":       "read a file (or a range of its lines) before you change or explain it.",
	"write":      "create a file, or replace one whole; prefer edit for a change to an existing file.",
	"edit":       "change part of an existing file by exact replacement; read it first.",
	"bash":       "run commands: tests, builds, git, the project's scripts; long ones in the background.",
	"job_output": "read a background command's new output and whether it has ended.",
	"job_list":   "list the background commands of this session.",
	"job_kill":   "stop a background command.",
	"grep":       "search file contents by regular expression, to find where something is.",
	"glob":       "find files by name pattern.",
	"web_fetch":  "read a web page (documentation, an issue) as text.",
	"todo_write": "keep the plan of multi-step work: the whole list, with each item's status.",
	"ask_user":   "ask the user a question (with choices when the answers are few) when a decision is theirs and the workspace cannot tell you.",
	"run_code":   "run a short program that calls several tools at once (see below).",
	"task":       "hand a self-contained search or side task to a subagent (explore: read-only); several run in parallel, and only its answer comes back.",
}

// Use is name's when-to-use line: a built-in's own, else the first
// sentence of description.
func Use(name, description string) string {
	if u, ok := uses[name]; ok {
		return u
	}
	line, _, _ := strings.Cut(strings.TrimSpace(description), "\n")
	if i := strings.Index(line, ". "); i >= 0 {
		line = line[:i+1]
	}
	if r := []rune(line); len(r) > 160 {
		line = string(r[:159]) + "…"
	}
	return line
}

// GitState says, in a sentence, whether dir is in a git repository and
// on which branch, from the repository's HEAD file (git is not run).
func GitState(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		if b, err := os.ReadFile(gitDir); err == nil { // a worktree: "gitdir: path"
			if p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
				if !filepath.IsAbs(p) {
					p = filepath.Join(d, p)
				}
				gitDir = p
			}
		}
		if head, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
			ref := strings.TrimSpace(string(head))
			if branch, ok := strings.CutPrefix(ref, "ref: refs/heads/"); ok {
				return "A git repository, on branch " + branch
			}
			return "A git repository, with a detached HEAD"
		}
		if filepath.Dir(d) == d {
			return "Not a git repository"
		}
	}
}
