package bridge_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// recordingTB is a testing.TB whose Errorf and Fatalf are recorded
// instead of failing the test, so that a test can check what the fake
// editor reports.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *recordingTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0 || r.TB.Failed()
}

func (r *recordingTB) errors() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// TestEditor_WriteAfterClose: once the fake editor has closed its end of
// the bridge's stdin, whatever it would still send (a reply its reader or
// a terminal goroutine finishes late, a notification) is dropped, as a
// closed editor sends nothing; a write that fails while the editor is
// still open (the bridge has died) is still reported.
func TestEditor_WriteAfterClose(t *testing.T) {
	for _, tc := range []struct {
		name    string
		end     func(e *editor)
		wantErr string
	}{
		{"after close: dropped", func(e *editor) { e.close() }, ""},
		{"after closeInput: dropped", func(e *editor) { e.closeInput(); <-e.exited }, ""},
		{"the bridge died, the editor is open: reported", func(e *editor) { e.cmd.Process.Kill(); <-e.exited }, "write to the bridge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			e := startBinary(rec)
			e.initialize(nil)
			tc.end(e)
			e.notify("session/cancel", map[string]any{"sessionId": "sess_gone"})
			e.reply(message{ID: rawID(7)}, map[string]any{})
			got := rec.errors()
			switch {
			case tc.wantErr == "" && got != "":
				t.Errorf("got %q, want no error", got)
			case tc.wantErr != "" && !strings.Contains(got, tc.wantErr):
				t.Errorf("got %q, want an error containing %q", got, tc.wantErr)
			}
		})
	}
}

// rawID is a JSON-RPC id.
func rawID(n int) *json.RawMessage {
	id := json.RawMessage(fmt.Sprint(n))
	return &id
}
