package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveModel_CalibrationAfterLoad: a loaded session estimates its
// requests' tokens as the live one did, from the last request's real
// prompt tokens, not the cautious 1 token per 3 bytes of a session that
// has made none. The window is set so that the next request fits under
// the compaction threshold by the calibrated estimate (the fake counts 4
// bytes to a token) and passes it by the cautious one: after the load
// nothing is compacted.
func TestLiveModel_CalibrationAfterLoad(t *testing.T) {
	caps := map[string]any{"session": map[string]any{"compaction": map[string]any{}}}
	w := newLiveWorld(t, "", fakeTurn{text: "noted"}, fakeTurn{text: "noted again"})
	w.model.summary = "SUMMARY"
	e := w.editor(caps)
	s := e.newSession(w.dir)
	e.prompt(s, strings.Repeat("Please keep this requirement in mind. ", 1000)) // ~38 KB
	e.close()
	p1 := w.model.reported()[0].prompt
	// The threshold (0.8 of the window) at 1.16 times the first request's
	// tokens: the second request is a few hundred bytes longer.
	window := p1 * 116 / 80
	settings := fmt.Sprintf(`{"models":{"deepseek-v4-flash":{"contextWindow":%d}}}`, window)
	os.MkdirAll(filepath.Join(w.cfg, "dsh-bridge"), 0o700)
	if err := os.WriteFile(filepath.Join(w.cfg, "dsh-bridge", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}

	e2 := w.editor(caps)
	w.load(e2, s)
	if stop := e2.prompt(s, "and one more thing"); stop != "end_turn" {
		t.Fatalf("got stop %q, want end_turn", stop)
	}
	if cs := compactions(e2); len(cs) != 0 {
		t.Errorf("got compaction updates %v after the load, want none (the first request was %d tokens, the window %d)", cs, p1, window)
	}
	if got := w.model.reported()[1].prompt; got*100 > window*80 {
		t.Fatalf("the second request is %d tokens, past the threshold of %d: the test's margin is wrong", got, window*80/100)
	}
}
