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
