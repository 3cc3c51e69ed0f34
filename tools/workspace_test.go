package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/pipeline"
)

func TestWorkspace_Contains(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(root, "ws")
	extra := filepath.Join(root, "extra")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws, extra, outside, filepath.Join(ws, "sub")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(ws, "escape"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "secret-link"))
	os.Symlink(filepath.Join(ws, "sub"), filepath.Join(outside, "into-ws"))
	w, err := NewWorkspace(ws, extra)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       bool
	}{
		{"relative file", "a.txt", true},
		{"nested new file", "sub/new/deep.txt", true},
		{"the workspace itself", ".", true},
		{"absolute inside", filepath.Join(ws, "x"), true},
		{"additional directory", filepath.Join(extra, "y"), true},
		{"dot-dot out", "../outside/secret", false},
		{"dot-dot back in", "sub/../a.txt", true},
		{"absolute outside", "/etc/passwd", false},
		{"prefix sibling is not inside", filepath.Join(root, "ws-other/x"), false},
		{"symlinked directory pointing out", "escape/secret", false},
		{"symlinked file pointing out", "secret-link", false},
		{"new file under a symlink pointing out", "escape/new.txt", false},
		{"outside symlink pointing in", filepath.Join(outside, "into-ws", "f"), true},
		{"case trick", strings.ToUpper(ws) + "/a.txt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := w.Contains(tc.path); got != tc.want {
				t.Errorf("Contains(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	if _, err := NewWorkspace("relative"); err == nil {
		t.Errorf("relative workspace accepted")
	}
}

// rejecting is an approver that records requests and rejects them.
type rejecting struct{ asked []string }

func (r *rejecting) RequestApproval(_ context.Context, req pipeline.ApprovalRequest) pipeline.ApprovalOutcome {
	r.asked = append(r.asked, req.Reason)
	return pipeline.Rejected
}

func TestConfinementPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		deny             bool
		wantAsk          bool
		wantMsg          string
	}{
		{"inside runs without asking", "read", `{"file_path":"a.txt"}`, false, false, ""},
		{"outside read asks", "read", `{"file_path":"/etc/hostname"}`, false, true, "the user rejected tool \"read\""},
		{"outside write asks and creates nothing", "write", `{"file_path":"../escape/dir/f.txt","content":"x"}`, false, true, "the user rejected tool \"write\""},
		{"read-only mode denies outside", "read", `{"file_path":"/etc/hostname"}`, true, false, "read wants to read /etc/hostname, outside the workspace"},
		{"outside workdir asks", "bash", `{"command":"ls","description":"d","workdir":"/"}`, false, true, "the user rejected tool \"bash\""},
		{"outside grep path asks", "grep", `{"pattern":"x","path":"/etc"}`, false, true, "the user rejected tool \"grep\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &rejecting{}
			e := newEnv(t, LocalHost{})
			e.setPipeline(pipeline.WithApprover(a))
			e.p.OnPreExecute(nil, ConfinementPolicy(e.reg, e.ws, tc.deny))
			e.write("a.txt", "inside\n")
			r := e.call(tc.tool, tc.args)
			if tc.wantMsg == "" {
				wantOK(t, r)
			} else if !r.IsError || r.Error.Message != tc.wantMsg {
				t.Errorf("got %+v, want %q", r.Error, tc.wantMsg)
			}
			if (len(a.asked) > 0) != tc.wantAsk {
				t.Errorf("asked %v, want ask=%v", a.asked, tc.wantAsk)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(e.dir), "escape")); err == nil {
				t.Errorf("a directory was created before approval")
			}
		})
	}
}
