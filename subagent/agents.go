package subagent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/commands"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// ToolName is the task tool's model-facing name.
const ToolName = "task"

// Built-in agent names.
const (
	General = "general"
	Explore = "explore"
)

// Agent is a kind of child agent: what it may use and how it is told.
type Agent struct {
	Name        string
	Description string
	// Tools, when non-nil, are the only tools of the parent's the child
	// sees (an allow list); nil means all of them. task is never among
	// them: children do not nest.
	Tools []string
	// Model and Thinking override the parent's model and thought level
	// ("": the parent's).
	Model    string
	Thinking model.Thinking
	// Prompt is the agent's own instructions, added to the child's system
	// prompt ("": none).
	Prompt string
	Path   string // the file a custom agent came from
}

// Builtins are the agents every session has.
func Builtins() []Agent {
	return []Agent{
		{Name: General, Description: "the parent's tools (less task), for a self-contained piece of work"},
		{Name: Explore, Description: "read-only (read, grep, glob, web_fetch): find and explain, change nothing",
			Tools:  []string{"read", "grep", "glob", "web_fetch"},
			Prompt: "You explore: read, search and fetch to answer the task. You cannot change files or run commands."},
	}
}

// Load returns the built-in agents followed by the custom ones — the
// agents/NAME.md files of the user's configuration folder and of a
// trusted workspace's .dsh/, read as commands.LoadDocs reads them — and a
// problem for each file not loaded. A custom agent's front matter may
// name its description, its tools (comma- or space-separated), its model
// and its thinking level (off, high, max); its body is its prompt.
func Load(src commands.Source) (agents []Agent, problems []error) {
	agents = Builtins()
	docs, problems := commands.LoadDocs(src, "agents")
	for _, d := range docs {
		if _, builtin := Find(agents, d.Name); builtin {
			problems = append(problems, fmt.Errorf("%s: %s is a built-in agent; the file is not loaded", d.Path, d.Name))
			continue
		}
		a, err := fromDoc(d)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		agents = append(agents, a)
	}
	return agents, problems
}

func fromDoc(d commands.Doc) (Agent, error) {
	a := Agent{Name: d.Name, Description: d.Front["description"], Model: d.Front["model"], Prompt: d.Body, Path: d.Path}
	if tools, ok := d.Front["tools"]; ok {
		a.Tools = []string{}
		for _, n := range strings.FieldsFunc(tools, func(r rune) bool { return r == ',' || r == ' ' || r == '[' || r == ']' }) {
			n = strings.Trim(n, `"'`)
			if n != "" && n != ToolName && !slices.Contains(a.Tools, n) {
				a.Tools = append(a.Tools, n)
			}
		}
	}
	switch t := model.Thinking(d.Front["thinking"]); t {
	case model.ThinkingDefault, model.ThinkingOff, model.ThinkingHigh, model.ThinkingMax:
		a.Thinking = t
	default:
		return Agent{}, fmt.Errorf("%s: thinking %q is not off, high or max; the agent is not loaded", d.Path, t)
	}
	if a.Description == "" {
		line, _, _ := strings.Cut(a.Prompt, "\n")
		if r := []rune(line); len(r) > 80 {
			line = string(r[:79]) + "…"
		}
		a.Description = line
	}
	return a, nil
}

// Find returns the agent named name in agents.
func Find(agents []Agent, name string) (Agent, bool) {
	i := slices.IndexFunc(agents, func(a Agent) bool { return a.Name == name })
	if i < 0 {
		return Agent{}, false
	}
	return agents[i], true
}

// Restriction is the filter of a's child scope, given the names the
// child inherits (registry.Inherited: its parent's layers and the global
// one, before any filter), and false when it needs none: an allow list of
// a's tools that exist, or, for an agent of every tool, a deny of task.
// The registry intersects it with every restriction up the chain, so a
// child never sees what its parent does not.
func (a Agent) Restriction(inherited []string) (registry.Restriction, bool) {
	if a.Tools == nil {
		if slices.Contains(inherited, ToolName) {
			return registry.Restriction{Deny: []string{ToolName}}, true
		}
		return registry.Restriction{}, false
	}
	allow := []string{}
	for _, n := range a.Tools {
		if n != ToolName && n != registry.RunCodeName && slices.Contains(inherited, n) {
			allow = append(allow, n)
		}
	}
	return registry.Restriction{Allow: allow}, true
}
