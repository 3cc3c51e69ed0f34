package permission

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Mode is a session's permission mode.
type Mode string

// Modes, by the ids editors know from other agents.
const (
	ModeDefault Mode = "default"
	ModeAccept  Mode = "acceptEdits"
	ModePlan    Mode = "plan"
	ModeBypass  Mode = "bypassPermissions"
)

// Decision is a policy's answer for one call.
type Decision struct {
	Verdict Verdict // Allow, Ask or Deny
	Reason  string
	// Keys are what an "always" answer to the prompt remembers; none
	// means the answer covers only this call (outside the workspace,
	// protected files, escalations).
	Keys []string
	// Remembers says, in words and in the order of Keys, what each key
	// covers ("git status, with any arguments"), for the person deciding.
	Remembers []string
	// Pending lists what the person is asked to allow: the simple commands
	// no rule or earlier answer covers, and why the rest cannot be.
	Pending []string
	// Judged is what the decision judged of the call's files, for the
	// host to hold the call to as it runs (workspace.WithJudged): the paths it
	// resolved, or Anywhere (the mode allows every path).
	Judged workspace.Judged
}

// Policy decides a session's calls: rules, remembered answers, the
// workspace's bounds, protected files and the mode. It is safe for
// concurrent use. Deny is always decided before anyone is asked.
type Policy struct {
	ws               *workspace.Workspace
	form             workspace.Form // how rules and protected paths compare: ws.Form()
	home, configDir  string
	homeFiles        []string // shellFiles in home ("" home: none)
	stateDir         string   // the session logs' folder, resolved ("": none)
	programs         []string // dsh-bridge's binary and helpers, resolved
	allow, ask, deny []compiled
	mode             func() Mode
	unconfined       bool            // Settings.Unconfined
	shell            tools.ShellKind // Settings.Shell

	mu     sync.Mutex
	always map[string]bool // remembered "always allow" keys
	never  map[string]bool // remembered "always reject" keys
	// private are the hosts a judgement found on this machine or a
	// private network: a fetch may connect to such an address of theirs.
	private map[string]bool
}

// New returns the policy of a workspace under settings; mode reports the
// session's current mode.
func New(ws *workspace.Workspace, s Settings, mode func() Mode) *Policy {
	home, _ := os.UserHomeDir()
	p := &Policy{ws: ws, form: ws.Form(), mode: mode, always: map[string]bool{}, never: map[string]bool{}, private: map[string]bool{},
		unconfined: s.Unconfined, shell: s.Shell}
	if home != "" {
		p.home = workspace.Resolve(home)
		for _, f := range shellFiles {
			p.homeFiles = append(p.homeFiles, filepath.Join(p.home, f))
		}
	}
	if d := UserConfigDir(); d != "" {
		p.configDir = workspace.Resolve(d)
	}
	if s.StateDir != "" {
		p.stateDir = workspace.Resolve(s.StateDir)
	}
	for _, prog := range s.Programs {
		if prog != "" {
			p.programs = append(p.programs, workspace.Resolve(prog))
		}
	}
	root := ws.Roots()[0]
	for _, l := range []struct {
		in  []Rule
		out *[]compiled
	}{{s.Allow, &p.allow}, {s.Ask, &p.ask}, {s.Deny, &p.deny}} {
		for _, r := range l.in {
			*l.out = append(*l.out, compile(r, root, p.home, p.form.GOOS).in(p.form))
		}
	}
	return p
}

func (p *Policy) prepare(ctx context.Context, t *registry.Tool, args jsonv.Value) *call {
	c := &call{tool: t, args: args, ctx: ctx, ws: p.ws, p: p}
	if !args.IsValid() {
		return c
	}
	if t.Accesses != nil {
		c.declared = safeAccesses(t, args)
	}
	if t.Subject != nil {
		subject := t.Subject(args)
		switch t.Effect {
		case registry.EffectExecute:
			a := p.analyze(subject)
			p.unjudgedWords(&a)
			c.cmd = &a
		case registry.EffectFetch:
			c.host = CanonicalHost(strings.TrimPrefix(subject, "domain:"))
		}
	}
	return c
}

