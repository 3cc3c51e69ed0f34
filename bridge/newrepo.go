package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/permission"
)

// newRepos watches the workspace roots that had no git repository when
// the session opened. The sandbox keeps a repository's hooks and config
// only once they exist, so in a repository a command makes there they are
// the command's: git runs them when the person uses it there later. Once
// one appears, what in it runs code is told to the person, once.
type newRepos struct {
	mu    sync.Mutex
	roots []string // roots still without .git
}

// watchNewRepos watches those of roots without .git.
func watchNewRepos(roots []string) *newRepos {
	w := &newRepos{}
	for _, r := range roots {
		if _, err := os.Lstat(filepath.Join(r, ".git")); os.IsNotExist(err) {
			w.roots = append(w.roots, r)
		}
	}
	return w
}

// check returns, for each watched root that now has a .git, what
// permission.RepoRisks finds in it (roots where it finds nothing are left
// out); each such root is no longer watched.
func (w *newRepos) check() map[string][]string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var found map[string][]string
	kept := w.roots[:0]
	for _, r := range w.roots {
		dotGit := filepath.Join(r, ".git")
		if _, err := os.Lstat(dotGit); err != nil {
			kept = append(kept, r)
			continue
		}
		if risks := permission.RepoRisks(dotGit); len(risks) > 0 {
			if found == nil {
				found = map[string][]string{}
			}
			found[r] = risks
		}
	}
	w.roots = kept
	return found
}

// rootsWritable reports whether the session's commands run sandboxed
// with a root writable (workspace-write, or a root in the temp folder):
// the roots watched for new repositories and the warning about $PATH
// depend on it.
func (ss *Session) rootsWritable() bool {
	if ss.sandbox == nil {
		return false
	}
	for _, r := range ss.ws.Roots() {
		for _, w := range ss.sandbox.Profile.Writable() {
			if safepath.Within(r, w) {
				return true
			}
		}
	}
	return false
}

// reportNewRepos tells the person about repositories commands made with
// code in them for git to run (after each batch of calls).
func (ss *Session) reportNewRepos(ctx context.Context) {
	for root, risks := range ss.repos.check() {
		ss.srv.notify(ctx, ss.id, noticeUpdate{
			SessionUpdate: "notice", Severity: "warning",
			Title: "A new git repository has code for git to run",
			Description: fmt.Sprintf("%s: %s. The repository appeared during this session, where the sandbox keeps nothing yet, so a command may have written them; git would run them when you use it there. Review .git/hooks and .git/config first.",
				root, strings.Join(risks, ", ")),
		})
	}
}
