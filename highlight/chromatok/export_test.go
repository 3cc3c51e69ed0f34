package chromatok

import (
	"strings"
)

// Test-only helpers of the package.

// LanguageName returns the lexer's name for a path or hint in lower case
// ("go", "python"), or "" when no lexer knows it.
func LanguageName(path, lang string) string {
	l := lexerFor(path, lang)
	if l == nil {
		return ""
	}
	return strings.ToLower(l.Config().Name)
}
