package bridge_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// escapee is a script's start: a sleep of length that leaves the
// command's process group and session, and a wait until it runs.
func escapee(length string) string {
	return "(setsid sleep " + length + " </dev/null >/dev/null 2>&1 &); " +
		"until pgrep -f '^sleep " + length + "$' >/dev/null; do sleep 0.05; done; "
}

// wantGone fails t while a process matching sleep length runs, polling
// with proctest.Gone's bound.
func wantGone(t *testing.T, length, when string) {
	t.Helper()
	if !proctest.Gone("sleep\x00" + length) {
		out, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,stat,args").Output()
		t.Errorf("sleep %s is still running %s:\n%s", length, when, out)
	}
}

// TestBridge_SandboxedCommandCannotEndItsSupervisor is issue 47's repro:
// a sandboxed command (bypassPermissions, so nothing asks) starts a
// process outside its group, then SIGKILLs its supervisor. The kill is
// refused (the command is in a Landlock domain the supervisor is outside
// of), and nothing the command started outlives it or the bridge: run
// locally, and in the editor's terminal under dsh-bridge's launcher.
func TestBridge_SandboxedCommandCannotEndItsSupervisor(t *testing.T) {
	for _, tc := range []struct {
		name, length string
		caps         map[string]any
	}{
		{"local", "7821", nil},
		{"editor terminal", "7822", map[string]any{"terminal": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proctest.Sweep(t, "sleep\x00"+tc.length)
			script := escapee(tc.length) + "echo super=$PPID; kill -9 $PPID; echo after-kill"
			h := setupWith(t, startBinary, tc.caps, fakeTurn{calls: []fakeCall{{"k", "bash", args("command", script, "description", "d")}}}, fakeTurn{text: "ok"})
			h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
			h.prompt(h.session, "x")
			got := h.toolMessages(1)["k"]
			if !strings.Contains(got, "after-kill") || strings.Contains(got, "killed by signal") {
				t.Errorf("the command killed its supervisor: the model got %q", got)
			}
			h.close()
			wantGone(t, tc.length, "after the bridge exited")
		})
	}
}

// TestBridge_CancelEndsCommandsThatLeftTheGroup: a cancelled command's
// child that left its process group (setsid) ends with it, locally and in
// the editor's terminal, while the bridge runs on.
func TestBridge_CancelEndsCommandsThatLeftTheGroup(t *testing.T) {
	for _, tc := range []struct {
		name, length, fg string
		caps             map[string]any
	}{
		{"local", "7823", "7824", nil},
		{"editor terminal", "7825", "7826", map[string]any{"terminal": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proctest.Sweep(t, "sleep\x00"+tc.length, "sleep\x00"+tc.fg)
			script := escapee(tc.length) + "sleep " + tc.fg
			h := setupWith(t, startBinary, tc.caps, fakeTurn{calls: []fakeCall{{"long", "bash", args("command", script, "description", "d")}}})
			h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
			ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
			h.waitFor(func() bool { return running("sleep\x00"+tc.length) && running("sleep\x00"+tc.fg) })
			h.notify("session/cancel", map[string]any{"sessionId": h.session})
			if m := within(t, ch); !strings.Contains(string(m.Result), "cancelled") {
				t.Errorf("prompt answered %s %+v", m.Result, m.Error)
			}
			wantGone(t, tc.fg, "after the cancel")
			wantGone(t, tc.length, "after the cancel")
		})
	}
}
