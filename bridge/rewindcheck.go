package bridge

import (
	"fmt"
	"path/filepath"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// restorable judges a path a rewind would write or remove (see
// restoreCheck). A path is judged by its folder: the restore renames
// over (or removes) the name itself, a symbolic link included, never
// its target.
func (ss *Session) restorable(p string) error {
	real := filepath.Join(ss.ws.Resolve(filepath.Dir(p)), filepath.Base(p))
	state := ""
	if st := ss.srv.store(); st != nil {
		state = workspace.Resolve(st.Dir())
	}
	return restoreCheck(p, real, ss.ws.ContainsResolved(real), state)
}

// restoreCheck is the rewind's verdict on a recorded path (recorded
// resolved), given where it leads now (real) and whether that is in
// the workspace. The state folder (logs, checkpoint blobs) is never
// written. In the workspace a path is restored. Outside it, a path was
// recorded only by a write the person approved there (the walks cover
// the workspace's roots alone), so it is restored as that write was
// judged: as long as it still leads where it led (no symbolic link put
// on its way since); else it is refused.
func restoreCheck(recorded, real string, inside bool, state string) error {
	if state != "" && safepath.Within(real, state) {
		return fmt.Errorf("%s is in dsh-bridge's state folder", recorded)
	}
	if inside {
		return nil
	}
	if real != filepath.Clean(recorded) {
		return fmt.Errorf("%s leads outside the workspace now (to %s)", recorded, real)
	}
	return nil
}

// claimMessageID is the id of a new user message: the client's when it
// is a valid name no message of the session has had (see
// pickMessageID), else a new one; it is then the session's.
func (ss *Session) claimMessageID(client string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.messageIDs == nil {
		ss.messageIDs = map[string]bool{}
	}
	id := pickMessageID(client, ss.messageIDs)
	ss.messageIDs[id] = true
	return id
}

// noteMessageIDs marks ids as the session's (its log's, on a load).
func (ss *Session) noteMessageIDs(ids ...string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.messageIDs == nil {
		ss.messageIDs = map[string]bool{}
	}
	for _, id := range ids {
		if id != "" {
			ss.messageIDs[id] = true
		}
	}
}

// pickMessageID is a prompt's user message id: the client's messageId
// when it is a valid name not in used (the ids of the session's
// messages, rewound ones included), else a new one. A repeated id gets
// a new one rather than a refusal: the prompt runs, its answer names
// the id it got (_meta.dsh.userMessageId), and a rewind to an id always
// means one turn.
func pickMessageID(client string, used map[string]bool) string {
	if id := userMessageID(client); !used[id] {
		return id
	}
	for {
		if id := newMessageID(); !used[id] {
			return id
		}
	}
}
