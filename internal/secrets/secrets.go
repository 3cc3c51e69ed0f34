package secrets

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Names are the variables that hold dsh-bridge's API keys: no process it
// starts ever inherits them.
var Names = []string{"DSH_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"}

// MinLen is the shortest value Redact replaces.
const MinLen = 8

// Mark is what a redacted value becomes.
const Mark = "[redacted]"

// Env returns env (KEY=VALUE entries) without Names and the variables in
// scrub; env itself is not changed.
func Env(env []string, scrub []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(Names, k) && !slices.Contains(scrub, k) {
			out = append(out, kv)
		}
	}
	return out
}

// Clean is env without Names and every variable a settings file has
// scrubbed so far (RememberEnv): what dsh-bridge's helpers, which serve
// every session, get.
func Clean(env []string) []string {
	var scrub []string
	if n := current.Load(); n != nil {
		scrub = n.names
	}
	return Env(env, scrub)
}

// needles are the byte strings RedactJSON looks for, longest first; raw
// are the values Redact looks for, longest first.
type needles struct {
	raw   []string
	json  [][]byte
	names []string // the scrubbed variables' names (RememberEnv)
}

var (
	mu      sync.Mutex // serialises Remember
	current atomic.Pointer[needles]
)

// Remember adds values (MinLen bytes or longer; shorter ones and
// duplicates are ignored) to what Redact and RedactJSON replace, from now
// on, in every goroutine. It is safe for concurrent use.
func Remember(values ...string) { remember(nil, values) }

func remember(names, values []string) {
	mu.Lock()
	defer mu.Unlock()
	old := current.Load()
	var n needles
	if old != nil {
		n.raw, n.json, n.names = slices.Clone(old.raw), old.json, old.names
	}
	changed := false
	for _, name := range names {
		if !slices.Contains(n.names, name) {
			n.names = append(slices.Clone(n.names), name)
			changed = true
		}
	}
	for _, v := range values {
		if len(v) < MinLen || slices.Contains(n.raw, v) {
			continue
		}
		n.raw = append(n.raw, strings.Clone(v))
		changed = true
	}
	if !changed {
		return
	}
	n.json = nil
	slices.SortFunc(n.raw, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, v := range n.raw {
		q := jsonv.AppendString(nil, v) // as our writers spell it inside a JSON string
		inner := q[1 : len(q)-1]
		n.json = append(n.json, inner)
		if string(inner) != v {
			n.json = append(n.json, []byte(v))
		}
		if std, err := json.Marshal(v); err == nil && string(std[1:len(std)-1]) != string(inner) {
			n.json = append(n.json, std[1:len(std)-1]) // encoding/json's spelling: <, > and & escaped
		}
	}
	slices.SortStableFunc(n.json, func(a, b []byte) int { return cmp.Compare(len(b), len(a)) })
	current.Store(&n)
}

// RememberEnv remembers the values of Names and of the variables in
// scrub that env (KEY=VALUE entries) sets, and scrub's names for Clean.
func RememberEnv(env []string, scrub []string) {
	var vals []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (slices.Contains(Names, k) || slices.Contains(scrub, k)) {
			vals = append(vals, v)
		}
	}
	remember(scrub, vals)
}

// Redact returns s with every remembered value replaced by Mark.
func Redact(s string) string {
	n := current.Load()
	if n == nil {
		return s
	}
	for _, v := range n.raw {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mark)
		}
	}
	return s
}

// RedactJSON returns b, one or more JSON texts, with every remembered
// value replaced by Mark where it occurs inside a JSON string (as itself
// or as a JSON string spells it); outside strings nothing changes, so the
// text stays valid. It returns b itself when nothing matches, and a new
// slice otherwise.
func RedactJSON(b []byte) []byte {
	n := current.Load()
	if n == nil {
		return b
	}
	hit := false
	for _, v := range n.json {
		if bytes.Contains(b, v) {
			hit = true
			break
		}
	}
	if !hit {
		return b
	}
	out := make([]byte, 0, len(b))
	in := false
	for i := 0; i < len(b); {
		c := b[i]
		if in {
			if v := matchAt(b[i:], n.json); v > 0 {
				out = append(out, Mark...)
				i += v
				continue
			}
			switch c {
			case '\\':
				end := min(i+2, len(b))
				out = append(out, b[i:end]...)
				i = end
				continue
			case '"':
				in = false
			}
		} else if c == '"' {
			in = true
		}
		out = append(out, c)
		i++
	}
	return out
}

// matchAt is the length of the longest needle b starts with that ends
// before the string does (no unescaped quote inside it), or 0.
func matchAt(b []byte, vs [][]byte) int {
	for _, v := range vs {
		if bytes.HasPrefix(b, v) && !closesString(v) {
			return len(v)
		}
	}
	return 0
}

// closesString reports whether v holds a quote no backslash escapes: a
// match of it would run past the end of the JSON string.
func closesString(v []byte) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return true
		}
	}
	return false
}

// Writer returns a writer that writes to w what it is given with every
// remembered value redacted: for logs, whose handlers write a record in
// one call, so a value is never split between two writes.
func Writer(w io.Writer) io.Writer { return redactingWriter{w} }

type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(p []byte) (int, error) {
	s := Redact(string(p))
	if len(s) == len(p) && s == string(p) {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
