package permission

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// call is one call as the policy sees it.
type call struct {
	tool     *registry.Tool
	args     jsonv.Value
	declared []registry.Access // the tool's own declaration
	ws       *workspace.Workspace
	files    []access // declared, resolved: accesses() fills it once
	resolved bool
	targets  []string  // cmd's redirects, resolved ("" for a dynamic one): target() fills it once
	cmd      *Analysis // command tools
	host     string    // fetch tools: canonical host

	ctx     context.Context // for the host's lookup
	p       *Policy         // told when the host is found private
	looked  bool            // private and addrs are known
	private bool
	addrs   []string
}

// accesses are the call's declared file accesses with their paths
// resolved, the first time a judgement needs them: a call that no rule
// about files concerns (a guard with no deny rules) resolves nothing, and
// resolving costs a few system calls per path.
func (c *call) accesses() []access {
	if !c.resolved {
		c.resolved = true
		for _, a := range c.declared {
			c.files = append(c.files, access{path: c.ws.Resolve(a.Path), write: a.Write})
		}
	}
	return c.files
}

// target is the resolved path of the command's i-th redirect (cmd's
// Redirects), resolved once for the deny rules and the workspace's
// bounds alike.
func (c *call) target(i int) string {
	if c.targets == nil {
		c.targets = make([]string, len(c.cmd.Redirects))
	}
	if c.targets[i] == "" {
		c.targets[i] = c.asWritten(c.cmd.Redirects[i].Path) // as the shell opens it
	}
	return c.targets[i]
}

// lookup resolves the call's host once, when a rule or the private check
// first needs it.
func (c *call) lookup() (private bool, addrs []string) {
	if !c.looked {
		c.private, c.addrs = privateHost(c.ctx, c.host)
		c.looked = true
		if c.private && c.p != nil {
			c.p.sawPrivate(c.host)
		}
	}
	return c.private, c.addrs
}

type access struct {
	path  string // resolved
	write bool
}
