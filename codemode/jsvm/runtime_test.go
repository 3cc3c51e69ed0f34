package jsvm

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeTools settles calls like a real dispatcher: from another goroutine,
// after a moment, recording what was asked.
type fakeTools struct {
	mu    sync.Mutex
	calls []string
	wg    sync.WaitGroup
	never bool // leave every call pending
}

func (f *fakeTools) dispatch(name string, args jsonv.Value, settle coderun.Settle) {
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+args.String())
	f.mu.Unlock()
	if f.never {
		return
	}
	f.wg.Go(func() {
		time.Sleep(time.Millisecond)
		switch name {
		case "fail":
			settle(jsonv.Value{}, "no such file: "+args.String(), false)
		default:
			settle(jsonv.MustParse(`{"tool":"`+name+`","args":`+args.String()+`}`), "", true)
		}
	})
}

func runCode(t *testing.T, code string, mod ...func(*coderun.Program)) (coderun.Outcome, *fakeTools) {
	t.Helper()
	f := &fakeTools{}
	p := coderun.Program{Code: code, Names: []string{"read", "fail", "__proto__"}, Dispatch: f.dispatch, Timeout: 5 * time.Second}
	for _, m := range mod {
		m(&p)
	}
	o := Run(context.Background(), p)
	f.wg.Wait()
	return o, f
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		want       string // the result's JSON, or "" for none
		logs       []string
		errKind    string
		errHas     string
	}{
		{name: "return value", code: "return {a: 1, b: [true, null, 'x'], c: 2.5}", want: `{"a":1,"b":[true,null,"x"],"c":2.5}`},
		{name: "no return", code: "const x = 1;", want: ""},
		{name: "types are stripped", code: "interface P { x: number }\nconst p: P = {x: 41};\nreturn (p.x as number) + 1;", want: "42"},
		{name: "top-level await on a tool", code: "const r = await tools.read({file_path: 'a.go'});\nreturn r.args.file_path;", want: `"a.go"`},
		{name: "parallel tool calls", code: "const [a, b] = await Promise.all([tools.read({n: 1}), tools.read({n: 2})]);\nreturn [a.args.n, b.args.n];", want: "[1,2]"},
		{name: "a tool named __proto__", code: "return (await tools.__proto__({})).tool;", want: `"__proto__"`},
		{name: "a failed call is a ToolCallError", code: "try { await tools.fail({p: 1}) } catch (e) { return [e.name, e.toolName, e.message, e instanceof ToolCallError, e instanceof Error] }", want: `["ToolCallError","fail","no such file: {\"p\":1}",true,true]`},
		{name: "console levels are captured", code: "console.log('a', 1, {x: [1]}); console.warn('w'); console.error(new Error('e').message); console.info(null, undefined); console.debug(true)", logs: []string{`a 1 {"x":[1]}`, "w", "e", "null undefined", "true"}},
		{name: "an uncaught rejection fails the run", code: "await tools.fail({});", errKind: coderun.KindException, errHas: "ToolCallError: no such file"},
		{name: "an exception names the program's line", code: "const a = 1;\nconst b = 2;\nthrow new Error('boom ' + (a + b));", errKind: coderun.KindException, errHas: "boom 3\n\tat __dsh_program (program.ts:3:"},
		{name: "a thrown string", code: "throw 'plain'", errKind: coderun.KindException, errHas: "plain"},
		{name: "a syntax error names the program's line", code: "const a = 1;\nconst = ;", errKind: coderun.KindException, errHas: "program.ts:2:"},
		{name: "non-erasable TypeScript still runs (enum)", code: "enum C { A = 2 }\nreturn C.A", want: "2"},
		{name: "a function is not a result", code: "return () => 1", errKind: coderun.KindInvalidOutput, errHas: "program completion must be lossless JSON"},
		{name: "NaN is not a result", code: "return {x: NaN}", errKind: coderun.KindInvalidOutput},
		{name: "negative zero is not a result", code: "return -0", errKind: coderun.KindInvalidOutput},
		{name: "a class instance is not a result", code: "return new Map()", errKind: coderun.KindInvalidOutput},
		{name: "replacing Object changes nothing", code: "class C { x = 1 }\n(globalThis as any).Object = C;\nreturn [{a: 1}, JSON.stringify(new C())]", want: `[{"a":1},"{\"x\":1}"]`},
		{name: "a class instance is still not a result after Object is replaced", code: "class C { x = 1 }\n(globalThis as any).Object = C;\nreturn new C()", errKind: coderun.KindInvalidOutput},
		{name: "a cycle is not a result", code: "const a: any = {}; a.self = a; return a", errKind: coderun.KindInvalidOutput},
		{name: "undefined members are left out", code: "return {a: undefined, b: 1}", want: `{"b":1}`},
		{name: "undefined arguments reject", code: "try { await tools.read() } catch (e) { return e.message }", want: "\"tool arguments must be lossless JSON (call the tool with an arguments object, e.g. `{}`)\""},
		{name: "function arguments reject", code: "try { await tools.read({f() {}}) } catch (e) { return e.toolName }", want: `"read"`},
		{name: "a throwing getter rejects", code: "try { await tools.read({get x() { throw new Error('getter') }}) } catch (e) { return e.message.split('\\n').slice(0, 2) }", want: `["tool arguments must be lossless JSON: Error: getter","\tat x (program.ts:1:40)"]`},
		{name: "nothing else is bound", code: "return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof module, typeof tools.run_code]", want: `["undefined","undefined","undefined","undefined","undefined","undefined"]`},
		{name: "deep recursion is an exception", code: "function f(n: number): number { return f(n + 1) + 1 }\nreturn f(0)", errKind: coderun.KindException, errHas: "RangeError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := runCode(t, tc.code)
			if tc.errKind != "" {
				if o.Err == nil || o.Err.Kind != tc.errKind || !strings.Contains(o.Err.Message, tc.errHas) {
					t.Fatalf("got %+v (result %s), want %s containing %q", o.Err, o.Result, tc.errKind, tc.errHas)
				}
				return
			}
			if o.Err != nil {
				t.Fatalf("error %v", o.Err)
			}
			got := ""
			if o.Result.IsValid() {
				got = o.Result.String()
			}
			if got != tc.want {
				t.Errorf("result %s, want %s", got, tc.want)
			}
			if tc.logs != nil && strings.Join(o.Logs, "|") != strings.Join(tc.logs, "|") {
				t.Errorf("logs %q, want %q", o.Logs, tc.logs)
			}
		})
	}
}

