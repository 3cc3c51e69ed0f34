package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// With the network allowed, the socket filter lets connect(2) through
// (seccomp cannot tell a TCP connect from a UNIX one), and other
// programs' UNIX sockets would be reachable. SocketPlaces names where
// the ones that run commands on request live, and the helper masks them
// in the command's mount namespace (Profile.Hidden), as it masks denied
// trees. It is a list of the known places, not a wall: a socket
// elsewhere stays reachable, and the session's notice says so.

// socketEnv are the variables that name a socket (or an address holding
// one) of a program that runs what it is asked: the editor, the terminal
// multiplexers and terminals, D-Bus, the agents, the container engines.
var socketEnv = []string{
	"NVIM", "NVIM_LISTEN_ADDRESS", "TMUX", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
	"VSCODE_IPC_HOOK_CLI", "VSCODE_IPC_HOOK", "VSCODE_GIT_IPC_HANDLE",
	"KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "ZELLIJ_SOCKET_DIR", "EMACS_SOCKET_NAME",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "PULSE_SERVER", "WAYLAND_DISPLAY",
	"DOCKER_HOST", "CONTAINER_HOST", "XDG_RUNTIME_DIR",
}

// socketPlaces are the fixed places (%d is the user's id, %s their name):
// the user's runtime folder (D-Bus, systemd, Wayland, PipeWire,
// gpg-agent, rootless Docker and Podman, Neovim, VS Code), X11's,
// tmux's, screen's, zellij's and Emacs's folders, Neovim's fallback in
// /tmp, and the system's D-Bus and container engines. No globs: /tmp
// holds thousands of entries on a busy machine (VS Code leaves a socket
// per window), and reading it at every command start costs milliseconds.
var socketPlaces = []string{
	"/run/user/%d", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/tmp/tmux-%d", "/tmp/zellij-%d", "/tmp/emacs%d",
	"/tmp/nvim.%s", "/run/screen", "/var/run/screen", "/run/dbus", "/var/run/dbus",
	"/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman",
}

// SocketPlaces returns where other programs' sockets are (absolute paths,
// quoted for filepath.Glob) for commands that get env (their $NVIM,
// $TMUX, …) and run as the user uid named name.
func SocketPlaces(env []string, uid int, name string) []string {
	var out []string
	for _, p := range socketPlaces {
		switch {
		case strings.Contains(p, "%d"):
			p = fmt.Sprintf(p, uid)
		case strings.Contains(p, "%s"):
			if name == "" || strings.ContainsRune(name, '/') {
				continue
			}
			p = fmt.Sprintf(p, name)
		}
		out = append(out, GlobQuote(p))
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		for _, n := range socketEnv {
			if n == name {
				out = append(out, socketPaths(name, value)...)
			}
		}
	}
	return out
}

// socketPaths reads the socket paths out of a variable's value.
func socketPaths(name, value string) []string {
	var out []string
	add := func(p string) {
		if filepath.IsAbs(p) {
			out = append(out, GlobQuote(filepath.Clean(p)))
		}
	}
	switch name {
	case "TMUX", "GPG_AGENT_INFO": // path,pid,session and path:pid:version
		p, _, _ := strings.Cut(value, ",")
		p, _, _ = strings.Cut(p, ":")
		add(p)
	case "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS": // unix:path=/x,guid=…;unix:abstract=…
		for _, addr := range strings.Split(value, ";") {
			_, kvs, _ := strings.Cut(addr, ":")
			for _, kv := range strings.Split(kvs, ",") {
				if k, v, _ := strings.Cut(kv, "="); k == "path" || k == "dir" || k == "tmpdir" {
					add(v)
				}
			}
		}
	case "KITTY_LISTEN_ON", "PULSE_SERVER", "DOCKER_HOST", "CONTAINER_HOST": // unix:/x, unix:///x
		if p, ok := strings.CutPrefix(value, "unix:"); ok && !strings.HasPrefix(p, "@") { // @: abstract, scoped by Landlock
			add("/" + strings.TrimLeft(p, "/"))
		}
	default:
		add(value)
	}
	return out
}

// GlobQuote escapes what filepath.Glob would read as a pattern in a path.
func GlobQuote(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hiddenPaths expands the profile's Hidden globs to what exists, leaving
// out any that is one of the writable folders or holds one (masking it
// would take the workspace away).
func hiddenPaths(hidden, write []string) []string {
	var out []string
	for _, g := range hidden {
		for _, c := range candidates(g) {
			if _, err := os.Lstat(c); err != nil || holdsAny(c, write) {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// holdsAny reports whether dir is one of paths or an ancestor of one.
func holdsAny(dir string, paths []string) bool {
	for _, p := range paths {
		p = filepath.Clean(p)
		if within(p, dir) {
			return true
		}
	}
	return false
}
