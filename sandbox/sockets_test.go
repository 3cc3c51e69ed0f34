//go:build linux

package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSocketPlaces(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		want []string
	}{
		{"Neovim's server", "NVIM=/run/user/1000/nvim.4242.0", []string{"/run/user/1000/nvim.4242.0"}},
		{"tmux's path, pid, session", "TMUX=/tmp/tmux-1000/default,4242,0", []string{"/tmp/tmux-1000/default"}},
		{"D-Bus, two addresses", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus,guid=ab;unix:abstract=/tmp/dbus-x", []string{"/run/user/1000/bus"}},
		{"kitty's unix: address", "KITTY_LISTEN_ON=unix:/tmp/mykitty", []string{"/tmp/mykitty"}},
		{"kitty's abstract address", "KITTY_LISTEN_ON=unix:@mykitty", nil},
		{"Docker's unix:// host", "DOCKER_HOST=unix:///home/u/.docker/run/docker.sock", []string{"/home/u/.docker/run/docker.sock"}},
		{"Docker over TCP", "DOCKER_HOST=tcp://127.0.0.1:2375", nil},
		{"gpg-agent's path:pid:version", "GPG_AGENT_INFO=/run/user/1000/gnupg/S.gpg-agent:0:1", []string{"/run/user/1000/gnupg/S.gpg-agent"}},
		{"VS Code's IPC hook", "VSCODE_IPC_HOOK_CLI=/tmp/vscode-ipc-1.sock", []string{"/tmp/vscode-ipc-1.sock"}},
		{"a pattern character in a name", "NVIM=/tmp/n[1]/s", []string{`/tmp/n\[1]/s`}},
		{"a relative Wayland display", "WAYLAND_DISPLAY=wayland-0", nil},
		{"another variable", "HOME=/home/u", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SocketPlaces([]string{tc.env}, 1000, "ada")
			fixed := SocketPlaces(nil, 1000, "ada")
			if !slices.Contains(fixed, "/run/user/1000") || !slices.Contains(fixed, "/tmp/tmux-1000") || !slices.Contains(fixed, "/tmp/nvim.ada") {
				t.Fatalf("the fixed places: %q", fixed)
			}
			if extra := got[len(fixed):]; !slices.Equal(extra, tc.want) {
				t.Errorf("got %q, want %q", extra, tc.want)
			}
		})
	}
}

// TestHidden_Sockets: with the network allowed, a listener at a hidden
// place (a socket named by the command's $NVIM, a folder like the user's
// runtime folder) is out of reach, by the helper and the supervisor; the
// workspace is never hidden, even when a place holds it.
func TestHidden_Sockets(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock")
	}
	self, _ := os.Executable()
	base := t.TempDir()
	runtimeDir := filepath.Join(base, "run-user")
	os.MkdirAll(runtimeDir, 0o700)
	nvim := filepath.Join(base, "nvim.4242.0")
	ws := filepath.Join(runtimeDir, "work") // a workspace below a hidden place: that place stays
	os.MkdirAll(ws, 0o755)
	var listeners []net.Listener
	for _, p := range []string{nvim, filepath.Join(runtimeDir, "bus")} {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		listeners = append(listeners, ln)
	}
	go func() {
		for _, ln := range listeners {
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
	}()
	places := SocketPlaces([]string{"NVIM=" + nvim}, os.Getuid(), "")
	for _, supervised := range []bool{false, true} {
		t.Run(map[bool]string{false: "helper", true: "supervisor"}[supervised], func(t *testing.T) {
			p := Profile{Write: []string{base + "/other"}, Network: true, Hidden: append(places, GlobQuote(base)+"/nothing-here")}
			os.MkdirAll(base+"/other", 0o755)
			out, err := helperRun(t, p, base+"/other", "DSH_TEST_PROBE=dial:"+nvim+" "+self, supervised)
			if err == nil || strings.Contains(out, "connected") {
				t.Errorf("the editor's socket: err %v, output %q", err, out)
			}
			p.Hidden = append(p.Hidden, GlobQuote(runtimeDir))
			out, err = helperRun(t, p, base+"/other", "DSH_TEST_PROBE=dial:"+filepath.Join(runtimeDir, "bus")+" "+self, supervised)
			if err == nil || strings.Contains(out, "connected") {
				t.Errorf("a socket in a hidden folder: err %v, output %q", err, out)
			}
			// The same folder holding the workspace is left alone.
			p.Write = []string{ws}
			out, err = helperRun(t, p, ws, "DSH_TEST_PROBE=dial:"+filepath.Join(runtimeDir, "bus")+" "+self, supervised)
			if err != nil || !strings.Contains(out, "connected") {
				t.Errorf("a place holding the workspace was hidden: err %v, output %q", err, out)
			}
		})
	}
}
