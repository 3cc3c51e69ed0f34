// Command dist builds dsh-bridge's release: for each of the six targets
// the ACP Registry takes, the bridge and its three helpers built
// statically and reproducibly (CGO_ENABLED=0, -trimpath, -buildvcs=false),
// packed with README.md and LICENSE into one archive (.tar.gz for macOS
// and Linux, .zip for Windows) whose entries have fixed times, owners,
// modes and order, so that two runs give the same bytes; then SHA256SUMS
// and the registry entry agent.json (its version is what the host's
// `dsh-bridge --version` prints). With -vsix it also packages the VS Code
// extension once per target, each VSIX with that target's binaries.
//
// A target that does not build is reported with its build error, the
// others are still packed, and dist exits 1: the registry takes a binary
// agent only with builds for macOS, Linux and Windows.
//
//	go run ./internal/devtools/dist [-out dist/release] [-registry dist/registry/agent.json] [-targets linux/amd64,...] [-vsix]
package main
