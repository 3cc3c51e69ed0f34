// Package golex tokenizes Go source exactly as chroma's Go lexer does,
// without chroma: in one pass, with no regular expressions and nothing
// built when the package initialises, so the bridge can give a Go read
// its tokens itself instead of asking the dsh-highlight helper (which
// links chroma and its 279 lexers). Text the lexer cannot match exactly
// is refused, and the caller asks chroma.
package golex
