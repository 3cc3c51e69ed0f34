// Package card is the presentation vocabulary shared by tools and editors:
// ACP/MCP content blocks ([Content]) and the render intents a tool's
// presenters return — the closed unions [CallView] (pending: *Generic,
// *Terminal, *Diff, *Question) and [ResultView] (completed: *GenericResult,
// *TerminalResult, *DiffResult, *SearchMatches, *SearchPaths, *Read,
// *WebSearch, *WebFetch, *Answer).
//
// The package has no behaviour beyond construction and JSON encoding (each
// card marshals with its "card" tag, plus "shape" or "kind" where a card has
// two forms); package views projects cards into ACP updates. It is a leaf so
// that both the registry (whose tools return cards) and views can use it.
package card
