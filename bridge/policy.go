package bridge

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// installPolicies registers the session's permission policy on its scope:
// a pre-execute listener that refuses (without asking), asks or allows as
// the policy decides, its permission.Decision travelling with the call (to
// the approval request, and to the body as its judgement of the files),
// and a guard holding the policy's refusals, so no later listener can
// lift them.
func (ss *Session) installPolicies() {
	p, reg := ss.srv.pipe, ss.srv.reg
	ss.disposers = append(ss.disposers,
		p.WrapExecute(ss.scope, callIDWrapper),
		p.WrapExecute(ss.scope, judgedWrapper),
		p.OnPreExecute(ss.scope, func(ctx context.Context, exec registry.Execution, next func() (pipeline.PreDecision, error)) (pipeline.PreDecision, error) {
			tool := reg.Get(exec.Name, callScope(exec, ss.scope))
			if tool == nil {
				return next() // unknown tools fail at dispatch
			}
			d := ss.policy.Decide(ctx, tool, exec.Arguments)
			switch d.Verdict {
			case permission.Deny:
				if note := ss.mcpPlanNote(tool.Name); note != "" {
					d.Reason += ". " + note
				}
				return pipeline.DenyCall(d.Reason), nil
			case permission.Ask:
				ask := pipeline.AskCall(d.Reason)
				ask.Data = d
				return ask, nil
			}
			later, err := next()
			if err == nil && later.Data == nil {
				later.Data = d // a later listener's ask or allow runs as judged here
			}
			return later, err
		}),
		p.AddGuard(ss.scope, func(exec registry.Execution) string {
			return ss.policy.Guard(context.Background(), reg.Get(exec.Name, callScope(exec, ss.scope)), exec.Arguments)
		}),
	)
}

// callScope is the scope a call was made from: the session's own, or a
// subagent's under it (events flow up the chain, so the session's policy
// sees its children's calls, judged by the tool the child sees).
func callScope(exec registry.Execution, own *registry.Scope) *registry.Scope {
	if exec.Scope != nil {
		return exec.Scope
	}
	return own
}

// judgedWrapper hands the call's judgement to its host: a file the call
// opens must be one the decision saw, or lie in the workspace. A call
// the policy never decided runs as judged on nothing. A partial approval's
// hunks go to the tool.
func judgedWrapper(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
	d, _ := pipeline.DecisionData(ctx).(permission.Decision)
	if sel, ok := pipeline.ApprovalGrant(ctx).(tools.HunkSelection); ok {
		ctx = tools.WithHunkSelection(ctx, sel) // the hunks the person accepted
	}
	return next(workspace.WithJudged(ctx, d.Judged)), nil
}

// fetchHop judges a web_fetch redirect with the session's policy.
func (ss *Session) fetchHop(ctx context.Context, from, to *url.URL) error {
	return ss.policy.FetchHop(ctx, ss.srv.reg.Get("web_fetch", ss.scope), from, to)
}

// fetchDial judges the address a web_fetch connects to with the
// session's policy.
func (ss *Session) fetchDial(ctx context.Context, host string, addr netip.Addr) error {
	return ss.policy.FetchDial(ctx, ss.srv.reg.Get("web_fetch", ss.scope), host, addr)
}

// sandboxFor returns how the session's local commands are confined: nil
// when the settings turn the sandbox off or the system has no kernel
// sandbox (sandbox.Available).
// deny are the trees commands may not read; kept gives the paths they may
// not change in the folders they may (permission.Policy.Kept), asked for
// every such folder: the roots, the temp folder and the devices' folders.
func sandboxFor(set permission.Settings, ws *workspace.Workspace, deny []string, kept func(writable []string) []string) *tools.Sandbox {
	if set.Sandbox == permission.SandboxOff || !sandbox.Available() {
		return nil
	}
	self, err := sandbox.Self()
	if err != nil {
		return nil
	}
	prof := sandbox.Profile{Network: set.Network, Deny: deny}
	if set.Network {
		// The socket filter lets connect through then: hide the usual
		// places of other programs' sockets instead.
		prof.Hidden = sandbox.SocketPlaces(os.Environ(), os.Getuid(), userName())
	}
	if set.Sandbox == permission.SandboxWorkspaceWrite {
		prof.Write = append(prof.Write, ws.Roots()...)
	}
	prof.Write = append(prof.Write, workspace.Resolve(os.TempDir()))
	prof.Kept = kept(prof.Writable())
	return &tools.Sandbox{Helper: self, Profile: prof}
}

// unconfinedNotice says what Windows lacks, and what the policy does
// instead (permission.Settings.Unconfined).
const unconfinedNotice = "Windows gives dsh-bridge no kernel sandbox: commands can read and write whatever you can. " +
	"Each runs in a Job Object, so nothing it starts outlives it or the session. To make up for the sandbox, permission asks more: " +
	"a command's writes ask in every mode but bypassPermissions unless an edit or write allow rule covers them, " +
	"and a read deny rule refuses any command that names a denied file or has code that cannot be read."

// sandboxNotice is what the person learns of the sandbox at session start.
func sandboxNotice(set permission.Settings, sb *tools.Sandbox, editorTerminal bool) (title, desc string) {
	switch {
	case set.Sandbox == permission.SandboxOff:
		return "Commands run unsandboxed", "The sandbox is off in your settings: commands are limited by the permission rules alone."
	case set.Unconfined:
		return "Commands run unsandboxed", unconfinedNotice
	case sb == nil:
		return "Commands run unsandboxed", sandbox.Unconfined()
	case editorTerminal:
		return "Commands run in a sandbox, in the editor's terminal", sandbox.Enforced(sb.Profile) + ". The editor shows each command live; dsh-bridge confines it all the same."
	}
	return "Commands run in a sandbox", sandbox.Enforced(sb.Profile) + "."
}

// trustNotice explains a workspace's ignored allow rules.
func trustNotice(set permission.Settings) string {
	if set.IgnoredAllow == 0 {
		return ""
	}
	return fmt.Sprintf("%s has %d allow rule(s); they do not apply until you trust this workspace: add %q to \"trustedWorkspaces\" in %s. Its deny and ask rules apply.",
		set.WorkspaceFile, set.IgnoredAllow, filepath.Dir(filepath.Dir(set.WorkspaceFile)), set.UserFile)
}

// pendingText is the prompt's list of what is not yet allowed.
func pendingText(d permission.Decision, unsandboxedTerminal bool) string {
	var b strings.Builder
	if len(d.Pending) > 0 {
		b.WriteString("Not yet allowed:")
		for _, p := range d.Pending {
			b.WriteString("\n- " + p)
		}
	} else if d.Reason != "" {
		b.WriteString(d.Reason)
	}
	if len(d.Remembers) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("\"Always\" remembers, for this session: " + strings.Join(d.Remembers, "; ") + ".")
	}
	if unsandboxedTerminal {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Runs in the editor's terminal, outside dsh-bridge's sandbox.")
	}
	return b.String()
}

// userName is this process's user's login name, "" when unknown.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
