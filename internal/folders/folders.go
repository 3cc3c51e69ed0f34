// Package folders names dsh-bridge's state and settings folders per
// platform, as pure functions of the OS, the environment and the home
// folder, so that every platform's answer is tested everywhere.
package folders

import (
	"os"
	"path"
	"runtime"
	"strings"
)

const name = "dsh-bridge"

// Env is what the functions read of a system.
type Env struct {
	GOOS   string
	Getenv func(string) string
	Home   string            // "" when unknown
	Exists func(string) bool // whether a folder exists
}

// Local is this process's Env.
func Local() Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, Getenv: os.Getenv, Home: home, Exists: func(p string) bool {
		info, err := os.Stat(p)
		return err == nil && info.IsDir()
	}}
}

// xdg is the XDG variable v when it names an absolute path; the XDG base
// directory specification has relative values ignored (a relative one
// would put the key and the logs wherever the process was started, a
// workspace perhaps).
func (e Env) xdg(v string) string {
	d := e.Getenv(v)
	switch {
	case strings.HasPrefix(d, "/"):
		return d
	case e.GOOS == "windows" && (strings.HasPrefix(d, `\\`) || len(d) >= 3 && d[1] == ':' && (d[2] == '\\' || d[2] == '/')):
		return d
	}
	return ""
}

// State is the folder of session logs: $XDG_STATE_HOME/dsh-bridge when
// set to an absolute path; else ~/Library/Application Support/dsh-bridge on macOS,
// %LOCALAPPDATA%\dsh-bridge on Windows, ~/.local/state/dsh-bridge
// elsewhere. "" when nothing names one.
func State(e Env) string {
	if d := e.xdg("XDG_STATE_HOME"); d != "" {
		return e.join(d, name)
	}
	switch e.GOOS {
	case "darwin":
		return e.home("Library", "Application Support", name)
	case "windows":
		if d := e.Getenv("LOCALAPPDATA"); d != "" {
			return e.join(d, name)
		}
		return e.home("AppData", "Local", name)
	}
	return e.home(".local", "state", name)
}

// Config is the folder of the user's settings: $XDG_CONFIG_HOME/dsh-bridge
// when set to an absolute path; else ~/Library/Application Support/dsh-bridge on macOS and
// %APPDATA%\dsh-bridge on Windows, unless that folder is missing and
// ~/.config/dsh-bridge exists (then that one); ~/.config/dsh-bridge
// elsewhere. "" when nothing names one.
func Config(e Env) string {
	if d := e.xdg("XDG_CONFIG_HOME"); d != "" {
		return e.join(d, name)
	}
	xdg := e.home(".config", name)
	var native string
	switch e.GOOS {
	case "darwin":
		native = e.home("Library", "Application Support", name)
	case "windows":
		if d := e.Getenv("APPDATA"); d != "" {
			native = e.join(d, name)
		} else {
			native = e.home("AppData", "Roaming", name)
		}
	default:
		return xdg
	}
	if native != "" && !e.Exists(native) && xdg != "" && e.Exists(xdg) {
		return xdg
	}
	return native
}

// home joins parts below the home folder; "" without one.
func (e Env) home(parts ...string) string {
	if e.Home == "" {
		return ""
	}
	return e.join(append([]string{e.Home}, parts...)...)
}

// join joins with the separator of e's OS, whatever OS runs it.
func (e Env) join(parts ...string) string {
	if e.GOOS != "windows" {
		return path.Join(parts...)
	}
	for i, p := range parts {
		parts[i] = strings.TrimRight(strings.ReplaceAll(p, "/", `\`), `\`)
	}
	return strings.Join(parts, `\`)
}
