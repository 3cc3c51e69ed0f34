package tools

import (
	"os/exec"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// sandboxHost is a Host that confines commands: LocalHost, and the hosts
// that embed it.
type sandboxHost interface{ sandboxConfig() (*Sandbox, []string) }

func (h LocalHost) sandboxConfig() (*Sandbox, []string) { return h.Sandbox, h.Scrub }

// searchJail runs ripgrep confined to reading: through the host's sandbox
// helper, with a profile that writes nothing, has no network and denies
// the session's denied trees (PathRules.DeniedTrees, as they stand when
// the search starts). Landlock then refuses any read inside a denied
// tree, whatever path reaches it (a folder swapped for a symlink while
// ripgrep walks), and the helper's mount namespace masks the trees. The
// zero searchJail (no sandbox: sandbox off, no Landlock) confines
// nothing, and searches rely on filtering ripgrep's results alone.
type searchJail struct {
	helper string
	scrub  []string
	rules  PathRules
}

// newSearchJail is the searchJail of host h under rules.
func newSearchJail(h Host, rules PathRules) searchJail {
	s, ok := h.(sandboxHost)
	if !ok || rules == nil {
		return searchJail{}
	}
	sb, scrub := s.sandboxConfig()
	if sb == nil || sb.Helper == "" {
		return searchJail{}
	}
	return searchJail{helper: sb.Helper, scrub: scrub, rules: rules}
}

// confine makes cmd (ripgrep, as exec.Command built it) run in the jail;
// it leaves cmd as it is when the jail confines nothing.
func (j searchJail) confine(cmd *exec.Cmd) error {
	if j.helper == "" {
		return nil
	}
	deny := j.rules.DeniedTrees()
	if len(deny) == 0 {
		return nil
	}
	p := sandbox.Profile{Deny: deny}
	argv, err := sandbox.Wrap(j.helper, p, cmd.Args)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args = argv[0], argv // the helper, or sandbox-exec on macOS
	cmd.SysProcAttr = sandbox.SysProcAttr(p)
	cmd.Env = ScrubbedEnv(j.scrub)
	return nil
}
