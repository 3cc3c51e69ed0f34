package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/credentials"
	"github.com/dsh-bridge/dsh-bridge/internal/folders"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Sandbox modes for commands.
const (
	SandboxWorkspaceWrite = "workspace-write" // write only in the workspace and temp folders
	SandboxReadOnly       = "read-only"       // write nowhere but the temp folders and devices
	SandboxOff            = "off"             // no kernel sandbox: the rules alone
)

// Settings are what the settings files say for one workspace.
type Settings struct {
	Allow, Ask, Deny []Rule
	// Trusted reports that the user trusts the workspace: its allow rules
	// apply.
	Trusted bool
	// IgnoredAllow counts the workspace's allow rules that do not apply
	// because the workspace is not trusted.
	IgnoredAllow int
	ScrubEnv     []string
	Sandbox      string // a Sandbox* mode
	Network      bool   // commands may open TCP connections
	// UserFile and WorkspaceFile are the settings files' paths.
	UserFile, WorkspaceFile string
	// StateDir is where dsh-bridge keeps its session logs (set by the
	// bridge, not read from a file): a log restores a session's mode
	// (bypassPermissions among them) and history, so it is guarded as the
	// configuration is.
	StateDir string
	// Programs are dsh-bridge's own binary and helpers (set by the
	// bridge): the sandbox's helper is the binary started again for each
	// command, and the helpers confine themselves, so a program put in
	// their place would run outside the sandbox. Guarded as the
	// configuration is.
	Programs []string
	// Unconfined reports that commands run with no kernel sandbox, as on
	// Windows (set by the bridge): the policy is stricter to match
	// (unconfined.go).
	Unconfined bool
	// Shell is the language of the bash tool's commands (set by the
	// bridge; "" is bash): cmd's are read by AnalyzeCmd.
	Shell tools.ShellKind
	// Problems describe settings files that were ignored whole.
	Problems []string
}

type settingsFile struct {
	Permissions struct {
		Allow []string `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"permissions"`
	TrustedWorkspaces []string `json:"trustedWorkspaces"`
	ScrubEnv          []string `json:"scrubEnv"`
	Sandbox           *struct {
		Mode    string `json:"mode"`
		Network *bool  `json:"network"`
	} `json:"sandbox"`
}

// UserConfigDir is dsh-bridge's folder in the user's configuration
// (folders.Config: $XDG_CONFIG_HOME/dsh-bridge, ~/.config/dsh-bridge on
// Linux; ~/Library/Application Support/dsh-bridge, %APPDATA%\dsh-bridge).
func UserConfigDir() string { return folders.Config(folders.Local()) }

// credentialsRules deny reading the stored API key (the credentials file
// in the config folder dir, internal/credentials) in every mode: the file
// tools and searches refuse it and the sandbox masks it, as the key in
// the environment is kept from commands.
func credentialsRules(dir string) []Rule {
	r, err := ParseRule("read("+filepath.ToSlash(filepath.Join(dir, credentials.FileName))+")", FromUser)
	if err != nil { // a config folder whose name reads as a glob: no rule rather than a wrong one
		return nil
	}
	return []Rule{r}
}

// LoadSettings reads the user's settings and the workspace's
// .dsh/settings.json. A malformed file is ignored whole and reported. The
// workspace may add deny and ask rules and tighten the sandbox; its allow
// rules apply only when the user's trustedWorkspaces lists it (or a folder
// above it, as "/path/**").
func LoadSettings(cwd string) Settings {
	s := Settings{Sandbox: SandboxWorkspaceWrite}
	if d := UserConfigDir(); d != "" {
		s.UserFile = filepath.Join(d, "settings.json")
		s.Deny = append(s.Deny, credentialsRules(d)...)
	}
	s.WorkspaceFile = filepath.Join(cwd, ".dsh", "settings.json")
	realCwd := workspace.Resolve(cwd)
	var wsAllow []Rule
	for _, src := range []Source{FromUser, FromWorkspace} {
		file := s.UserFile
		if src == FromWorkspace {
			file = s.WorkspaceFile
		}
		if file == "" {
			continue
		}
		f, rules, err := readSettings(file, src)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
			continue
		}
		s.ScrubEnv = append(s.ScrubEnv, f.ScrubEnv...)
		for _, r := range rules {
			switch {
			case src == FromWorkspace && r.verdict == Allow:
				wsAllow = append(wsAllow, r.Rule)
			case r.verdict == Allow:
				s.Allow = append(s.Allow, r.Rule)
			case r.verdict == Ask:
				s.Ask = append(s.Ask, r.Rule)
			default:
				s.Deny = append(s.Deny, r.Rule)
			}
		}
		if src == FromUser {
			for _, t := range f.TrustedWorkspaces {
				s.Trusted = s.Trusted || trusts(t, realCwd)
			}
		}
		if f.Sandbox != nil {
			mode := f.Sandbox.Mode
			switch {
			case src == FromUser:
				if mode != "" {
					s.Sandbox = mode
				}
				if f.Sandbox.Network != nil {
					s.Network = *f.Sandbox.Network
				}
			default: // a workspace may only tighten
				if mode == SandboxReadOnly && s.Sandbox != SandboxOff {
					s.Sandbox = SandboxReadOnly
				}
				if f.Sandbox.Network != nil && !*f.Sandbox.Network {
					s.Network = false
				}
			}
		}
	}
	if s.Trusted {
		s.Allow = append(s.Allow, wsAllow...)
	} else {
		s.IgnoredAllow = len(wsAllow)
	}
	return s
}

