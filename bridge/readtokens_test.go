package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// TestBridge_ReadTokensFollowTheResult: for a client that draws cards, a
// read card completes without waiting for syntax highlighting, and the
// tokens arrive in a later update of the same call, before the turn's
// answer: Go's made by the bridge, Python's by the dsh-highlight helper,
// which the bridge finds next to itself; packed, for a client that asks
// for them so (the same spans). A client that does not draw cards is sent
// none (nor is the helper asked for them).
func TestBridge_ReadTokensFollowTheResult(t *testing.T) {
	spans := map[string]map[string]highlight.TokenLines{} // by case, by call
	for _, tc := range []struct {
		name  string
		caps  map[string]any
		texts int    // times the file's text is in the completed update
		key   string // of the tokens in _meta.dsh; "": none sent
	}{
		// The text travels once in the card's lines, the standard content
		// being a summary; never a third time as the model's text.
		{"a client that draws cards", cardCaps(), 1, "tokens"},
		{"a client that asks for packed tokens", packedCaps(), 1, "packedTokens"},
		// The content block (as ACP clients show it) and the card's lines.
		{"a plain ACP client", nil, 2, ""},
		// packedTokens means nothing without the version.
		{"a plain client asking for packed tokens", map[string]any{"_meta": map[string]any{"dsh": map[string]any{"packedTokens": true}}}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, tc.caps, fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", "main.go")}, {"p", "read", args("file_path", "tool.py")}}}, fakeTurn{text: "ok"})
			h.file("main.go", "package main\n\nfunc uniqueMarker() {}\n")
			h.file("tool.py", "def uniqueMarker():\n    return 1\n")
			h.prompt(h.session, "read")
			spans[tc.key] = map[string]highlight.TokenLines{}
			for _, call := range []string{"r", "p"} {
				spans[tc.key][call] = readTokensFollow(t, h, call, tc.texts, tc.key)
			}
		})
	}
	for _, call := range []string{"r", "p"} {
		if o, p := spans["tokens"][call], spans["packedTokens"][call]; len(o) == 0 || !reflect.DeepEqual(o, p) {
			t.Errorf("%s: tokens %v, packed %v", call, o, p)
		}
	}
}

// readTokensFollow checks one read call's updates for
// TestBridge_ReadTokensFollowTheResult, and returns the tokens sent (as
// _meta.dsh's key, or none when key is "").
func readTokensFollow(t *testing.T, h *harness, call string, texts int, key string) highlight.TokenLines {
	t.Helper()
	completed, tokens := -1, -1
	var spans highlight.TokenLines
	for i, u := range h.toolUpdates(call) {
		switch {
		case u.Status == "completed":
			completed = i
			if n := strings.Count(string(u.Raw), "uniqueMarker"); n != texts {
				t.Errorf("%s: the completed update carries the text %d times, want %d: %s", call, n, texts, u.Raw)
			}
		case strings.Contains(string(u.Raw), `okens"`):
			tokens = i
			if strings.Contains(string(u.Raw), "uniqueMarker") || strings.Contains(string(u.Raw), `"card"`) {
				t.Errorf("%s: the tokens update repeats the card: %s", call, u.Raw)
			}
			if key != "" && !strings.Contains(string(u.Raw), `"`+key+`"`) {
				t.Errorf("%s: tokens not as %q: %s", call, key, u.Raw)
			}
			spans = decodeTokens(t, u.Raw)
		}
	}
	switch {
	case completed < 0:
		t.Errorf("%s: the read never completed", call)
	case key != "" && tokens <= completed:
		t.Errorf("%s: completed at %d, tokens at %d: the tokens must follow the result", call, completed, tokens)
	case key == "" && tokens >= 0:
		t.Errorf("%s: tokens sent to a client that does not draw cards (update %d)", call, tokens)
	}
	return spans
}

// decodeTokens reads a session update's tokens as an editor does, in
// either form (docs/meta-dsh.md).
func decodeTokens(t *testing.T, raw []byte) highlight.TokenLines {
	t.Helper()
	var u struct {
		Meta struct {
			Dsh struct {
				Tokens highlight.TokenLines  `json:"tokens"`
				Packed highlight.PackedLines `json:"packedTokens"`
			} `json:"dsh"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if d := u.Meta.Dsh; d.Packed != nil {
		return highlight.TokenLines(d.Packed)
	}
	return u.Meta.Dsh.Tokens
}

// TestLiveModel_TokensBeforeCompaction: a read whose result pushes the
// session past its window (1,500 lines of Python, 60 KB, in a window of
// 18,000 tokens) compacts before the next request; the read's syntax
// tokens (the helper's chroma: some 40 ms of work, so that without the
// wait the compaction's update would come first every time) go out
// before the compaction's first update, so the updates come in the same
// order every run.
func TestLiveModel_TokensBeforeCompaction(t *testing.T) {
	w := newLiveWorld(t, `{"models":{"deepseek-v4-flash":{"contextWindow":18000}}}`,
		fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", "big.py")}}}, fakeTurn{text: "ok"})
	w.model.window = 18000
	w.model.summary = "SUMMARY"
	var src strings.Builder
	for i := range 750 {
		fmt.Fprintf(&src, "def step_%04d(value, scale=2.5):\n    return [value * scale, \"step %d\", None]  # keep going\n", i, i)
	}
	os.WriteFile(filepath.Join(w.dir, "big.py"), []byte(src.String()), 0o644)
	caps := packedCaps()
	caps["session"] = map[string]any{"compaction": map[string]any{}}
	e := w.editor(caps)
	s := e.newSession(w.dir)
	if stop := e.prompt(s, "read big.py"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	tokens, compaction := -1, -1
	for i, u := range e.decodedUpdates() {
		switch {
		case u.ToolCallID == "r" && strings.Contains(string(u.Raw), `"packedTokens"`):
			tokens = i
		case u.SessionUpdate == "compaction_update" && compaction < 0:
			compaction = i
		}
	}
	if tokens < 0 || compaction < 0 || tokens > compaction {
		t.Errorf("the read's tokens at update %d, the compaction's first at %d", tokens, compaction)
	}
}