func safeAccesses(t *registry.Tool, args jsonv.Value) (out []registry.Access) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	return t.Accesses(args)
}

// Decide judges a call of t: Deny (rules, remembered rejections, plan
// mode), then Ask or Allow by rules, workspace bounds, protected files,
// remembered answers and the mode.
func (p *Policy) Decide(ctx context.Context, t *registry.Tool, args jsonv.Value) Decision {
	if t == nil {
		return Decision{Verdict: Allow} // unknown tools fail at dispatch
	}
	c := p.prepare(ctx, t, args)
	d := p.decide(c, args)
	if c.host != "" && d.Verdict != Deny && p.mode() != ModeBypass {
		c.lookup() // FetchDial lets the fetch connect privately only if the name answered so now
	}
	if p.mode() == ModeBypass {
		d.Judged.Anywhere = true
	} else {
		for _, a := range c.accesses() {
			d.Judged.Paths = append(d.Judged.Paths, a.path)
		}
	}
	return d
}

func (p *Policy) decide(c *call, args jsonv.Value) Decision {
	t := c.tool
	if reason := p.denied(c); reason != "" {
		return Decision{Verdict: Deny, Reason: reason}
	}
	if t.Escalation != nil && args.IsValid() {
		if why := t.Escalation(args); why != "" {
			return Decision{Verdict: Ask, Reason: why, Pending: []string{why}}
		}
	}
	if p.mode() == ModeBypass {
		return Decision{Verdict: Allow}
	}
	if r, ok := p.asked(c); ok {
		d := p.undecided(c)
		d.Verdict, d.Reason = Ask, "the permission rule "+r+" asks"
		return d
	}
	switch {
	case c.cmd != nil:
		return p.unconfinedCommand(c, p.decideCommand(c))
	case t.Effect == registry.EffectFetch && t.Subject != nil:
		return p.decideFetch(c)
	}
	return p.decideFiles(c)
}

// Guard returns why rules or the mode refuse a call, or "": what Decide
// denies, as a monotonic check that no later policy can lift.
func (p *Policy) Guard(ctx context.Context, t *registry.Tool, args jsonv.Value) string {
	if t == nil {
		return ""
	}
	return p.denied(p.prepare(ctx, t, args))
}

func (p *Policy) denied(c *call) string {
	t := c.tool
	if p.mode() == ModePlan && t.Effect != registry.EffectRead && t.Effect != registry.EffectFetch && t.Effect != registry.EffectTransport {
		return "plan mode is read-only: " + t.Name + " is not allowed (switch the mode to run it)"
	}
	for _, r := range p.deny {
		if why := p.denies(r, c); why != "" {
			return "denied by the permission rule " + r.Text + why
		}
	}
	if key := p.keyOf(c); key != "" {
		if _, never := p.remembered(key); never {
			return "you chose to always reject " + strings.TrimPrefix(key, t.Name+":")
		}
	}
	if c.cmd != nil {
		for _, s := range c.cmd.judged() {
			if _, never := p.rememberedCommand(t.Name, s); never && !s.Dynamic {
				return "you chose to always reject " + s.Text
			}
		}
	}
	return ""
}

