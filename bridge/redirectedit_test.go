package bridge_test

import (
	"strings"
	"testing"
)

// TestBridge_RedirectIsAnEdit drives the binary over stdio: with
// bash(git status:*) allowed, git status > src.txt overwrites a workspace
// file, which is an edit: default mode asks (and a rejection keeps the
// file), plan mode refuses without asking, acceptEdits runs it.
func TestBridge_RedirectIsAnEdit(t *testing.T) {
	user := `{"permissions":{"allow":["bash(git status:*)"]}}`
	for _, tc := range []struct {
		mode   string
		asked  int
		file   string // src.txt afterwards; "" for overwritten
		result string // in the model's tool result
	}{
		{"default", 1, "keep\n", `Error: the user rejected tool "bash"`},
		{"plan", 0, "keep\n", "Error: plan mode is read-only"},
		{"acceptEdits", 0, "", ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			h := setupWorkspace(t, "", user, nil, bashTurn("w", "git status > src.txt"), fakeTurn{text: "ok"})
			h.file("src.txt", "keep\n")
			h.onPermission = selectOption("reject_once")
			h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": tc.mode})
			h.prompt(h.session, "x")
			if h.permissionCount() != tc.asked {
				t.Errorf("asked %d times, want %d: %s", h.permissionCount(), tc.asked, h.asked)
			}
			if tc.asked > 0 && len(h.asked) > 0 && !strings.Contains(string(h.asked[0]), "src.txt") {
				t.Errorf("the prompt does not name the file written: %s", h.asked[0])
			}
			if got := h.content("src.txt"); (tc.file != "" && got != tc.file) || (tc.file == "" && got == "keep\n") {
				t.Errorf("src.txt = %q, want %q (\"\": overwritten)", got, tc.file)
			}
			if got := h.toolMessages(1)["w"]; !strings.Contains(got, tc.result) {
				t.Errorf("the model got %q, want %q", got, tc.result)
			}
		})
	}
}

// TestBridge_ShellDescriptorIsAnEdit drives the binary over stdio: a
// write through /dev/fd/3, which the command opened on src.txt, or
// through /proc/self/cwd, is an edit of src.txt (issue 47 F9, F10):
// default mode asks, and a rejection keeps the file.
func TestBridge_ShellDescriptorIsAnEdit(t *testing.T) {
	user := `{"permissions":{"allow":["bash(git status:*)","bash(echo:*)"]}}`
	cmds := []string{"echo hacked 3<src.txt >/dev/fd/3", "git status > /proc/self/cwd/src.txt"}
	turns := []fakeTurn{bashTurn("c0", cmds[0]), bashTurn("c1", cmds[1]), {text: "ok"}}
	h := setupWorkspace(t, "", user, nil, turns...)
	h.file("src.txt", "keep\n")
	h.onPermission = selectOption("reject_once")
	h.prompt(h.session, "x")
	if h.permissionCount() != len(cmds) {
		t.Errorf("asked %d times, want %d", h.permissionCount(), len(cmds))
	}
	if got := h.content("src.txt"); got != "keep\n" {
		t.Errorf("src.txt = %q, want %q", got, "keep\n")
	}
}