// trusts reports whether a trustedWorkspaces entry covers a resolved
// workspace directory.
func trusts(entry, realCwd string) bool {
	entry = strings.TrimSpace(entry)
	if rest, ok := strings.CutPrefix(entry, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		entry = filepath.Join(home, rest)
	}
	tree := strings.HasSuffix(filepath.ToSlash(entry), "/**") // C:\work\** on Windows
	if tree {
		entry = entry[:len(entry)-3]
	}
	if !filepath.IsAbs(entry) {
		return false
	}
	real := workspace.Resolve(filepath.Clean(entry))
	return real == realCwd || (tree && strings.HasPrefix(realCwd, real+string(filepath.Separator)))
}

type ruleVerdict struct {
	Rule
	verdict Verdict
}

// readSettings parses one settings file strictly: unknown sandbox modes,
// malformed rules and JSON errors reject the whole file.
func readSettings(file string, src Source) (settingsFile, []ruleVerdict, error) {
	var f settingsFile
	data, err := ReadConfig(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return f, nil, err
		}
		return f, nil, fmt.Errorf("%s: %v", file, err)
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&f); err != nil {
		return f, nil, fmt.Errorf("%s: %v", file, err)
	}
	var out []ruleVerdict
	var bad error
	for _, l := range []struct {
		in []string
		v  Verdict
	}{{f.Permissions.Allow, Allow}, {f.Permissions.Ask, Ask}, {f.Permissions.Deny, Deny}} {
		for _, text := range l.in {
			r, err := ParseRule(text, src)
			if err != nil {
				bad = errors.Join(bad, err)
				continue
			}
			out = append(out, ruleVerdict{r, l.v})
		}
	}
	if f.Sandbox != nil {
		switch f.Sandbox.Mode {
		case "", SandboxWorkspaceWrite, SandboxReadOnly, SandboxOff:
		default:
			bad = errors.Join(bad, fmt.Errorf("sandbox mode %q is not one of %s, %s, %s", f.Sandbox.Mode, SandboxWorkspaceWrite, SandboxReadOnly, SandboxOff))
		}
	}
	if bad != nil {
		return f, nil, fmt.Errorf("%s: %v", file, bad)
	}
	return f, out, nil
}
