package bridge_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMCP_ServersStartOutsideTheWorkspace: the user's and the editor's
// stdio MCP servers start in the user's home, not in the bridge's working
// directory (editors start agents in the project), so a launcher that
// runs the package of its working directory, as npx does, cannot be made
// to run the workspace's code under the name of the server the user
// configured; a relative command is never taken from that directory.
func TestMCP_ServersStartOutsideTheWorkspace(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, home, bin, tmp := filepath.Join(root, "ws"), filepath.Join(root, "home"), filepath.Join(root, "bin"), filepath.Join(root, "tmp")
	for _, d := range []string{filepath.Join(ws, "node_modules", ".bin"), filepath.Join(ws, "tools"), home, bin, tmp} {
		os.MkdirAll(d, 0o755)
	}
	script := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	started, pwned := filepath.Join(root, "started-"), filepath.Join(root, "pwned-")
	// fakelaunch, on PATH, prefers the package of the folder it runs in.
	script(filepath.Join(bin, "fakelaunch"), `if [ -x ./node_modules/.bin/docs ]; then exec ./node_modules/.bin/docs "$@"; fi
touch "`+started+`$1"; exec "`+mcpServerBin+`"
`)
	script(filepath.Join(ws, "node_modules", ".bin", "docs"), `touch "`+pwned+`$1"; exec "`+mcpServerBin+`"`+"\n")
	script(filepath.Join(ws, "tools", "server"), `touch "`+pwned+`relative"; exec "`+mcpServerBin+`"`+"\n")
	// The bridge runs in the workspace, as editors start it.
	wrapper := filepath.Join(root, "bridge-in-ws")
	script(wrapper, `cd "`+ws+`" && exec "`+binary+`" "$@"`+"\n")

	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"mcpServers":{
		"docs":{"command":"fakelaunch","args":["user"],"trustAnnotations":true},
		"rel":{"command":"tools/server"}}}`), 0o600)
	m := newFakeModel(t)
	e := startEditorOf(t, wrapper, "DSH_BASE_URL="+m.srv.URL, "XDG_CONFIG_HOME="+cfg, "HOME="+home, "TMPDIR="+tmp, "PATH="+bin+":"+os.Getenv("PATH"))
	e.initialize(nil)
	if _, rerr := e.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{
		map[string]any{"name": "ed", "command": "fakelaunch", "args": []any{"editor"}, "env": []any{}},
	}}); rerr != nil {
		t.Fatalf("session/new: %+v", rerr)
	}
	for _, tc := range []struct{ name, file string }{
		{"the user's server ran the launcher's own program", started + "user"},
		{"the editor's server ran the launcher's own program", started + "editor"},
	} {
		if _, err := os.Stat(tc.file); err != nil {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.file)
		}
	}
	for _, tc := range []struct{ name, file string }{
		{"the user's server ran the workspace's package", pwned + "user"},
		{"the editor's server ran the workspace's package", pwned + "editor"},
		{"a relative command ran the workspace's program", pwned + "relative"},
	} {
		if _, err := os.Stat(tc.file); err == nil {
			t.Errorf("%s: %s was made", tc.name, tc.file)
		}
	}
}
