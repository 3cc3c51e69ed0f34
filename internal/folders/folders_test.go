package folders

import "testing"

func TestFolders(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	existing := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, x := range paths {
				if x == p {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name          string
		e             Env
		state, config string
	}{
		{"linux", Env{GOOS: "linux", Getenv: env(), Home: "/home/me", Exists: existing()},
			"/home/me/.local/state/dsh-bridge", "/home/me/.config/dsh-bridge"},
		{"linux with XDG", Env{GOOS: "linux", Getenv: env("XDG_STATE_HOME", "/s", "XDG_CONFIG_HOME", "/c"), Home: "/home/me", Exists: existing()},
			"/s/dsh-bridge", "/c/dsh-bridge"},
		{"macOS", Env{GOOS: "darwin", Getenv: env(), Home: "/Users/me", Exists: existing()},
			"/Users/me/Library/Application Support/dsh-bridge", "/Users/me/Library/Application Support/dsh-bridge"},
		{"macOS with only ~/.config", Env{GOOS: "darwin", Getenv: env(), Home: "/Users/me", Exists: existing("/Users/me/.config/dsh-bridge")},
			"/Users/me/Library/Application Support/dsh-bridge", "/Users/me/.config/dsh-bridge"},
		{"macOS with both", Env{GOOS: "darwin", Getenv: env(), Home: "/Users/me", Exists: existing("/Users/me/.config/dsh-bridge", "/Users/me/Library/Application Support/dsh-bridge")},
			"/Users/me/Library/Application Support/dsh-bridge", "/Users/me/Library/Application Support/dsh-bridge"},
		{"macOS with XDG", Env{GOOS: "darwin", Getenv: env("XDG_STATE_HOME", "/s", "XDG_CONFIG_HOME", "/c"), Home: "/Users/me", Exists: existing()},
			"/s/dsh-bridge", "/c/dsh-bridge"},
		{"Windows", Env{GOOS: "windows", Getenv: env("LOCALAPPDATA", `C:\Users\me\AppData\Local`, "APPDATA", `C:\Users\me\AppData\Roaming`), Home: `C:\Users\me`, Exists: existing()},
			`C:\Users\me\AppData\Local\dsh-bridge`, `C:\Users\me\AppData\Roaming\dsh-bridge`},
		{"Windows with only ~/.config", Env{GOOS: "windows", Getenv: env("APPDATA", `C:\Users\me\AppData\Roaming`), Home: `C:\Users\me`, Exists: existing(`C:\Users\me\.config\dsh-bridge`)},
			`C:\Users\me\AppData\Local\dsh-bridge`, `C:\Users\me\.config\dsh-bridge`},
		{"no home", Env{GOOS: "linux", Getenv: env(), Exists: existing()}, "", ""},
		{"relative XDG ignored", Env{GOOS: "linux", Getenv: env("XDG_STATE_HOME", "s", "XDG_CONFIG_HOME", ".config"), Home: "/home/me", Exists: existing()},
			"/home/me/.local/state/dsh-bridge", "/home/me/.config/dsh-bridge"},
		{"Windows with XDG", Env{GOOS: "windows", Getenv: env("XDG_STATE_HOME", `D:\s`, "XDG_CONFIG_HOME", `\\srv\c`, "APPDATA", `C:\Users\me\AppData\Roaming`), Home: `C:\Users\me`, Exists: existing()},
			`D:\s\dsh-bridge`, `\\srv\c\dsh-bridge`},
		{"Windows with a relative XDG", Env{GOOS: "windows", Getenv: env("XDG_CONFIG_HOME", `c`, "APPDATA", `C:\Users\me\AppData\Roaming`), Home: `C:\Users\me`, Exists: existing()},
			`C:\Users\me\AppData\Local\dsh-bridge`, `C:\Users\me\AppData\Roaming\dsh-bridge`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := State(tc.e); got != tc.state {
				t.Errorf("State = %q, want %q", got, tc.state)
			}
			if got := Config(tc.e); got != tc.config {
				t.Errorf("Config = %q, want %q", got, tc.config)
			}
		})
	}
}
