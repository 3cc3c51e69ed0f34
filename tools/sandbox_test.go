//go:build linux

// Tests of the Linux sandbox (Landlock and namespaces).

package tools

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// sandboxedEnv is a workspace whose commands run under the sandbox helper
// (this test binary), writable in the workspace and the temp folder, with
// secrets/ denied to reading, and the workspace's paths kept (globs,
// relative to it) read-only.
func sandboxedEnv(t *testing.T, network bool, kept ...string) *env {
	t.Helper()
	if sandbox.ABI() == 0 {
		t.Fatalf("this machine's kernel has no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A temp folder of its own, so that the workspace's parent (in the
	// system temp folder) is outside everything writable.
	scratch, _ := filepath.EvalSymlinks(t.TempDir())
	t.Setenv("TMPDIR", scratch)
	var e *env
	h := LocalHost{Sandbox: &Sandbox{Helper: self}}
	e = newEnv(t, h, func(o *Options) {
		h.Sandbox.Profile = sandbox.Profile{
			Write:   []string{o.Workspace.Roots()[0], scratch},
			Deny:    []string{filepath.Join(o.Workspace.Roots()[0], "secrets")},
			Network: network,
		}
		for _, k := range kept {
			h.Sandbox.Profile.Kept = append(h.Sandbox.Profile.Kept, filepath.Join(o.Workspace.Roots()[0], k))
		}
		o.Host = h
	})
	e.write("secrets/key", "hunter2\n")
	os.Symlink(filepath.Join(e.dir, "secrets"), filepath.Join(e.dir, "alias"))
	return e
}

func bashCall(cmd string, extra ...string) string {
	m := map[string]any{"command": cmd, "description": "d"}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1] == "true"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestSandbox_Bash(t *testing.T) {
	e := sandboxedEnv(t, false)
	outside := os.Getenv("TMPDIR") // the temp folder stays writable
	home, _ := os.UserHomeDir()
	homeFile := filepath.Join(home, ".dsh-sandbox-probe")
	t.Cleanup(func() { os.Remove(homeFile) })
	os.Symlink("/etc", filepath.Join(e.dir, "etc-link"))
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	for _, tc := range []struct {
		name, cmd string
		ok        bool
		want      string
	}{
		{"write in the workspace", "echo hi > a.txt && cat a.txt", true, "hi"},
		{"write in the temp folder", "echo hi > " + filepath.Join(outside, "t") + " && cat " + filepath.Join(outside, "t"), true, "hi"},
		{"build and test in the workspace", "printf 'int main(){return 0;}' > m.c && cc -o m m.c && ./m && printf 'test:\\n\\t./m\\n' > Makefile && make -s test && echo built", true, "built"},
		{"touch ../outside", "touch ../outside-" + filepath.Base(e.dir), false, "Permission denied"},
		{"write through a symlink out", "echo x > etc-link/dsh-probe", false, "Permission denied"},
		{"write in the home folder", "echo x > " + homeFile, false, "Permission denied"},
		{"read a denied tree", "cat secrets/key || ls -A secrets; cat alias/key; false", false, "No such file"},
		{"TCP to loopback", fmt.Sprintf("echo > /dev/tcp/127.0.0.1/%d", port), false, "Operation not permitted"},
		{"UDP to loopback (a DNS query carries data out)", fmt.Sprintf("echo secret > /dev/udp/127.0.0.1/%d", udpPort), false, "Operation not permitted"},
		{"reading elsewhere works", "head -c 4 /etc/hostname >/dev/null && echo read", true, "read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := text(e.call("bash", bashCall(tc.cmd)))
			if !strings.Contains(out, tc.want) {
				t.Errorf("output %q, want %q", out, tc.want)
			}
			if failed := strings.Contains(out, "[exit code:"); failed == tc.ok {
				t.Errorf("ok=%v, output %q", !failed, out)
			}
			if strings.Contains(out, "hunter2") {
				t.Errorf("the denied tree was read: %q", out)
			}
			if !tc.ok && tc.want != "No such file" && !strings.Contains(out, "unsandboxed: true") {
				t.Errorf("a refused command must say how to ask for more: %q", out)
			}
		})
	}
	if _, err := os.Stat(homeFile); err == nil {
		t.Errorf("the sandbox let a command write %s", homeFile)
	}
	udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("a datagram of %d bytes got out", n)
	}
	t.Run("unsandboxed runs outside", func(t *testing.T) {
		out := text(e.call("bash", bashCall("cat secrets/key", "unsandboxed", "true")))
		if !strings.Contains(out, "hunter2") {
			t.Errorf("unsandboxed: %q", out)
		}
	})
	t.Run("go's build cache moves to the temp folder", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("no go on PATH")
		}
		out := text(e.call("bash", bashCall("go env GOCACHE")))
		if !strings.Contains(out, filepath.Join(os.Getenv("TMPDIR"), fmt.Sprintf("dsh-bridge-sandbox-%d", os.Getuid()), "go-build")) {
			t.Errorf("GOCACHE %q", out)
		}
	})
}

func TestSandbox_NetworkAllowed(t *testing.T) {
	e := sandboxedEnv(t, true)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	out := text(e.call("bash", bashCall(fmt.Sprintf("echo > /dev/tcp/127.0.0.1/%d && echo connected", ln.Addr().(*net.TCPAddr).Port))))
	if !strings.Contains(out, "connected") {
		t.Errorf("network: true must allow TCP: %q", out)
	}
}

func TestLocalHost_ScrubsSecrets(t *testing.T) {
	t.Setenv("DSH_API_KEY", "sk-secret-1")
	t.Setenv("DEEPSEEK_API_KEY", "sk-secret-2")
	t.Setenv("OPENAI_API_KEY", "sk-secret-3")
	t.Setenv("MY_TOKEN", "sk-secret-4")
	t.Setenv("HARMLESS", "visible")
	e := newEnv(t, LocalHost{Scrub: []string{"MY_TOKEN"}})
	out := text(e.call("bash", bashCall("env")))
	if strings.Contains(out, "sk-secret") || !strings.Contains(out, "HARMLESS=visible") {
		t.Errorf("env output %q", out)
	}
}
