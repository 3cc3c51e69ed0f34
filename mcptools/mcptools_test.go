package mcptools

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestNames(t *testing.T) {
	var n namer
	long := strings.Repeat("x", 80)
	cases := []struct{ server, tool, want string }{
		{"github", "search", "mcp__github__search"},
		{"github", "a.b", ""}, // sanitized: hashed
		{"github", "a_b", "mcp__github__a_b"},
		{"my server", "t", ""}, // a space in the server
		{"s", long, ""},
		// A server whose name holds __ or ends with _ must not read as
		// another server's (a rule mcp__ev covers mcp__ev__*).
		{"ev__x", "sneaky", ""},
		{"ev_", "x", ""},
	}
	seen := map[string]string{}
	for _, c := range cases {
		got := n.name(c.server, c.tool)
		if !validName.MatchString(got) {
			t.Errorf("%s/%s: %q is not a valid tool name", c.server, c.tool, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("%s/%s: %q, want %q", c.server, c.tool, got, c.want)
		}
		if server := sanitize(c.server); (strings.Contains(server, "__") || strings.HasSuffix(server, "_")) && strings.HasPrefix(got, "mcp__ev__") {
			t.Errorf("%s/%s: %q reads as a tool of server ev", c.server, c.tool, got)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%q names both %s and %s/%s", got, prev, c.server, c.tool)
		}
		seen[got] = c.server + "/" + c.tool
		var again namer // a restart maps the same pair to the same name
		again.name("github", "a_b")
		if c.tool != "a_b" && again.name(c.server, c.tool) != got {
			t.Errorf("%s/%s: the name is not stable", c.server, c.tool)
		}
	}
}

func TestArgsSchema(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		compiled     bool
		valid        []string
		invalid      []string
	}{
		{"plain object", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, true, []string{`{"a":1}`}, []string{`{}`, `{"a":"x"}`}},
		{"narrowing keywords are dropped, never wrongly refusing", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer","minimum":10},"s":{"type":"string","format":"uri","maxLength":3}}}`, true,
			[]string{`{"n":1}`, `{"s":"longer than three"}`}, []string{`{"n":"x"}`}},
		{"a property called minimum is kept", `{"type":"object","properties":{"minimum":{"type":"string"}},"required":["minimum"]}`, true, []string{`{"minimum":"x"}`}, []string{`{}`}},
		{"$ref is left to the server", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, false, nil, nil},
		{"anyOf is left to the server", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := argsSchema(jsonv.MustParse(tc.schema))
			if (s != nil) != tc.compiled {
				t.Fatalf("compiled %v, want %v", s != nil, tc.compiled)
			}
			for _, v := range tc.valid {
				if !s.ValidArgs(jsonv.MustParse(v)) {
					t.Errorf("%s refused", v)
				}
			}
			for _, v := range tc.invalid {
				if s.ValidArgs(jsonv.MustParse(v)) {
					t.Errorf("%s accepted", v)
				}
			}
		})
	}
}

func TestFromACP(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	got, err := FromACP([]json.RawMessage{
		raw(`{"name":"a","command":"/bin/srv","args":["-x"],"env":[{"name":"K","value":"V"}]}`),
		raw(`{"type":"http","name":"b","url":"http://h/mcp","headers":[{"name":"Authorization","value":"Bearer t"}]}`),
	})
	if err != nil || len(got) != 2 || got[0].Type != "stdio" || got[0].Env["K"] != "V" || got[1].Headers["Authorization"] != "Bearer t" {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []string{`{"command":"/x"}`, `{"name":"a"}`, `{"type":"http","name":"a"}`, `{"type":"ws","name":"a","url":"x"}`, `[1]`} {
		if _, err := FromACP([]json.RawMessage{raw(bad)}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	merged := Merge([]Server{{Name: "a", Command: "settings"}, {Name: "c", Command: "c"}}, []Server{{Name: "a", Command: "editor"}})
	if len(merged) != 2 || merged[0].Command != "editor" {
		t.Errorf("merge %+v", merged)
	}
}
