package codemode

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDeclarations: the SDK of the built-in tools, as the model reads it
// (testdata/sdk.golden.ts), compiles with esbuild, and every tool appears
// in both maps.
func TestDeclarations(t *testing.T) {
	reg := registry.New()
	ws, err := tools.NewWorkspace(t.TempDir())
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
	if _, err := Transform(got + "\nconst r: ToolOutputMap[\"read\"] = await tools.read({file_path: \"a\"});\nreturn r;"); err != nil {
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
