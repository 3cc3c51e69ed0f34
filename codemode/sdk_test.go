package codemode

import (
	"github.com/dsh-bridge/dsh-bridge/codemode/jsvm"
	"github.com/dsh-bridge/dsh-bridge/workspace"

	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDeclarations: the SDK of the built-in tools, as the model reads it
// (testdata/sdk.golden.ts), compiles with esbuild, and every tool appears
// in both maps.
func TestDeclarations(t *testing.T) {
	reg := registry.New()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dispose, err := tools.Register(reg, nil, tools.Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer dispose()
	got := Declarations(reg.Visible(nil))
	golden := filepath.Join("testdata", "sdk.golden.ts")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the SDK differs from %s (run with -update after checking):\n%s", golden, got)
	}
	// The declarations are valid TypeScript: a program using them compiles.
	if _, err := jsvm.Transform(got + "\nconst r: ToolOutputMap[\"read\"] = await tools.read({file_path: \"a\"});\nreturn r;"); err != nil {
		t.Errorf("the SDK does not compile: %v", err)
	}
	for _, tl := range reg.Visible(nil) {
		if !strings.Contains(got, "  "+tl.Name+": ") {
			t.Errorf("%s is not declared", tl.Name)
		}
	}
}

func TestPromptSections(t *testing.T) {
	reg := registry.New()
	if got := PromptSections(registry.Native, reg.Visible(nil)); got != "" {
		t.Errorf("native adds %q", got)
	}
	code := PromptSections(registry.Code, nil)
	both := PromptSections(registry.Both, nil)
	if !strings.Contains(code, "run_code is the only tool you can call directly") || !strings.Contains(code, "declare const tools") {
		t.Errorf("code: %s", code)
	}
	if strings.Contains(both, "run_code is the only tool") || !strings.Contains(both, "declare const tools") {
		t.Errorf("both: %s", both)
	}
}

// TestDeclarations_Shapes: restricted tools are neither declared nor bound,
// a deeply nested schema renders without blowing up, unions are
// deduplicated, and odd names are quoted.
func TestDeclarations_Shapes(t *testing.T) {
	deep := `{"type":"string"}`
	for range 5000 {
		deep = `{"oneOf":[` + deep + `,{"type":"null"}]}`
	}
	tl := &registry.Tool{Name: "deep", Parameters: jsonv.MustParse(`{"type":"object","properties":{"a-b":{"type":["string","null"]}},"additionalProperties":false}`),
		Output: registry.Output{Schema: jsonv.MustParse(deep)}}
	got := Declarations([]*registry.Tool{tl})
	if !strings.Contains(got, `deep: {
    "a-b"?: string | null;
  };`) {
		t.Errorf("parameters:\n%s", got)
	}
	if !strings.Contains(got, "deep: unknown;") && !strings.Contains(got, "deep: string | null;") {
		t.Errorf("a 5,000-deep output schema:\n%s", got)
	}
	if len(got) > 4096 {
		t.Errorf("the SDK grew to %d bytes", len(got))
	}
}

func TestRunCode_RestrictedToolsAreNotBound(t *testing.T) {
	e := newCM(t, registry.Code, Config{})
	child := e.reg.NewScope("child", e.scope)
	if _, err := e.reg.Restrict(child, registry.Restriction{Allow: []string{"read"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.reg.Restrict(child, registry.Restriction{Allow: []string{"run_code"}}); err == nil {
		t.Error("run_code could be named in an allow list")
	}
	if sdk := PromptSections(registry.Code, e.reg.Visible(child)); !strings.Contains(sdk, "  read: ") || strings.Contains(sdk, "  write: ") {
		t.Errorf("the child's SDK:\n%s", sdk)
	}
	args, _ := jsonv.FromGo(map[string]any{"code": "return Object.keys(tools).sort()", "description": "List the tools"})
	r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "c", Name: "run_code", Args: args, Scope: child})
	if resultText(r) != "[\n  \"read\"\n]" {
		t.Errorf("the child's bindings: %s", resultText(r))
	}
}

func TestSplitTop(t *testing.T) {
	for in, want := range map[string]string{
		"string | null":                      "string/null",
		"{\n  a: string | null;\n} | null":   "{\n  a: string | null;\n}/null",
		`"a | b" | Array<x | y> | (p | q)[]`: `"a | b"/Array<x | y>/(p | q)[]`,
		`"quote \" | inside" | number`:       `"quote \" | inside"/number`,
	} {
		if got := strings.Join(splitTop(in), "/"); got != want {
			t.Errorf("splitTop(%q) = %q, want %q", in, got, want)
		}
	}
}
