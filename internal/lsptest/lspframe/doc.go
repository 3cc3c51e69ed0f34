// Package lspframe reads and writes the Content-Length framing of the
// Language Server Protocol's base protocol for the fake language servers
// the tests start (internal/lsptest/fakels, lsp/testdata/hostilels,
// lsp/redteam2/hostile). It trusts its peer, the bridge: no caps.
package lspframe
