package registry

import (
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"slices"
	"strconv"
)

// Schema is a compiled schema of the enforced JSON Schema subset (contract
// §2.11). It is immutable and safe for concurrent use. Build one with
// [CompileSchema] from raw JSON, or from the DSL ([Spec.Compile],
// [CompileParams]) or a Go type ([Define]).
type Schema struct {
	raw  jsonv.Value
	root *snode
}

type stype uint8

const (
	tAny stype = iota // annotation-only: any lossless JSON value
	tOneOf
	tObject
	tArray
	tString
	tNumber
	tInteger
	tBoolean
	tNull
)

var stypeByName = map[string]stype{
	"object": tObject, "array": tArray, "string": tString, "number": tNumber,
	"integer": tInteger, "boolean": tBoolean, "null": tNull,
}

type sprop struct {
	name string
	node *snode
}

type snode struct {
	typ      stype
	oneOf    []*snode
	props    []sprop
	propIdx  map[string]int // for objects with many properties
	required []string
	closed   bool // additionalProperties: false
	items    *snode
	enum     []jsonv.Value
	hasEnum  bool
	constV   jsonv.Value // valid when const is declared
	enumText string      // JSON text of enum, for messages
}

func (n *snode) prop(name string) (*snode, bool) {
	if n.propIdx != nil {
		i, ok := n.propIdx[name]
		if !ok {
			return nil, false
		}
		return n.props[i].node, true
	}
	for _, p := range n.props {
		if p.name == name {
			return p.node, true
		}
	}
	return nil, false
}

// JSON returns the schema as raw JSON, exactly as compiled.
func (s *Schema) JSON() jsonv.Value { return s.raw }

// String returns the schema's canonical JSON text.
func (s *Schema) String() string { return s.raw.String() }

// IsObject reports whether the schema's root is `type: "object"`.
func (s *Schema) IsObject() bool { return s.root.typ == tObject }

const unsupportedKeyword = " is not a supported keyword (subset: type/oneOf/properties/required/additionalProperties/items/enum/const + annotations)"

var oneOfSiblings = []string{"properties", "required", "additionalProperties", "items", "enum", "const"}

var annotationKeys = []string{"description", "title", "default", "examples"}

var constraintKeys = []string{"type", "oneOf", "properties", "required", "additionalProperties", "items", "enum", "const"}

// CompileSchema checks raw against the enforced subset and compiles it. Every
// violation is reported, path-qualified from "schema", in one
// UNSUPPORTED_SCHEMA *Error. The walk is iterative, so nesting depth is
// limited only by memory.
func CompileSchema(raw jsonv.Value) (*Schema, error) {
	root, violations := compileRaw(raw, "schema")
	if len(violations) > 0 {
		return nil, SchemaError(violations)
	}
	return &Schema{raw: raw, root: root}, nil
}

// CompileObjectSchema is CompileSchema plus the requirement that the root
// is an object schema (structured outputs are object-rooted).
func CompileObjectSchema(raw jsonv.Value) (*Schema, error) {
	s, err := CompileSchema(raw)
	if err != nil {
		return nil, err
	}
	if !s.IsObject() {
		return nil, SchemaError([]string{`schema.type must be "object" (structured output is object-rooted)`})
	}
	return s, nil
}

type checkTask struct {
	kind int // 0 enter, 1 oneOf tail, 2 object tail
	v    jsonv.Value
	path string
	dst  **snode
	n    *snode
}

