package jsvm

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// prelude defines ToolCallError, the class of a failed tool call's
// rejection (its toolName names the tool).
const prelude = `class ToolCallError extends Error {
  constructor(toolName, message) {
    super(message);
    Object.defineProperty(this, "name", {value: "ToolCallError", enumerable: true});
    Object.defineProperty(this, "toolName", {value: toolName, enumerable: true});
  }
}
globalThis.ToolCallError = ToolCallError;`

// install defines ToolCallError and keeps JSON.stringify and
// Object.prototype as they are before the program runs (a program may
// replace the globals).
func (r *run) install() error {
	if _, err := r.vm.RunString(prelude); err != nil {
		return err
	}
	r.errClass = r.vm.Get("ToolCallError")
	r.objProto = r.vm.Get("Object").ToObject(r.vm).Get("prototype").ToObject(r.vm)
	json := r.vm.Get("JSON").ToObject(r.vm)
	s, ok := goja.AssertFunction(json.Get("stringify"))
	if !ok {
		return errors.New("JSON.stringify is missing")
	}
	r.stringify = s
	return nil
}

// bindings builds the program's two parameters: tools, a null-prototype
// map of one function per name (so that a tool named __proto__ works), and
// console, whose log, info, warn, error and debug are captured as logs.
func (r *run) bindings() (tools, console *goja.Object) {
	tools = r.vm.NewObject()
	tools.SetPrototype(nil)
	for _, name := range r.p.Names {
		tools.DefineDataProperty(name, r.vm.ToValue(r.binding(name)), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	console = r.vm.NewObject()
	console.SetPrototype(nil)
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		console.DefineDataProperty(level, r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				parts[i] = r.inspect(a)
			}
			if !r.out.log(strings.Join(parts, " ")) {
				r.halt(&coderun.RunError{Kind: coderun.KindOutputLimit, Message: r.out.limitMessage()})
			}
			return goja.Undefined()
		}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	return tools, console
}

// binding is tools.<name>: it snapshots the arguments as lossless JSON,
// hands them to Dispatch, and returns a promise that settles with the
// value or rejects with a ToolCallError carrying the message.
func (r *run) binding(name string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		promise, resolve, reject := r.vm.NewPromise()
		fail := func(msg string) {
			e, err := r.vm.New(r.errClass, r.vm.ToValue(name), r.vm.ToValue(msg))
			if err != nil {
				reject(r.vm.ToValue(msg))
				return
			}
			reject(e)
		}
		args, err := r.toJSON(call.Argument(0))
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				fail("tool arguments must be lossless JSON: " + r.describe(ex.Value()))
			} else {
				fail("tool arguments must be lossless JSON (call the tool with an arguments object, e.g. `{}`)")
			}
			return r.vm.ToValue(promise)
		}
		r.p.Dispatch(name, args, func(value jsonv.Value, errMsg string, ok bool) {
			r.post(func() {
				if !ok {
					fail(errMsg)
					return
				}
				resolve(r.fromJSON(value))
			})
		})
		return r.vm.ToValue(promise)
	}
}

var errNotJSON = errors.New("not lossless JSON")

// toJSON snapshots a JavaScript value as lossless JSON: null, booleans,
// finite numbers (not -0), strings, arrays and plain objects (members
// whose value is undefined are left out, as JSON.stringify does). Cycles,
// functions, symbols, big integers, class instances and undefined array
// items are not JSON. A throwing getter gives its *goja.Exception.
func (r *run) toJSON(v goja.Value) (out jsonv.Value, err error) {
	if goja.IsUndefined(v) {
		return jsonv.Value{}, errNotJSON
	}
	if ex := r.vm.Try(func() { out, err = r.snapshot(v, map[*goja.Object]bool{}, 0) }); ex != nil {
		return jsonv.Value{}, ex
	}
	return out, err
}

