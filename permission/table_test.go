package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// decisionModes are the columns of TestPolicy_DecisionTable's rows.
var decisionModes = []Mode{ModeDefault, ModeAccept, ModePlan, ModeBypass}

// TestPolicy_DecisionTable enumerates Decide over every mode × rule kind
// × place × reading or writing tool (read, write, edit, and bash reading
// or writing by redirection), each row the verdicts in default,
// acceptEdits, plan and bypassPermissions. The places: "in" is a file in
// the tree sub/ the rules name; "beside" is one in sub-old/, whose name
// merely starts the same, under the same rules (which do not cover it);
// "out" is one in a folder beside the workspace whose name starts with
// the workspace's own, under rules naming that folder. The rule kinds:
// the tool's own rule (bash: its program's) allowing, asking or denying;
// a read rule allowing (for bash, beside the program's own allow rule)
// or denying; the tool's own allow rule from the (trusted) workspace's
// settings, which never reaches outside the workspace.
func TestPolicy_DecisionTable(t *testing.T) {
	const (
		none      = "none"
		allow     = "allow"
		allowRead = "allow-read"
		allowWS   = "allow-ws"
		ask       = "ask"
		deny      = "deny"
		denyRead  = "deny-read"
	)
	type row struct {
		tool, where, rule string
		want              string // verdicts by decisionModes
	}
	rows := []row{
		{"read", "in", none, "allow allow allow allow"},
		{"read", "in", allow, "allow allow allow allow"},
		{"read", "in", allowRead, "allow allow allow allow"},
		{"read", "in", allowWS, "allow allow allow allow"},
		{"read", "in", ask, "ask ask ask allow"},
		{"read", "in", deny, "deny deny deny deny"},
		{"read", "in", denyRead, "deny deny deny deny"},
		{"read", "beside", none, "allow allow allow allow"},
		{"read", "beside", allow, "allow allow allow allow"},
		{"read", "beside", allowRead, "allow allow allow allow"},
		{"read", "beside", allowWS, "allow allow allow allow"},
		{"read", "beside", ask, "allow allow allow allow"},
		{"read", "beside", deny, "allow allow allow allow"},
		{"read", "beside", denyRead, "allow allow allow allow"},
		{"read", "out", none, "ask ask ask allow"},
		{"read", "out", allow, "allow allow allow allow"},
		{"read", "out", allowRead, "allow allow allow allow"},
		{"read", "out", allowWS, "ask ask ask allow"},
		{"read", "out", ask, "ask ask ask allow"},
		{"read", "out", deny, "deny deny deny deny"},
		{"read", "out", denyRead, "deny deny deny deny"},

		{"write", "in", none, "ask allow deny allow"},
		{"write", "in", allow, "allow allow deny allow"},
		{"write", "in", allowRead, "ask allow deny allow"},
		{"write", "in", allowWS, "allow allow deny allow"},
		{"write", "in", ask, "ask ask deny allow"},
		{"write", "in", deny, "deny deny deny deny"},
		{"write", "in", denyRead, "deny deny deny deny"},
		{"write", "beside", none, "ask allow deny allow"},
		{"write", "beside", allow, "ask allow deny allow"},
		{"write", "beside", allowRead, "ask allow deny allow"},
		{"write", "beside", allowWS, "ask allow deny allow"},
		{"write", "beside", ask, "ask allow deny allow"},
		{"write", "beside", deny, "ask allow deny allow"},
		{"write", "beside", denyRead, "ask allow deny allow"},
		{"write", "out", none, "ask ask deny allow"},
		{"write", "out", allow, "allow allow deny allow"},
		{"write", "out", allowRead, "ask ask deny allow"},
		{"write", "out", allowWS, "ask ask deny allow"},
		{"write", "out", ask, "ask ask deny allow"},
		{"write", "out", deny, "deny deny deny deny"},
		{"write", "out", denyRead, "deny deny deny deny"},

		{"edit", "in", none, "ask allow deny allow"},
		{"edit", "in", allow, "allow allow deny allow"},
		{"edit", "in", allowRead, "ask allow deny allow"},
		{"edit", "in", allowWS, "allow allow deny allow"},
		{"edit", "in", ask, "ask ask deny allow"},
		{"edit", "in", deny, "deny deny deny deny"},
		{"edit", "in", denyRead, "deny deny deny deny"},
		{"edit", "beside", none, "ask allow deny allow"},
		{"edit", "beside", allow, "ask allow deny allow"},
		{"edit", "beside", allowRead, "ask allow deny allow"},
		{"edit", "beside", allowWS, "ask allow deny allow"},
		{"edit", "beside", ask, "ask allow deny allow"},
		{"edit", "beside", deny, "ask allow deny allow"},
		{"edit", "beside", denyRead, "ask allow deny allow"},
		{"edit", "out", none, "ask ask deny allow"},
		{"edit", "out", allow, "allow allow deny allow"},
		{"edit", "out", allowRead, "ask ask deny allow"},
		{"edit", "out", allowWS, "ask ask deny allow"},
		{"edit", "out", ask, "ask ask deny allow"},
		{"edit", "out", deny, "deny deny deny deny"},
		{"edit", "out", denyRead, "deny deny deny deny"},

		// cat < file: the program needs its allow rule; a redirection out
		// of the workspace always asks, whatever read rule allows it.
		{"bash-read", "in", none, "ask ask deny allow"},
		{"bash-read", "in", allow, "allow allow deny allow"},
		{"bash-read", "in", allowRead, "allow allow deny allow"},
		{"bash-read", "in", allowWS, "allow allow deny allow"},
		{"bash-read", "in", ask, "ask ask deny allow"},
		{"bash-read", "in", deny, "deny deny deny deny"},
		{"bash-read", "in", denyRead, "deny deny deny deny"},
		{"bash-read", "beside", none, "ask ask deny allow"},
		{"bash-read", "beside", allow, "allow allow deny allow"},
		{"bash-read", "beside", allowRead, "allow allow deny allow"},
		{"bash-read", "beside", allowWS, "allow allow deny allow"},
		{"bash-read", "beside", ask, "ask ask deny allow"},
		{"bash-read", "beside", deny, "deny deny deny deny"}, // the rule is the program's
		{"bash-read", "beside", denyRead, "ask ask deny allow"},
		{"bash-read", "out", none, "ask ask deny allow"},
		{"bash-read", "out", allow, "ask ask deny allow"},
		{"bash-read", "out", allowRead, "ask ask deny allow"},
		{"bash-read", "out", allowWS, "ask ask deny allow"},
		{"bash-read", "out", ask, "ask ask deny allow"},
		{"bash-read", "out", deny, "deny deny deny deny"},
		{"bash-read", "out", denyRead, "deny deny deny deny"},

		// echo x > file: a write by redirection is an edit; a read rule
		// never allows it.
		{"bash-write", "in", none, "ask ask deny allow"},
		{"bash-write", "in", allow, "ask allow deny allow"},
		{"bash-write", "in", allowRead, "ask allow deny allow"},
		{"bash-write", "in", allowWS, "ask allow deny allow"},
		{"bash-write", "in", ask, "ask ask deny allow"},
		{"bash-write", "in", deny, "deny deny deny deny"},
		{"bash-write", "in", denyRead, "deny deny deny deny"},
		{"bash-write", "beside", none, "ask ask deny allow"},
		{"bash-write", "beside", allow, "ask allow deny allow"},
		{"bash-write", "beside", allowRead, "ask allow deny allow"},
		{"bash-write", "beside", allowWS, "ask allow deny allow"},
		{"bash-write", "beside", ask, "ask ask deny allow"},
		{"bash-write", "beside", deny, "deny deny deny deny"},
		{"bash-write", "beside", denyRead, "ask ask deny allow"},
		{"bash-write", "out", none, "ask ask deny allow"},
		{"bash-write", "out", allow, "ask ask deny allow"},
		{"bash-write", "out", allowRead, "ask ask deny allow"},
		{"bash-write", "out", allowWS, "ask ask deny allow"},
		{"bash-write", "out", ask, "ask ask deny allow"},
		{"bash-write", "out", deny, "deny deny deny deny"},
		{"bash-write", "out", denyRead, "deny deny deny deny"},
	}
	// Every combination is in the table once.
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.tool+"/"+r.where+"/"+r.rule] = true
	}
	for _, tool := range []string{"read", "write", "edit", "bash-read", "bash-write"} {
		for _, where := range []string{"in", "beside", "out"} {
			for _, rule := range []string{none, allow, allowRead, allowWS, ask, deny, denyRead} {
				if !seen[tool+"/"+where+"/"+rule] {
					t.Errorf("the table has no row for %s %s %s", tool, where, rule)
				}
			}
		}
	}
	// A read rule that allows never changes what a write or an edit gets:
	// its row is the row without it.
	wantOf := map[string]string{}
	for _, r := range rows {
		wantOf[r.tool+"/"+r.where+"/"+r.rule] = r.want
	}
	for _, tool := range []string{"write", "edit", "bash-write"} {
		without := none
		if tool == "bash-write" {
			without = allow // the program's own rule, which allow-read adds
		}
		for _, where := range []string{"in", "beside", "out"} {
			if a, b := wantOf[tool+"/"+where+"/"+allowRead], wantOf[tool+"/"+where+"/"+without]; a != b {
				t.Errorf("the table: %s %s under a read allow rule is %q, without it %q", tool, where, a, b)
			}
		}
	}
	if len(rows) != len(seen) {
		t.Errorf("the table has %d rows for %d combinations", len(rows), len(seen))
	}

	verdicts := map[string]Verdict{"allow": Allow, "ask": Ask, "deny": Deny}
	for _, r := range rows {
		want := strings.Fields(r.want)
		if len(want) != len(decisionModes) {
			t.Fatalf("%s %s %s: %d verdicts, want %d", r.tool, r.where, r.rule, len(want), len(decisionModes))
		}
		for i, mode := range decisionModes {
			t.Run(r.tool+"/"+r.where+"/"+r.rule+"/"+string(mode), func(t *testing.T) {
				wantV, ok := verdicts[want[i]]
				if !ok {
					t.Fatalf("no verdict %q", want[i])
				}
				dir := tableWorkspace(t)
				outside := dir + "-out"
				tree, file := "sub/**", filepath.Join(dir, "sub", "f")
				switch r.where {
				case "beside":
					file = filepath.Join(dir, "sub-old", "f")
				case "out":
					tree, file = outside+"/**", filepath.Join(outside, "f")
				}
				for _, d := range []string{filepath.Join(dir, "sub"), filepath.Join(dir, "sub-old"), outside} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(file, []byte("a\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				tool, own, args := r.tool, r.tool+"("+tree+")", jsonv.Value{}
				switch r.tool {
				case "read":
					args = jargs("file_path", file)
				case "write":
					args = jargs("file_path", file, "content", "b\n")
				case "edit":
					args = jargs("file_path", file, "old_string", "a", "new_string", "b")
				case "bash-read":
					tool, own, args = "bash", "bash(cat:*)", bashArgs("cat < "+shq(file))
				case "bash-write":
					tool, own, args = "bash", "bash(echo:*)", bashArgs("echo x > "+shq(file))
				}
				var allowRules, askRules, denyRules []string
				switch r.rule {
				case allow:
					allowRules = []string{own}
				case allowWS:
					allowRules = []string{"ws:" + own}
				case allowRead:
					allowRules = []string{"read(" + tree + ")"}
					if tool == "bash" {
						allowRules = append(allowRules, own)
					}
				case ask:
					askRules = []string{own}
				case deny:
					denyRules = []string{own}
				case denyRead:
					denyRules = []string{"read(" + tree + ")"}
				}
				p, reg, scope := policyIn(t, dir, mode, allowRules, askRules, denyRules)
				d := p.Decide(context.Background(), reg.Get(tool, scope), args)
				if d.Verdict != wantV {
					t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, wantV)
				}
			})
		}
	}
}

// tableWorkspace is a fresh, resolved workspace folder whose name no other
// test's folder starts with.
func tableWorkspace(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// policyIn is testPolicy over the workspace dir; a rule written "ws:…"
// comes from the workspace's settings.
func policyIn(t *testing.T, dir string, mode Mode, allow, ask, deny []string) (*Policy, *registry.Registry, *registry.Scope) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	scope := reg.NewScope("s", nil)
	if _, err := tools.Register(reg, scope, tools.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	var s Settings
	for _, l := range []struct {
		in  []string
		out *[]Rule
	}{{allow, &s.Allow}, {ask, &s.Ask}, {deny, &s.Deny}} {
		for _, text := range l.in {
			src := FromUser
			if rest, ok := strings.CutPrefix(text, "ws:"); ok {
				text, src = rest, FromWorkspace
			}
			r, err := ParseRule(text, src)
			if err != nil {
				t.Fatal(err)
			}
			*l.out = append(*l.out, r)
		}
	}
	return New(ws, s, func() Mode { return mode }), reg, scope
}