func compileRaw(raw jsonv.Value, rootPath string) (*snode, []string) {
	var violations []string
	add := func(s string) { violations = append(violations, s) }
	var root *snode
	tasks := []checkTask{{v: raw, path: rootPath, dst: &root}}
	for len(tasks) > 0 {
		t := tasks[len(tasks)-1]
		tasks = tasks[:len(tasks)-1]
		switch t.kind {
		case 1:
			for _, k := range oneOfSiblings {
				if t.v.Has(k) {
					add(t.path + "." + k + " is not supported beside oneOf")
				}
			}
			continue
		case 2:
			checkObjectTail(t.v, t.path, t.n, add)
			continue
		}
		v, path := t.v, t.path
		if v.Kind() != jsonv.Object {
			add(path + " must be a schema object")
			continue
		}
		n := &snode{}
		*t.dst = n
		for k := range v.Members() {
			if slices.Contains(constraintKeys, k) || slices.Contains(annotationKeys, k) {
				continue
			}
			add(path + "." + k + unsupportedKeyword)
		}
		if d, ok := v.Get("description"); ok && d.Kind() != jsonv.String {
			add(path + ".description must be a string")
		}
		if d, ok := v.Get("title"); ok && d.Kind() != jsonv.String {
			add(path + ".title must be a string")
		}
		typ, hasType := v.Get("type")
		oneOf, hasOneOf := v.Get("oneOf")
		if hasType && hasOneOf {
			add(path + " cannot declare both type and oneOf")
			continue
		}
		if !hasType && !hasOneOf {
			for _, k := range oneOfSiblings {
				if v.Has(k) {
					add(path + "." + k + " requires type or oneOf")
				}
			}
			continue
		}
		if hasOneOf {
			n.typ = tOneOf
			tasks = append(tasks, checkTask{kind: 1, v: v, path: path})
			if oneOf.Kind() != jsonv.Array || oneOf.Len() < 2 {
				add(path + ".oneOf must be an array of at least two schemas")
				continue
			}
			n.oneOf = make([]*snode, oneOf.Len())
			for i := oneOf.Len() - 1; i >= 0; i-- {
				tasks = append(tasks, checkTask{v: oneOf.Index(i), path: path + ".oneOf[" + strconv.Itoa(i) + "]", dst: &n.oneOf[i]})
			}
			continue
		}
		st, known := stypeByName[typ.Str()]
		if typ.Kind() != jsonv.String || !known {
			if typ.Kind() == jsonv.Array {
				add(path + ".type must be a single type string (type arrays are not supported)")
			} else {
				add(path + ".type must be one of object/array/string/number/integer/boolean/null")
			}
			continue
		}
		n.typ = st
		for _, k := range oneOfSiblings {
			if v.Has(k) && !keywordAllowed(k, st) {
				add(path + "." + k + ` is not supported on type "` + typ.Str() + `"`)
			}
		}
		switch st {
		case tObject:
			tasks = append(tasks, checkTask{kind: 2, v: v, path: path, n: n})
			props, ok := v.Get("properties")
			if !ok {
				break
			}
			if props.Kind() != jsonv.Object {
				add(path + ".properties must be an object of schemas")
				break
			}
			n.props = make([]sprop, props.Len())
			if props.Len() >= jsonv.IndexThreshold {
				n.propIdx = make(map[string]int, props.Len())
			}
			for i := props.Len() - 1; i >= 0; i-- {
				k := props.Key(i)
				n.props[i].name = k
				if n.propIdx != nil {
					n.propIdx[k] = i
				}
				tasks = append(tasks, checkTask{v: props.Index(i), path: path + ".properties." + k, dst: &n.props[i].node})
			}
		case tArray:
			if items, ok := v.Get("items"); ok {
				tasks = append(tasks, checkTask{v: items, path: path + ".items", dst: &n.items})
			}
		default:
			checkLiterals(v, path, st, typ.Str(), n, add)
		}
	}
	return root, violations
}

func keywordAllowed(k string, t stype) bool {
	switch k {
	case "properties", "required", "additionalProperties":
		return t == tObject
	case "items":
		return t == tArray
	default: // enum, const
		return t >= tString
	}
}

func checkObjectTail(v jsonv.Value, path string, n *snode, add func(string)) {
	if req, ok := v.Get("required"); ok {
		valid := req.Kind() == jsonv.Array
		for _, r := range req.All() {
			valid = valid && r.Kind() == jsonv.String
		}
		if !valid {
			add(path + ".required must be an array of strings")
		} else {
			props, _ := v.Get("properties")
			for _, r := range req.All() {
				if props.Kind() != jsonv.Object || !props.Has(r.Str()) {
					add(path + `.required names "` + r.Str() + `" which is not in properties`)
				}
				n.required = append(n.required, r.Str())
			}
		}
	}
	if ap, ok := v.Get("additionalProperties"); ok {
		if ap.Kind() != jsonv.Bool {
			add(path + ".additionalProperties must be a boolean")
		}
		n.closed = ap.Kind() == jsonv.Bool && !ap.Bool()
	}
}

func scalarMatches(t stype, v jsonv.Value) bool {
	switch t {
	case tString:
		return v.Kind() == jsonv.String
	case tNumber:
		return v.Kind() == jsonv.Number
	case tInteger:
		return v.IsInteger()
	case tBoolean:
		return v.Kind() == jsonv.Bool
	case tNull:
		return v.Kind() == jsonv.Null
	}
	return false
}

func checkLiterals(v jsonv.Value, path string, st stype, typeName string, n *snode, add func(string)) {
	enum, hasEnum := v.Get("enum")
	enumValid := enum.Kind() == jsonv.Array && enum.Len() > 0
	for _, e := range enum.All() {
		enumValid = enumValid && scalarMatches(st, e)
	}
	if hasEnum {
		if !enumValid {
			add(path + ".enum must be a non-empty array of " + typeName + " values")
		} else {
			n.hasEnum, n.enum, n.enumText = true, enum.Items(), enum.String()
		}
	}
	c, hasConst := v.Get("const")
	if !hasConst {
		return
	}
	if !scalarMatches(st, c) {
		add(path + ".const must be a " + typeName + " value")
		return
	}
	if enumValid && !slices.ContainsFunc(enum.Items(), c.Equal) {
		add(path + ".const must be one of " + path + ".enum when both are declared")
	}
	n.constV = c
}