func (r *run) snapshot(v goja.Value, onPath map[*goja.Object]bool, depth int) (jsonv.Value, error) {
	if depth > 1000 {
		return jsonv.Value{}, errNotJSON
	}
	switch {
	case goja.IsNull(v):
		return jsonv.NullValue(), nil
	case goja.IsUndefined(v):
		return jsonv.Value{}, errNotJSON
	}
	switch x := v.Export().(type) {
	case bool:
		return jsonv.BoolValue(x), nil
	case int64:
		return jsonv.IntValue(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || (x == 0 && math.Signbit(x)) {
			return jsonv.Value{}, errNotJSON
		}
		return jsonv.FromGo(x)
	case string:
		if !utf8.ValidString(x) {
			return jsonv.Value{}, errNotJSON
		}
		return jsonv.StringValue(x)
	}
	o, ok := v.(*goja.Object)
	if !ok || onPath[o] {
		return jsonv.Value{}, errNotJSON
	}
	onPath[o] = true
	defer delete(onPath, o)
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		items := make([]jsonv.Value, n)
		for i := range n {
			item, err := r.snapshot(o.Get(strconv.Itoa(i)), onPath, depth+1)
			if err != nil {
				return jsonv.Value{}, err
			}
			items[i] = item
		}
		return jsonv.ArrayValue(items...)
	case "Object":
		if proto := o.Prototype(); proto != nil && !proto.SameAs(r.objProto) {
			return jsonv.Value{}, errNotJSON // a class instance
		}
		var members []jsonv.Member
		for _, k := range o.Keys() {
			mv := o.Get(k)
			if goja.IsUndefined(mv) {
				continue
			}
			m, err := r.snapshot(mv, onPath, depth+1)
			if err != nil {
				return jsonv.Value{}, err
			}
			members = append(members, jsonv.Member{Key: k, Value: m})
		}
		return jsonv.ObjectValue(members...)
	}
	return jsonv.Value{}, errNotJSON
}

// fromJSON builds the JavaScript value of a lossless JSON value (numbers
// become JavaScript numbers).
func (r *run) fromJSON(v jsonv.Value) goja.Value {
	switch v.Kind() {
	case jsonv.Null:
		return goja.Null()
	case jsonv.Bool:
		return r.vm.ToValue(v.Bool())
	case jsonv.Number:
		if i, ok := v.Int(); ok {
			return r.vm.ToValue(i)
		}
		return r.vm.ToValue(v.Float())
	case jsonv.String:
		return r.vm.ToValue(v.Str())
	case jsonv.Array:
		items := make([]any, v.Len())
		for i, item := range v.All() {
			items[i] = r.fromJSON(item)
		}
		return r.vm.NewArray(items...)
	case jsonv.Object:
		o := r.vm.NewObject()
		for k, m := range v.Members() {
			o.Set(k, r.fromJSON(m))
		}
		return o
	}
	return goja.Undefined()
}

// inspect renders one console argument: strings as they are, errors by
// their stack, other values as JSON when they have a JSON form.
func (r *run) inspect(v goja.Value) string {
	if s, ok := v.Export().(string); ok {
		return s
	}
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return v.String()
	}
	if o, ok := v.(*goja.Object); ok {
		if _, isFn := goja.AssertFunction(o); isFn {
			return "[Function]"
		}
		if o.ClassName() == "Error" {
			return r.describe(o)
		}
		var text string
		if r.vm.Try(func() {
			if s, err := r.stringify(goja.Undefined(), o); err == nil && !goja.IsUndefined(s) {
				text = s.String()
			}
		}) == nil && text != "" {
			return text
		}
	}
	var text string
	if r.vm.Try(func() { text = v.String() }) != nil {
		return "[unprintable]"
	}
	return text
}

// ledger is a run's output budget: the bytes of the logs as a JSON array
// plus the result's JSON.
type ledger struct {
	max, bytes int
	logs       []string
	full       bool
}

// log keeps a line if it fits; false once the budget is spent.
func (l *ledger) log(text string) bool {
	if l.full {
		return false
	}
	sep := 0
	if len(l.logs) > 0 {
		sep = 1
	}
	n := len(jsonv.AppendString(nil, text)) + sep
	if l.bytes+n > l.max {
		l.full = true
		return false
	}
	l.bytes += n
	l.logs = append(l.logs, text)
	return true
}

func (l *ledger) limitMessage() string {
	return "outer output exceeded " + strconv.Itoa(l.max) + " bytes"
}

func (l *ledger) fail(kind, msg string) coderun.Outcome {
	if l.full {
		kind, msg = coderun.KindOutputLimit, l.limitMessage()
	}
	return coderun.Outcome{Logs: l.logs, Err: &coderun.RunError{Kind: kind, Message: msg}}
}

func (l *ledger) success(v jsonv.Value) coderun.Outcome {
	if l.full || v.IsValid() && l.bytes+len(v.AppendJSON(nil)) > l.max {
		return coderun.Outcome{Logs: l.logs, Err: &coderun.RunError{Kind: coderun.KindOutputLimit, Message: l.limitMessage()}}
	}
	return coderun.Outcome{Logs: l.logs, Result: v}
}