// denies explains how a deny rule covers a call ("" when it does not; a
// space when it needs no explanation). read rules deny every access of
// any tool, bash's redirections included; edit and write rules deny
// every write, bash's included, and a command with code the analysis
// cannot see, which may write anything; other rules name their own tool.
func (p *Policy) denies(r compiled, c *call) string {
	t := c.tool
	writer := r.Tool == "edit" || r.Tool == "write"
	if why := p.unconfinedDenies(r, c); why != "" {
		return why
	}
	if writer && c.cmd != nil && len(c.cmd.Opaque) > 0 {
		return ": " + c.cmd.Opaque[0] + ", so the rule cannot be checked (write the command out plainly)"
	}
	switch {
	case r.any && writer && c.cmd != nil:
		for _, rd := range c.cmd.Redirects {
			if rd.Write {
				return ": it writes a file"
			}
		}
	case r.any:
		if namesTool(r.Tool, t.Name) || (writer && (t.Name == "edit" || t.Name == "write")) {
			return " "
		}
	case r.Tool == "read" || writer:
		for _, a := range c.accesses() {
			if (r.Tool == "read" || a.write) && r.matchPath(a.path) {
				return " (" + a.path + ")"
			}
		}
		if c.cmd != nil {
			for i, rd := range c.cmd.Redirects {
				if rd.Dynamic && writer && rd.Write {
					return ": it writes to a file named when it runs, so the rule cannot be checked"
				}
				if rd.Dynamic || (writer && !rd.Write) {
					continue
				}
				if pth := c.target(i); r.matchPath(pth) {
					return " (" + pth + ")"
				}
			}
		}
	case !namesTool(r.Tool, t.Name):
	case c.cmd != nil:
		for _, s := range c.cmd.judged() {
			if r.matchCommand(s, false) {
				return ": " + s.Text
			}
		}
		if r.matchWords(c.cmd.Words) {
			return ": the command cannot be parsed, and its words could run it"
		}
		if len(c.cmd.Opaque) > 0 {
			return ": " + c.cmd.Opaque[0] + ", so the rule cannot be checked (write the command out plainly)"
		}
	case c.host != "":
		if r.matchHost(c) {
			return " (" + c.host + ")"
		}
	default:
		for _, a := range c.accesses() {
			if r.matchPath(a.path) {
				return " (" + a.path + ")"
			}
		}
	}
	return ""
}

// asked returns the ask rule that covers a call.
func (p *Policy) asked(c *call) (string, bool) {
	for _, r := range p.ask {
		if !namesTool(r.Tool, c.tool.Name) && !(r.Tool == "read" && len(c.declared) > 0 && c.tool.Effect == registry.EffectRead) {
			continue
		}
		if r.any {
			return r.Text, true
		}
		switch {
		case c.cmd != nil:
			for _, s := range c.cmd.judged() {
				if r.matchCommand(s, false) {
					return r.Text, true
				}
			}
		case c.host != "":
			if r.matchHost(c) {
				return r.Text, true
			}
		default:
			for _, a := range c.accesses() {
				if r.matchPath(a.path) {
					return r.Text, true
				}
			}
		}
	}
	return "", false
}

// undecided is the Ask decision of a call no rule settles.
func (p *Policy) undecided(c *call) Decision {
	if c.cmd != nil {
		return p.decideCommand(c)
	}
	key := p.keyOf(c)
	d := Decision{Verdict: Ask}
	if key != "" {
		d.Keys, d.Remembers = []string{key}, []string{describeKey(key)}
	}
	return d
}

// keyOf is what an "always" answer for a non-command call covers.
func (p *Policy) keyOf(c *call) string {
	switch {
	case c.cmd != nil:
		return ""
	case c.host != "":
		return c.tool.Name + ":" + c.host
	}
	return c.tool.Name
}

// allowedBy reports whether an allow rule covers a file access: rules of
// the tool itself, and read rules for every reading tool.
func (p *Policy) allowedBy(c *call, a access, userOnly bool) bool {
	for _, r := range p.allow {
		if userOnly && r.Source != FromUser {
			continue
		}
		if r.Tool != c.tool.Name && !(r.Tool == "read" && !a.write) {
			continue
		}
		if r.matchPath(a.path) {
			return true
		}
	}
	return false
}

