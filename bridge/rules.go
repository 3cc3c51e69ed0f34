package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

// Rule verdicts, strongest last.
const (
	verdictNone = iota
	verdictAllow
	verdictAsk
	verdictDeny
)

// rule is one permission pattern: tool or tool(spec).
type rule struct {
	text, tool, spec string
}

var ruleRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)(?:\((.*)\))?$`)

func parseRule(text string) (rule, error) {
	m := ruleRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return rule{}, fmt.Errorf("%q is not a rule (tool or tool(pattern))", text)
	}
	r := rule{text: text, tool: m[1], spec: strings.TrimSpace(m[2])}
	if _, err := tools.GlobMatch(strings.TrimPrefix(r.spec, "~/"), "x"); err != nil && !strings.HasPrefix(r.spec, "domain:") {
		return rule{}, fmt.Errorf("%q: %v", text, err)
	}
	return r, nil
}

// Rules are a session's permission rules, from the workspace's
// .dsh/settings.json and the user's $XDG_CONFIG_HOME/dsh-bridge/settings.json.
// Deny beats ask beats allow; deny rules are guards, so nothing after them
// can lift them, in any mode.
type Rules struct {
	allow, ask, deny []rule
}

type settingsFile struct {
	Permissions struct {
		Allow []string `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"permissions"`
}

// settingsPaths lists the settings files that apply to a workspace.
func settingsPaths(cwd string) []string {
	var out []string
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		out = append(out, filepath.Join(d, "dsh-bridge", "settings.json"))
	} else if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, ".config", "dsh-bridge", "settings.json"))
	}
	return append(out, filepath.Join(cwd, ".dsh", "settings.json"))
}

// loadRules reads every settings file; a malformed one is ignored whole
// (never half-applied) and reported in problems.
func loadRules(cwd string) (Rules, []string) {
	var r Rules
	var problems []string
	for _, path := range settingsPaths(cwd) {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		var f settingsFile
		dec := json.NewDecoder(strings.NewReader(string(data)))
		if err := dec.Decode(&f); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		var add Rules
		var bad error
		for _, list := range []struct {
			in  []string
			out *[]rule
		}{{f.Permissions.Allow, &add.allow}, {f.Permissions.Ask, &add.ask}, {f.Permissions.Deny, &add.deny}} {
			for _, text := range list.in {
				ru, err := parseRule(text)
				if err != nil {
					bad = errors.Join(bad, err)
					continue
				}
				*list.out = append(*list.out, ru)
			}
		}
		if bad != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, bad))
			continue
		}
		r.allow, r.ask, r.deny = append(r.allow, add.allow...), append(r.ask, add.ask...), append(r.deny, add.deny...)
	}
	return r, problems
}

// matches reports whether a rule covers a call of tool t.
func (ru rule) matches(name string, t *registry.Tool, args jsonv.Value, ws *tools.Workspace) bool {
	if ru.tool != name {
		return false
	}
	if ru.spec == "" || ru.spec == "*" {
		return true
	}
	if t == nil || !args.IsValid() {
		return false
	}
	if t.Subject == nil { // file tools: match the paths they touch
		if t.Accesses == nil {
			return false
		}
		for _, a := range t.Accesses(args) {
			if pathMatches(ru.spec, ws, a.Path) {
				return true
			}
		}
		return false
	}
	subject := t.Subject(args)
	if d, ok := strings.CutPrefix(ru.spec, "domain:"); ok {
		host, _ := strings.CutPrefix(subject, "domain:")
		d = strings.ToLower(d)
		return host == d || strings.HasSuffix(host, "."+d)
	}
	if prefix, ok := strings.CutSuffix(ru.spec, ":*"); ok {
		return subject == prefix || strings.HasPrefix(subject, prefix+" ")
	}
	return subject == ru.spec
}

// pathMatches matches a glob against a path: relative globs against the
// path relative to the workspace, ~/ globs against the home directory,
// absolute globs against the absolute path.
func pathMatches(glob string, ws *tools.Workspace, path string) bool {
	abs := ws.Abs(path)
	if rest, ok := strings.CutPrefix(glob, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		glob = filepath.ToSlash(filepath.Join(home, rest))
	}
	target := filepath.ToSlash(abs)
	if !strings.HasPrefix(glob, "/") {
		rel, err := filepath.Rel(ws.Cwd(), abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return false
		}
		target = filepath.ToSlash(rel)
	} else {
		glob = strings.TrimPrefix(glob, "/")
		target = strings.TrimPrefix(target, "/")
		if !strings.Contains(glob, "/") {
			glob = "/" + glob // an absolute one-segment glob stays anchored
			target = "/" + target
		}
	}
	ok, err := tools.GlobMatch(glob, target)
	return err == nil && ok
}

// decide returns the strongest verdict of the rules covering a call.
func (r Rules) decide(name string, t *registry.Tool, args jsonv.Value, ws *tools.Workspace) (int, string) {
	for _, set := range []struct {
		rules   []rule
		verdict int
	}{{r.deny, verdictDeny}, {r.ask, verdictAsk}, {r.allow, verdictAllow}} {
		for _, ru := range set.rules {
			if ru.matches(name, t, args, ws) {
				return set.verdict, ru.text
			}
		}
	}
	return verdictNone, ""
}

// install registers the rules on a session's scope: deny rules as a guard
// (monotonic, in every mode), ask and allow rules as the first pre-execute
// listener (ahead of the mode policy).
func (r Rules) install(ss *Session) []func() {
	if len(r.allow)+len(r.ask)+len(r.deny) == 0 {
		return nil
	}
	p, reg := ss.srv.pipe, ss.srv.reg
	return []func(){
		p.AddGuard(ss.scope, func(exec registry.Execution) string {
			if v, text := r.decide(exec.Name, reg.Get(exec.Name, ss.scope), exec.Arguments, ss.ws); v == verdictDeny {
				return "denied by the permission rule " + text
			}
			return ""
		}),
		p.OnPreExecute(ss.scope, func(_ context.Context, exec registry.Execution, next func() (pipeline.PreDecision, error)) (pipeline.PreDecision, error) {
			switch v, text := r.decide(exec.Name, reg.Get(exec.Name, ss.scope), exec.Arguments, ss.ws); {
			case v == verdictAsk && ss.currentMode() != ModeBypass:
				return pipeline.AskCall("the permission rule " + text + " asks"), nil
			case v == verdictAllow:
				return pipeline.AllowCall(), nil
			}
			return next()
		}),
	}
}
