package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBridge_ArithmeticHidesNoCommand drives the binary over stdio: a
// command hidden in text bash evaluates as arithmetic or a subscript is
// refused with bash(rm:*) denied, in bypassPermissions, and asks under
// allow rules for the builtins it hides in.
func TestBridge_ArithmeticHidesNoCommand(t *testing.T) {
	t.Run("denied in bypassPermissions", func(t *testing.T) {
		cmds := []string{`[[ 'a[$(rm a.txt)]' -eq 0 ]]`, `printf -v 'a[$(rm a.txt)]' x`, `test -v 'a[$(rm a.txt)]'`,
			`declare -i n; n='a[$(rm a.txt)]'`, `read 'a[$(rm a.txt)]' <<< x`,
			// Issue 47: code run from values, traps, sourced input, variables
			// that run later code, wrappers' valued options, sed's e.
			`x='a[$(rm a.txt)]'; echo ${!x}`, `x='$(rm a.txt)'; echo ${x@P}`, `declare -n r; r='a[$(rm a.txt)]'; echo $r`,
			`RANDOM='a[$(rm a.txt)]'`, `trap -- 'rm a.txt' EXIT`, `compgen -C 'rm a.txt' x`, `source /dev/stdin <<< 'rm a.txt'`,
			`PS4='$(rm a.txt)'; set -x; :`, `stdbuf --output L rm a.txt`, `sed -n 'e rm a.txt' a.txt`}
		var turns []fakeTurn
		for i, c := range cmds {
			turns = append(turns, bashTurn(fmt.Sprint("c", i), c))
		}
		h := setupWorkspace(t, "", `{"permissions":{"deny":["bash(rm:*)"]}}`, nil, append(turns, fakeTurn{text: "ok"})...)
		h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
		h.prompt(h.session, "x")
		for i, c := range cmds {
			if got := h.toolMessages(i + 1)[fmt.Sprint("c", i)]; !strings.HasPrefix(got, "Error: denied by the permission rule bash(rm:*)") {
				t.Errorf("%q: the model got %q", c, got)
			}
		}
		if h.content("a.txt") != "keep\n" || h.permissionCount() != 0 {
			t.Errorf("a.txt %q, asked %d times", h.content("a.txt"), h.permissionCount())
		}
	})
	t.Run("asked under read-only allow rules", func(t *testing.T) {
		cmds := []string{`test -v 'a[$(touch p)]'`, `printf -v 'a[$(touch p)]' x`, `read 'a[$(touch p)]' <<< x`}
		var turns []fakeTurn
		for i, c := range cmds {
			turns = append(turns, bashTurn(fmt.Sprint("c", i), c))
		}
		h := setupWorkspace(t, "", `{"permissions":{"allow":["bash(test:*)","bash(printf:*)","bash(read:*)"]}}`, nil, append(turns, fakeTurn{text: "ok"})...)
		h.onPermission = selectOption("reject_once")
		h.prompt(h.session, "x")
		if h.permissionCount() != len(cmds) {
			t.Errorf("asked %d times, want %d", h.permissionCount(), len(cmds))
		}
		if _, err := os.Stat(filepath.Join(h.dir, "p")); err == nil {
			t.Errorf("touch p ran")
		}
	})
}
