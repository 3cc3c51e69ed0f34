package mcptools

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the model-facing limit on tool names.
const maxName = 64

// sanitize keeps [A-Za-z0-9_-] and turns every other byte into '_'.
func sanitize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ServerPrefix is the part of a tool name that names its server: the form
// permission rules use for a whole server ("mcp__github"). A rule for a
// whole server covers the names that start with its prefix and "__", so a
// server's part must never hold "__" nor end with "_" (server "ev__x"
// would read as server "ev"): such a name is joined into one part and
// made distinct by a hash of the server's name ("mcp__ev_x-1a2b3c4d").
func ServerPrefix(server string) string {
	s := sanitize(server)
	if s != "" && !strings.Contains(s, "__") && !strings.HasSuffix(s, "_") {
		return "mcp__" + s
	}
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	sum := sha256.Sum256([]byte(server))
	return "mcp__" + strings.Trim(s, "_") + "-" + hex.EncodeToString(sum[:4])
}

// namer maps (server, tool) pairs to model-facing names: the readable
// mcp__<server>__<tool> when it is valid and free, else a shortened form
// with a hash of the original pair, which is stable across restarts and
// never collides in practice.
type namer struct {
	used map[string]string // name → the pair it stands for
}

func (n *namer) name(server, tool string) string {
	if n.used == nil {
		n.used = map[string]string{}
	}
	pair := server + "\x00" + tool
	name := ServerPrefix(server) + "__" + sanitize(tool)
	exact := name == "mcp__"+server+"__"+tool
	if owner, taken := n.used[name]; len(name) > maxName || !exact || (taken && owner != pair) {
		sum := sha256.Sum256([]byte(pair))
		suffix := "_" + hex.EncodeToString(sum[:4])
		if len(name) > maxName-len(suffix) {
			name = name[:maxName-len(suffix)]
		}
		name += suffix
	}
	n.used[name] = pair
	return name
}
