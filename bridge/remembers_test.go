package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBridge_AlwaysSaysWhatItRemembers: a permission request's "always"
// options say what they would remember, in _meta.dsh.remembers and in the
// request's text; a call that "always" cannot cover says nothing is.
func TestBridge_AlwaysSaysWhatItRemembers(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		want          []string
	}{
		{"two programs", "touch x && go test ./...", []string{"touch, with any arguments", "go test, with any arguments"}},
		{"a write outside the workspace", "cp a.txt /etc/dsh-nowhere", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, nil, fakeTurn{calls: []fakeCall{{"b", "bash", args("command", tc.command, "description", "d")}}}, fakeTurn{text: "ok"})
			h.file("a.txt", "x\n")
			var req struct {
				ToolCall struct {
					Content []struct {
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"content"`
				} `json:"toolCall"`
				Options []struct {
					Kind string `json:"kind"`
					Meta *struct {
						Dsh struct {
							Remembers []string `json:"remembers"`
						} `json:"dsh"`
					} `json:"_meta"`
				} `json:"options"`
			}
			h.onPermission = func(p json.RawMessage) any {
				json.Unmarshal(p, &req)
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "reject_once"}}
			}
			h.prompt(h.session, "x")
			if len(req.Options) != 4 {
				t.Fatalf("options %+v", req.Options)
			}
			for _, o := range req.Options {
				always := strings.HasSuffix(o.Kind, "_always")
				if always != (o.Meta != nil) {
					t.Errorf("%s: _meta %+v", o.Kind, o.Meta)
					continue
				}
				if always && strings.Join(o.Meta.Dsh.Remembers, "|") != strings.Join(tc.want, "|") {
					t.Errorf("%s remembers %q, want %q", o.Kind, o.Meta.Dsh.Remembers, tc.want)
				}
			}
			var text string
			for _, c := range req.ToolCall.Content {
				text += c.Content.Text
			}
			said := strings.Contains(text, `"Always" remembers, for this session: `+strings.Join(tc.want, "; ")+".")
			if said != (len(tc.want) > 0) {
				t.Errorf("the request's text: %q", text)
			}
		})
	}
}
