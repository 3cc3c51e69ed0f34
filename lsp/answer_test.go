package lsp

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// TestQuery_AnswerTexts: what a server answers reaches the model on
// lines of its own, cleaned and capped: a path's bidi characters out, a
// location that names no local file left out and counted, the whole
// answer cut in bytes with how many more said.
func TestQuery_AnswerTexts(t *testing.T) {
	base := "file:///tmp/"
	if runtime.GOOS == "windows" {
		base = "file:///C:/tmp/"
	}
	pos := map[string]any{"line": 0, "character": 0}
	rng := map[string]any{"start": pos, "end": pos}
	name := strings.Repeat("n", maxNameBytes-1)
	var many []any
	for i := 0; i < maxAnswer-1; i++ {
		many = append(many, map[string]any{"name": name, "kind": 12, "location": map[string]any{"uri": base + "a.red", "range": rng}})
	}
	tests := []struct {
		name     string
		symbols  bool
		raw      any
		check    func(t *testing.T, out string)
		wantLast string
	}{
		{"a path's bidi characters", false, []any{map[string]any{"uri": base + "a%E2%80%AEder.red", "range": rng}}, func(t *testing.T, out string) {
			if strings.ContainsFunc(out, func(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }) {
				t.Errorf("the answer keeps a bidi character: %q", out)
			}
		}, "ader.red:1:1"},
		{"a location that names no local file", false, []any{
			map[string]any{"uri": "https://evil.example/x", "range": rng}, map[string]any{"uri": base + "a.red", "range": rng}}, func(t *testing.T, out string) {
			if n := strings.Count(out, "\n") + 1; n != 2 || strings.Contains(out, "evil") {
				t.Errorf("want the file's location and the count of the one left out, got:\n%s", out)
			}
		}, "(1 not in a local file, left out)"},
		{"the answer's bytes", true, many, func(t *testing.T, out string) {
			if len(out) > maxAnswerBytes {
				t.Errorf("the answer is %d bytes (at most %d)", len(out), maxAnswerBytes)
			}
		}, " more"},
	}
	pl := placer{path: "/ws/asked.red", text: "x\n", form: workspace.FormOf(runtime.GOOS)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			var out string
			if tt.symbols {
				out = answer(pl.symbols(raw), "none")
			} else {
				out = answer(pl.locations(raw), "none")
			}
			tt.check(t, out)
			if !strings.HasSuffix(out, tt.wantLast) {
				t.Errorf("the answer ends %q, want %q:\n%.300s", out[max(len(out)-60, 0):], tt.wantLast, out)
			}
		})
	}
}
