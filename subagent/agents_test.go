package subagent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/commands"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/subagent"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

type noArgs struct{}

func tool(t testing.TB, name string) *registry.Tool {
	t.Helper()
	d, err := registry.Define(registry.TypedTool[noArgs, string]{Name: name, Description: name,
		Execute: func(context.Context, noArgs, registry.RunContext) (string, error) { return name, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func names(reg *registry.Registry, s *registry.Scope) []string {
	var out []string
	for _, sc := range reg.Schemas(s) {
		out = append(out, sc.Name)
	}
	slices.Sort(out)
	return out
}

// TestRestriction: a child sees its agent's tools intersected with what
// its parent sees — a restriction up the chain holds in the child — and
// never task.
func TestRestriction(t *testing.T) {
	for _, tc := range []struct {
		name       string
		agent      subagent.Agent
		parentDeny []string // restricted away from the parent scope
		want       string
	}{
		{"general: all but task", subagent.Agent{Name: "general"}, nil, "bash edit glob grep read web_fetch"},
		{"explore: read-only", subagent.Agent{Name: "explore", Tools: []string{"read", "grep", "glob", "web_fetch"}}, nil, "glob grep read web_fetch"},
		{"explore under a parent without grep", subagent.Agent{Name: "explore", Tools: []string{"read", "grep", "glob", "web_fetch"}}, []string{"grep"}, "glob read web_fetch"},
		{"general under a parent without bash", subagent.Agent{Name: "general"}, []string{"bash"}, "edit glob grep read web_fetch"},
		{"custom naming task and unknowns", subagent.Agent{Name: "x", Tools: []string{"read", "task", "nope"}}, nil, "read"},
		{"custom of no tools", subagent.Agent{Name: "x", Tools: []string{}}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := registry.New()
			parent := reg.NewScope("session", nil)
			for _, n := range []string{"read", "grep", "glob", "web_fetch", "edit", "bash", subagent.ToolName} {
				if _, err := reg.Register(tool(t, n), parent); err != nil {
					t.Fatal(err)
				}
			}
			// The session's scope may itself be a child (of a host's
			// agent scope) with restrictions of its own.
			if tc.parentDeny != nil {
				top := parent
				parent = reg.NewScope("restricted", top)
				if _, err := reg.Restrict(parent, registry.Restriction{Deny: tc.parentDeny}); err != nil {
					t.Fatal(err)
				}
			}
			child := reg.NewScope("child", parent)
			if r, ok := tc.agent.Restriction(reg.Inherited(child)); ok {
				if _, err := reg.Restrict(child, r); err != nil {
					t.Fatal(err)
				}
			}
			if got := strings.Join(names(reg, child), " "); got != tc.want {
				t.Fatalf("the child sees %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLoad: custom agents from the user's folder and a trusted
// workspace's .dsh/agents, with their front matter; an untrusted
// workspace's are not read; a built-in name and a bad thinking level are
// problems.
func TestLoad(t *testing.T) {
	user, root := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "agents", "reviewer.md"), "---\ndescription: reviews diffs\ntools: read, grep\nmodel: deepseek-v4-pro\nthinking: max\n---\nReview the change.\n")
	write(filepath.Join(user, "agents", "explore.md"), "Not allowed.\n")
	write(filepath.Join(user, "agents", "odd.md"), "---\nthinking: loud\n---\nx\n")
	write(filepath.Join(root, ".dsh", "agents", "docs.md"), "---\ntools: [read, glob, task]\n---\nWrite docs.\n")
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		trusted  bool
		want     string
		problems int
	}{
		{"trusted", true, "general explore docs reviewer", 2},
		{"untrusted", false, "general explore reviewer", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agents, problems := subagent.Load(commands.Source{UserDir: user, Workspace: ws, Trusted: tc.trusted})
			var got []string
			for _, a := range agents {
				got = append(got, a.Name)
			}
			if strings.Join(got, " ") != tc.want || len(problems) != tc.problems {
				t.Fatalf("agents %v, problems %v; want %q and %d problems", got, problems, tc.want, tc.problems)
			}
			r, _ := subagent.Find(agents, "reviewer")
			if r.Description != "reviews diffs" || strings.Join(r.Tools, ",") != "read,grep" || r.Model != "deepseek-v4-pro" || r.Thinking != model.ThinkingMax || r.Prompt != "Review the change." {
				t.Fatalf("reviewer = %+v", r)
			}
			if d, ok := subagent.Find(agents, "docs"); ok && strings.Join(d.Tools, ",") != "read,glob" {
				t.Fatalf("docs tools = %v, want task dropped", d.Tools)
			}
		})
	}
}
