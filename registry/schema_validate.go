package registry

import (
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"strconv"
	"strings"
	"sync"
)

// Validate checks v against the schema and returns every violation in walk
// order; nil means valid. path labels the root in messages ("value" for
// outputs); the empty path is argument validation: the root is called
// "arguments" and property paths have no leading dot. Validate is total:
// an absent v is reported, never a panic. The walk is iterative.
//
// Objects report missing required properties first, then the declared
// properties in declaration order, then undeclared keys when closed.
func (s *Schema) Validate(v jsonv.Value, path string) []string {
	if s.root.valid(v, 0) {
		return nil // the walk is for the messages
	}
	w := validators.Get().(*validator)
	defer w.release()
	w.root, w.quick = path, false
	return w.run(s.root, v)
}

// ValidArgs reports whether args satisfy the schema, without building
// messages.
func (s *Schema) ValidArgs(args jsonv.Value) bool {
	if s.root.valid(args, 0) {
		return true
	}
	w := validators.Get().(*validator)
	defer w.release()
	w.root, w.quick = "", true
	return len(w.run(s.root, args)) == 0
}

// validators recycles validator stacks: validation is on the hot path of
// every tool call.
var validators = sync.Pool{New: func() any { return &validator{frames: make([]vframe, 0, 16)} }}

// release clears references to values and returns w to the pool.
func (w *validator) release() {
	clear(w.frames[:cap(w.frames)])
	w.frames = w.frames[:0]
	if cap(w.frames) <= 1024 {
		validators.Put(w)
	}
}

// seg is one path step: a property name or an array index. A oneOf branch
// adds no step.
type seg struct {
	key   string
	index int // -1 for a property, -2 for a oneOf branch (no step)
}

type vframe struct {
	n       *snode
	v       jsonv.Value
	seg     seg
	kind    uint8 // 0 fresh, 1 object, 2 array, 3 oneOf
	next    int   // next child
	viol    []string
	tail    []string
	matches int
}

// nextChild returns the next child frame of a container or union frame:
// the next present declared property, array item, or oneOf branch.
func (f *vframe) nextChild() (vframe, bool) {
	switch f.kind {
	case 1:
		for f.next < len(f.n.props) {
			p := f.n.props[f.next]
			f.next++
			if pv, ok := f.v.Get(p.name); ok {
				return vframe{n: p.node, v: pv, seg: seg{key: p.name, index: -1}}, true
			}
		}
	case 2:
		if f.n.items != nil && f.next < f.v.Len() {
			i := f.next
			f.next++
			return vframe{n: f.n.items, v: f.v.Index(i), seg: seg{index: i}}, true
		}
	case 3:
		if f.next < len(f.n.oneOf) {
			b := f.n.oneOf[f.next]
			f.next++
			return vframe{n: b, v: f.v, seg: seg{index: -2}}, true
		}
	}
	return vframe{}, false
}

type validator struct {
	root   string
	quick  bool // stop at the first violation; messages may be placeholders
	frames []vframe
}

// path renders the path of frame depth d (inclusive), with extra appended.
func (w *validator) path(d int, extra *seg) string {
	var b strings.Builder
	b.WriteString(w.root)
	write := func(s seg) {
		switch {
		case s.index == -2:
		case s.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	for i := 1; i <= d; i++ {
		write(w.frames[i].seg)
	}
	if extra != nil {
		write(*extra)
	}
	return b.String()
}

// label is a path as shown inside quotes: the empty root is "arguments".
func label(p string) string {
	if p == "" {
		return "arguments"
	}
	return p
}

func (w *validator) quote(d int, extra *seg) string {
	if w.quick {
		return ""
	}
	return `"` + label(w.path(d, extra)) + `"`
}

func (w *validator) run(root *snode, v jsonv.Value) []string {
	w.frames = append(w.frames[:0], vframe{n: root, v: v, seg: seg{index: -2}})
	var result []string
	deliver := func(res []string) {
		w.frames = w.frames[:len(w.frames)-1]
		if len(w.frames) == 0 {
			result = res
			return
		}
		p := &w.frames[len(w.frames)-1]
		if p.kind == 3 {
			if len(res) == 0 {
				p.matches++
			}
			return
		}
		p.viol = append(p.viol, res...)
	}
	for len(w.frames) > 0 {
		d := len(w.frames) - 1
		f := &w.frames[d]
		if f.kind != 0 {
			// A container or union visiting its children.
			stop := w.quick && f.kind != 3 && len(f.viol) > 0
			if f.kind == 3 && w.quick && f.matches > 1 {
				stop = true
			}
			if !stop {
				if c, ok := f.nextChild(); ok {
					w.frames = append(w.frames, c)
					continue
				}
			}
			if f.kind == 3 {
				if f.matches == 1 {
					deliver(nil)
				} else {
					deliver([]string{w.quote(d, nil) + " must match exactly one oneOf branch (matched " + strconv.Itoa(f.matches) + ")"})
				}
				continue
			}
			deliver(append(f.viol, f.tail...))
			continue
		}
		n, v := f.n, f.v
		if !v.IsValid() {
			deliver([]string{w.quote(d, nil) + " must be a lossless JSON value"})
			continue
		}
		switch n.typ {
		case tAny:
			deliver(nil)
		case tOneOf:
			f.kind = 3
		case tObject:
			if v.Kind() != jsonv.Object {
				deliver([]string{w.quote(d, nil) + " must be an object"})
				continue
			}
			w.enterObject(d, f)
		case tArray:
			if v.Kind() != jsonv.Array {
				deliver([]string{w.quote(d, nil) + " must be an array"})
				continue
			}
			f.kind = 2
		default:
			deliver(w.scalar(d, n, v))
		}
	}
	return result
}

func (w *validator) enterObject(d int, f *vframe) {
	n, v := f.n, f.v
	f.kind = 1
	for _, r := range n.required {
		if !v.Has(r) {
			if w.quick {
				f.viol = append(f.viol, "")
				return
			}
			f.viol = append(f.viol, `missing required property "`+w.path(d, &seg{key: r, index: -1})+`"`)
		}
	}
	if !n.closed {
		return
	}
	for k := range v.Members() {
		if _, declared := n.prop(k); !declared {
			if w.quick {
				f.tail = append(f.tail, "")
				f.viol = append(f.viol, "")
				return
			}
			f.tail = append(f.tail, `"`+w.path(d, &seg{key: k, index: -1})+`" is not a declared property (additionalProperties: false)`)
		}
	}
}

func (w *validator) scalar(d int, n *snode, v jsonv.Value) []string {
	if p := scalarProblem(n, v); p != "" {
		return []string{w.quote(d, nil) + p}
	}
	return nil
}
