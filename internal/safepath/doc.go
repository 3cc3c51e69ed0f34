// Package safepath finds, on $PATH, the programs dsh-bridge runs outside
// the sandbox (ripgrep, bash for approved unsandboxed commands, its
// helpers, MCP servers named by command), skipping the folders sandboxed
// commands may write: a workspace's own .venv/bin or node_modules/.bin on
// the person's $PATH, the temp folder, a relative entry. A program
// planted there would otherwise run unsandboxed the next time the bridge
// needed it.
package safepath