func (p *Policy) decideFiles(c *call) Decision {
	name := c.tool.Name
	if d, ok := p.unjudgedFile(c); ok {
		return d
	}
	for _, a := range c.accesses() {
		if !p.ws.ContainsResolved(a.path) && !p.allowedBy(c, a, true) {
			verb := "read"
			if a.write {
				verb = "write"
			}
			return Decision{Verdict: Ask, Reason: fmt.Sprintf("%s wants to %s %s, outside the workspace", name, verb, a.path)}
		}
	}
	for _, a := range c.accesses() {
		if a.write {
			if why := p.protected(a.path); why != "" {
				return Decision{Verdict: Ask, Reason: fmt.Sprintf("%s wants to change %s, %s: that always asks", name, a.path, why)}
			}
		}
	}
	covered := len(c.accesses()) > 0
	for _, a := range c.accesses() {
		covered = covered && p.allowedBy(c, a, false)
	}
	if !covered && len(c.accesses()) == 0 {
		for _, r := range p.allow {
			covered = covered || (namesTool(r.Tool, name) && r.any)
		}
	}
	if covered {
		return Decision{Verdict: Allow}
	}
	if always, _ := p.remembered(name); always {
		return Decision{Verdict: Allow}
	}
	switch e := c.tool.Effect; {
	case e == registry.EffectRead, e == registry.EffectTransport:
		return Decision{Verdict: Allow}
	case e == registry.EffectEdit && p.mode() == ModeAccept:
		return Decision{Verdict: Allow}
	}
	return Decision{Verdict: Ask, Keys: []string{name}, Remembers: []string{describeKey(name)}}
}

func (p *Policy) decideFetch(c *call) Decision {
	for _, r := range p.allow {
		if r.Tool == c.tool.Name && r.matchHost(c) {
			return Decision{Verdict: Allow}
		}
	}
	key := p.keyOf(c)
	if always, _ := p.remembered(key); always {
		return Decision{Verdict: Allow}
	}
	d := Decision{Verdict: Ask, Keys: []string{key}, Remembers: []string{describeKey(key)}}
	if private, _ := c.lookup(); private {
		d.Reason = c.host + " is on this machine or a private network"
	}
	return d
}

// FetchHop judges a redirect of an approved fetch from one URL to the
// next: the same host passes; another host passes only when a deny rule
// does not cover it and the mode, an allow rule or an "always" answer
// would run it without asking. Its error is the tool's message.
func (p *Policy) FetchHop(ctx context.Context, t *registry.Tool, from, to *url.URL) error {
	host := CanonicalHost(to.Hostname())
	c := &call{tool: t, host: host, ctx: ctx, p: p}
	for _, r := range p.deny {
		if why := p.denies(r, c); why != "" {
			return fmt.Errorf("the redirect to %s was refused: denied by the permission rule %s", to.Redacted(), r.Text)
		}
	}
	if _, never := p.remembered(p.keyOf(c)); never {
		return fmt.Errorf("the redirect to %s was refused: you chose to always reject %s", to.Redacted(), host)
	}
	if p.mode() == ModeBypass || host == CanonicalHost(from.Hostname()) {
		return nil
	}
	if _, ok := p.asked(c); !ok && p.decideFetch(c).Verdict == Allow {
		c.lookup() // as Decide does, for FetchDial
		return nil
	}
	why := ""
	if private, _ := c.lookup(); private {
		why = ", which is on this machine or a private network,"
	}
	return fmt.Errorf("%s redirected to %s%s and that host needs its own approval: call web_fetch with that URL to ask for it", from.Redacted(), to.Redacted(), why)
}

// CheckPath implements tools.PathRules: the host refuses to open, list or
// write a denied path (resolved), whichever tool asks.
func (p *Policy) CheckPath(path string, write bool) error {
	for _, r := range p.deny {
		if r.any || !isPathTool(r.Tool) {
			continue
		}
		if (r.Tool == "read" || (write && (r.Tool == "edit" || r.Tool == "write"))) && r.matchPath(path) {
			return fmt.Errorf("%s is denied by the permission rule %s", path, r.Text)
		}
	}
	return nil
}

// DeniedTrees implements tools.PathRules: the resolved roots of the trees
// that read rules deny, for searches to skip.
func (p *Policy) DeniedTrees() []string {
	var out []string
	for _, r := range p.deny {
		if r.Tool == "read" && !r.any {
			if r.speltTree != "" {
				out = append(out, filepath.FromSlash(r.speltTree))
			} else if !strings.ContainsAny(r.speltGlob, "*?[{\\") {
				out = append(out, filepath.FromSlash(r.speltGlob))
			}
		}
	}
	return out
}

var _ tools.PathRules = (*Policy)(nil)
