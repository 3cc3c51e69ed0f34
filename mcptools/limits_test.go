package mcptools

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestNamer_Length: a readable name of exactly 64 characters is kept; one
// past is shortened, with a hash, to at most 64 valid characters that
// stay the same across restarts.
func TestNamer_Length(t *testing.T) {
	at := strings.Repeat("x", maxName-len("mcp__s__"))
	for _, tc := range []struct {
		name, tool string
		readable   bool
	}{
		{"exactly at the limit", at, true},
		{"one past the limit", at + "y", false},
		{"one below the limit", at[1:], true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n namer
			got := n.name("s", tc.tool)
			if want := "mcp__s__" + tc.tool; (got == want) != tc.readable {
				t.Errorf("got %q (%d characters), want it readable: %v", got, len(got), tc.readable)
			}
			if !validName.MatchString(got) {
				t.Errorf("got %q (%d characters), want a valid tool name", got, len(got))
			}
			var again namer
			if other := again.name("s", tc.tool); other != got {
				t.Errorf("got %q after a restart, want %q", other, got)
			}
		})
	}
}

// TestNamer_KeepsDash: '-' is valid in a tool name, so a tool or server
// whose name holds one keeps its readable name, the one users write
// permission rules for (mcp__srv__get-issue, mcp__my-srv).
func TestNamer_KeepsDash(t *testing.T) {
	for _, tc := range []struct{ server, tool, want, prefix string }{
		{"srv", "get-issue", "mcp__srv__get-issue", "mcp__srv"},
		{"my-srv", "list", "mcp__my-srv__list", "mcp__my-srv"},
		{"my-srv", "-x-", "mcp__my-srv__-x-", "mcp__my-srv"},
	} {
		t.Run(tc.server+"/"+tc.tool, func(t *testing.T) {
			var n namer
			if got := n.name(tc.server, tc.tool); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if got := ServerPrefix(tc.server); got != tc.prefix {
				t.Errorf("got the prefix %q, want %q", got, tc.prefix)
			}
		})
	}
}

// TestNamer_Distinct: tools whose names sanitize alike get distinct names
// in any order, and the one already valid keeps its readable name.
func TestNamer_Distinct(t *testing.T) {
	tools := []string{"a.b", "a b", "a_b", "a/b"}
	for _, first := range tools {
		t.Run(first+" first", func(t *testing.T) {
			var n namer
			order := append([]string{first}, tools...)
			seen := map[string]string{}
			for _, tool := range order {
				got := n.name("s", tool)
				if prev, dup := seen[got]; dup && prev != tool {
					t.Errorf("got %q for both %q and %q", got, prev, tool)
				}
				seen[got] = tool
				if tool == "a_b" && got != "mcp__s__a_b" {
					t.Errorf("got %q for a_b, want mcp__s__a_b", got)
				}
			}
		})
	}
}

// TestArgsSchema_KeywordNamedProperties: properties literally named as
// schema keywords (properties, required, items) are property names, and
// the narrowing keywords inside their schemas are dropped like any other.
func TestArgsSchema_KeywordNamedProperties(t *testing.T) {
	s := argsSchema(jsonv.MustParse(`{"type":"object","properties":{` +
		`"properties":{"type":"string","maxLength":3},` +
		`"required":{"type":"array","items":{"type":"string","minLength":5}},` +
		`"items":{"type":"integer","minimum":10},` +
		`"type":{"type":"object","properties":{"properties":{"type":"boolean","deprecated":true}},"additionalProperties":false}},` +
		`"required":["properties","required","items"]}`))
	if s == nil {
		t.Fatal("got no compiled schema, want one")
	}
	for _, tc := range []struct {
		args  string
		valid bool
	}{
		{`{"properties":"longer than three","required":["a"],"items":1}`, true},
		{`{"properties":"x","required":[],"items":1,"type":{"properties":true}}`, true},
		{`{"required":["a"],"items":1}`, false},
		{`{"properties":"x","items":1}`, false},
		{`{"properties":"x","required":["a"]}`, false},
		{`{"properties":1,"required":["a"],"items":1}`, false},
		{`{"properties":"x","required":[1],"items":1}`, false},
		{`{"properties":"x","required":["a"],"items":"1"}`, false},
		{`{"properties":"x","required":["a"],"items":1,"type":{"properties":"no"}}`, false},
		{`{"properties":"x","required":["a"],"items":1,"type":{"other":1}}`, false},
	} {
		if got := s.ValidArgs(jsonv.MustParse(tc.args)); got != tc.valid {
			t.Errorf("%s: got valid %v, want %v", tc.args, got, tc.valid)
		}
	}
}

// TestTool_EffectBothHints: a trusted read-only tool is a read whatever
// its destructive hint says (readOnlyHint implies it changes nothing).
func TestTool_EffectBothHints(t *testing.T) {
	no, yes := false, true
	for _, tc := range []struct {
		name string
		a    *mcp.ToolAnnotations
		want registry.Effect
		kind card.Kind
	}{
		{"read-only, not destructive", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no}, registry.EffectRead, card.KindRead},
		{"read-only, destructive", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, registry.EffectRead, card.KindRead},
		{"not read-only, not destructive, idempotent", &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true}, registry.EffectEdit, card.KindOther},
		{"only idempotent and closed-world", &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: &no}, registry.EffectUnknown, card.KindOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := effectOf(tc.a, true); got != tc.want {
				t.Errorf("effect: got %v, want %v", got, tc.want)
			}
			if got := kindOf(tc.a, true); got != tc.kind {
				t.Errorf("kind: got %v, want %v", got, tc.kind)
			}
		})
	}
}
