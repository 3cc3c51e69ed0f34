package codemode

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// codeOnly is the tools:code-only section: in the code presentation the
// model calls run_code and nothing else.
const codeOnly = `## Tools: run_code only
run_code is the only tool you can call directly. Every other tool is a function of the ` + "`tools`" + ` object inside a run_code program (declared below); calling one of them directly fails.`

// sdkIntro opens the tools:sdk section.
const sdkIntro = `## The tools SDK (for run_code)
Inside a run_code program, call a tool as ` + "`await tools.<name>(args)`" + `: it returns the tool's value, typed below, or throws a ToolCallError whose toolName names the tool and whose message says what went wrong. Calls started together (Promise.all) run in parallel when the tools allow it. Nothing but ` + "`tools`" + ` and ` + "`console`" + ` is available: no require, no file system, no network. Print what you need with console.log and return a value to finish; only that comes back to you, so keep it to what you need.`

// PromptSections returns the system prompt text a presentation adds:
// nothing for native; for code, the code-only section and the SDK; for
// both, the SDK. tools are the scope's visible tools (run_code among
// them is skipped); they are declared sorted by name.
func PromptSections(mode registry.Presentation, tools []*registry.Tool) string {
	if mode != registry.Code && mode != registry.Both {
		return ""
	}
	var b strings.Builder
	if mode == registry.Code {
		b.WriteString(codeOnly + "\n\n")
	}
	b.WriteString(sdkIntro + "\n\n```ts\n" + Declarations(tools) + "```")
	return b.String()
}

// Declarations is the TypeScript SDK of tools: ToolArgsMap and
// ToolOutputMap from each tool's parameter and output schemas, the
// ToolCallError class, and `declare const tools`.
func Declarations(tools []*registry.Tool) string {
	sorted := slices.Clone(tools)
	sorted = slices.DeleteFunc(sorted, func(t *registry.Tool) bool { return t.Name == registry.RunCodeName })
	slices.SortFunc(sorted, func(a, b *registry.Tool) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString("type ToolArgsMap = {\n")
	for _, t := range sorted {
		if t.Description != "" {
			b.WriteString("  /** " + comment(t.Description) + " */\n")
		}
		b.WriteString("  " + key(t.Name) + ": " + tsType(t.Parameters, 1) + ";\n")
	}
	b.WriteString("};\n\ntype ToolOutputMap = {\n")
	for _, t := range sorted {
		b.WriteString("  " + key(t.Name) + ": " + tsType(t.Output.Schema, 1) + ";\n")
	}
	b.WriteString("};\n\ndeclare class ToolCallError extends Error {\n  readonly name: \"ToolCallError\";\n  readonly toolName: string;\n}\n\n")
	b.WriteString("declare const tools: {\n  readonly [K in keyof ToolArgsMap]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;\n};\n")
	return b.String()
}

var identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// key is a property name, quoted unless it is an identifier.
func key(name string) string {
	if identifier().MatchString(name) {
		return name
	}
	return string(jsonv.AppendString(nil, name))
}

// comment keeps a description on one line and out of the comment's end.
func comment(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "*/", "*\\/")
}

// maxNesting bounds how deep a schema is rendered; deeper is unknown.
const maxNesting = 64

// tsType renders a schema of the enforced subset as a TypeScript type;
// depth is the indentation level.
func tsType(s jsonv.Value, depth int) string { return tsTypeAt(s, depth, 0) }

// union joins alternatives, each once, in order.
func union(alts []string) string {
	var seen []string
	for _, a := range alts {
		for _, part := range splitTop(a) {
			if part == "unknown" {
				return "unknown" // absorbs every other alternative
			}
			if !slices.Contains(seen, part) {
				seen = append(seen, part)
			}
		}
	}
	return strings.Join(seen, " | ")
}

// splitTop splits a type at its top-level " | " (not inside braces,
// brackets, angle brackets, parentheses or string literals).
func splitTop(t string) []string {
	var parts []string
	depth, start, inString := 0, 0, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == '(' || c == '<':
			depth++
		case c == '}' || c == ']' || c == ')' || c == '>':
			depth--
		case depth == 0 && strings.HasPrefix(t[i:], " | "):
			parts = append(parts, t[start:i])
			i += 2
			start = i + 1
		}
	}
	return append(parts, t[start:])
}

func tsTypeAt(s jsonv.Value, depth, level int) string {
	if !s.IsValid() || s.Kind() != jsonv.Object || level > maxNesting {
		return "unknown"
	}
	if c, ok := s.Get("const"); ok {
		return literal(c)
	}
	if e, ok := s.Get("enum"); ok && e.Kind() == jsonv.Array {
		var alts []string
		for _, v := range e.All() {
			alts = append(alts, literal(v))
		}
		return union(alts)
	}
	if one, ok := s.Get("oneOf"); ok && one.Kind() == jsonv.Array {
		var alts []string
		for _, v := range one.All() {
			alts = append(alts, tsTypeAt(v, depth, level+1))
		}
		return union(alts)
	}
	typ, _ := s.Get("type")
	if typ.Kind() == jsonv.Array {
		var alts []string
		for _, t := range typ.All() {
			alts = append(alts, tsTypeAt(withType(s, t), depth, level+1))
		}
		return union(alts)
	}
	switch typ.Str() {
	case "string":
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		items, ok := s.Get("items")
		if !ok {
			return "unknown[]"
		}
		t := tsTypeAt(items, depth, level+1)
		if strings.ContainsAny(t, " |") {
			return "Array<" + t + ">"
		}
		return t + "[]"
	case "object":
		return objectType(s, depth, level)
	}
	return "unknown"
}

func withType(s, t jsonv.Value) jsonv.Value {
	var members []jsonv.Member
	for k, v := range s.Members() {
		if k == "type" {
			v = t
		}
		members = append(members, jsonv.Member{Key: k, Value: v})
	}
	return jsonv.MustObject(members...)
}

func objectType(s jsonv.Value, depth, level int) string {
	props, _ := s.Get("properties")
	required := map[string]bool{}
	if r, ok := s.Get("required"); ok {
		for _, v := range r.All() {
			required[v.Str()] = true
		}
	}
	open := true
	if ap, ok := s.Get("additionalProperties"); ok && ap.Kind() == jsonv.Bool {
		open = ap.Bool()
	}
	if props.Len() == 0 {
		if open {
			return "Record<string, unknown>"
		}
		return "{}"
	}
	indent := strings.Repeat("  ", depth+1)
	var b strings.Builder
	b.WriteString("{\n")
	for name, p := range props.Members() {
		if d, ok := p.Get("description"); ok && d.Kind() == jsonv.String && d.Str() != "" {
			b.WriteString(indent + "/** " + comment(d.Str()) + " */\n")
		}
		opt := "?"
		if required[name] {
			opt = ""
		}
		b.WriteString(indent + key(name) + opt + ": " + tsTypeAt(p, depth+1, level+1) + ";\n")
	}
	if open {
		b.WriteString(indent + "[key: string]: unknown;\n")
	}
	b.WriteString(strings.Repeat("  ", depth) + "}")
	return b.String()
}

func literal(v jsonv.Value) string { return string(v.AppendJSON(nil)) }
