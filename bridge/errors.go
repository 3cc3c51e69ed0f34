package bridge

import "github.com/dsh-bridge/dsh-bridge/acp"

// Sentinels of the bridge's own; handlers wrap them, and the connection
// converts them to their codes once, when it answers.
var (
	ErrSessionNotFound = acp.NewError(acp.CodeResourceNotFound, "session not found")
	ErrBusy            = acp.NewError(acp.CodeInvalidRequest, "a prompt is already running in this session")
	// ErrRewindBusy is ErrBusy as a rewind meets it.
	ErrRewindBusy = acp.NewError(acp.CodeInvalidRequest, "a turn is running in this session; rewind after it ends")
)
