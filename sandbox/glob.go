package sandbox

import (
	"path/filepath"
	"strings"
)

// candidates are the paths a kept glob names: its matches, or, for a
// plain path, the path itself even where it cannot be reached (a file
// where a folder should be: keep then keeps that file).
func candidates(pattern string) []string {
	m, err := filepath.Glob(pattern)
	if err != nil {
		return nil
	}
	if plain, ok := literal(pattern); len(m) == 0 && ok {
		return []string{plain}
	}
	return m
}

// literal returns the path a pattern without wildcards names (its escapes
// undone), and false for a pattern with wildcards.
func literal(pattern string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*', '?', '[':
			return "", false
		case '\\':
			if i+1 < len(pattern) {
				i++
			}
			b.WriteByte(pattern[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// listedDeny is the denied paths a notice names: all but dsh-bridge's own
// stored API key (credentials.json in its config folder), which is denied
// in every session and is the person's own secret, not a rule of theirs.
func listedDeny(deny []string) []string {
	var out []string
	for _, d := range deny {
		if filepath.Base(d) == "credentials.json" && filepath.Base(filepath.Dir(d)) == "dsh-bridge" {
			continue
		}
		out = append(out, d)
	}
	return out
}