func TestRun_Limits(t *testing.T) {
	t.Run("an infinite loop times out", func(t *testing.T) {
		start := time.Now()
		o, _ := runCode(t, "while (true) {}", func(p *coderun.Program) { p.Timeout = 100 * time.Millisecond })
		if o.Err == nil || o.Err.Kind != coderun.KindTimeout || o.Err.Message != "wall-clock ceiling reached (100ms)" {
			t.Fatalf("got %+v", o.Err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("a program awaiting forever times out", func(t *testing.T) {
		f := &fakeTools{never: true}
		o := Run(context.Background(), coderun.Program{Code: "await tools.read({})", Names: []string{"read"}, Dispatch: f.dispatch, Timeout: 100 * time.Millisecond})
		if o.Err == nil || o.Err.Kind != coderun.KindTimeout {
			t.Fatalf("got %+v", o.Err)
		}
	})
	for _, code := range []string{"while (true) {}", "await tools.read({})"} {
		t.Run("cancel stops "+code, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			f := &fakeTools{never: true}
			o := Run(ctx, coderun.Program{Code: code, Names: []string{"read"}, Dispatch: f.dispatch})
			if o.Err == nil || o.Err.Kind != coderun.KindAbort {
				t.Fatalf("got %+v", o.Err)
			}
		})
	}
	t.Run("a cancelled context never runs the program", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f := &fakeTools{}
		o := Run(ctx, coderun.Program{Code: "await tools.read({})", Names: []string{"read"}, Dispatch: f.dispatch})
		if o.Err == nil || o.Err.Kind != coderun.KindAbort || len(f.calls) != 0 {
			t.Fatalf("got %+v, calls %v", o.Err, f.calls)
		}
	})
	t.Run("a program outgrowing the heap headroom is stopped", func(t *testing.T) {
		// 4 MiB strings, each one copy (a concatenation): the heap grows
		// fast even under the race detector, which slows element-by-element
		// work (filling arrays, String.prototype.repeat) so much that a
		// clean CI run met the wall clock first.
		o, _ := runCode(t, "let s = 'x';\nfor (let i = 0; i < 22; i++) s += s;\nconst keep: string[] = [];\nwhile (true) keep.push(s + keep.length);", func(p *coderun.Program) { p.HeapHeadroom = 64 << 20 })
		if o.Err == nil || o.Err.Kind != coderun.KindWorkerExit || o.Err.Message != "heap limit exceeded (64 MiB)" {
			t.Fatalf("got %+v", o.Err)
		}
	})
	t.Run("logs past the limit", func(t *testing.T) {
		o, _ := runCode(t, "for (let i = 0; i < 1000; i++) console.log('line ' + i)", func(p *coderun.Program) { p.MaxOutputBytes = 200 })
		if o.Err == nil || o.Err.Kind != coderun.KindOutputLimit || o.Err.Message != "outer output exceeded 200 bytes" {
			t.Fatalf("got %+v", o.Err)
		}
		if len(o.Logs) == 0 || len(o.Logs) > 25 || o.Logs[0] != "line 0" {
			t.Errorf("kept logs %q", o.Logs)
		}
	})
	t.Run("a result past the limit", func(t *testing.T) {
		o, _ := runCode(t, "return 'x'.repeat(500)", func(p *coderun.Program) { p.MaxOutputBytes = 200 })
		if o.Err == nil || o.Err.Kind != coderun.KindOutputLimit {
			t.Fatalf("got %+v", o.Err)
		}
	})
	t.Run("runs share nothing", func(t *testing.T) {
		runCode(t, "(globalThis as any).leak = 1; Object.prototype.polluted = 1;")
		o, _ := runCode(t, "return [typeof (globalThis as any).leak, typeof ({} as any).polluted]")
		if o.Err != nil || o.Result.String() != `["undefined","undefined"]` {
			t.Fatalf("got %+v %s", o.Err, o.Result)
		}
	})
	t.Run("a settlement after the run is ignored", func(t *testing.T) {
		var late coderun.Settle
		o := Run(context.Background(), coderun.Program{Code: "tools.read({}); return 1", Names: []string{"read"},
			Dispatch: func(_ string, _ jsonv.Value, s coderun.Settle) { late = s }})
		if o.Err != nil || o.Result.String() != "1" || late == nil {
			t.Fatalf("got %+v", o)
		}
		late(jsonv.MustParse(`{}`), "", true) // must not panic or block
	})
}

// FuzzRun: whatever the program, the process survives and the run ends
// with an outcome.
func FuzzRun(f *testing.F) {
	for _, s := range []string{"return 1", "while(true){}", "await tools.read({})", "throw null", "}{", "return new Proxy({}, {get() { throw 1 }})", "let a: number = 'x'", "console.log(Symbol())"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		f := &fakeTools{}
		o := Run(context.Background(), coderun.Program{Code: code, Names: []string{"read"}, Dispatch: f.dispatch, Timeout: 200 * time.Millisecond, MaxOutputBytes: 4096})
		f.wg.Wait()
		if o.Err == nil && o.Result.IsValid() && len(o.Result.AppendJSON(nil)) > 4096 {
			t.Fatalf("a result over the limit: %d bytes", len(o.Result.AppendJSON(nil)))
		}
	})
}
