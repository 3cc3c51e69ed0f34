package bridge_test

import (
	"strings"
	"testing"
)

// DSH_STREAM_IDLE is read by cmd/dsh-bridge, not by the bridge package:
// through the binary, a model's answer that goes quiet for it is cut, with
// what arrived kept (the in-process tests set the same limit on Config).
func TestBinary_StreamIdle(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{text: "partial answ", hang: true})
	e := startBinary(t, "DSH_BASE_URL="+w.model.srv.URL, "DSH_STATE_DIR="+w.state, "XDG_CONFIG_HOME="+w.cfg, "DSH_STREAM_IDLE=300ms")
	e.initialize(nil)
	s := e.newSession(w.dir)
	if stop := e.prompt(s, "go"); stop != "end_turn" {
		t.Errorf("stop %q, want end_turn", stop)
	}
	txt := e.agentText()
	for _, want := range []string{"partial answ", "no data from the model for 300ms"} {
		if !strings.Contains(txt, want) {
			t.Errorf("%q lacks %q", txt, want)
		}
	}
	e.close()
}
