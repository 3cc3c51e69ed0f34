package registry

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

type editArgs struct {
	FilePath   string `json:"file_path" desc:"absolute path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

type editOut struct {
	Path   string  `json:"path"`
	Before *string `json:"before"`
	After  string  `json:"after"`
}

// fakeRun is a minimal RunContext for calling Execute directly.
type fakeRun struct {
	exec     Execution
	deferred []ContextMessage
	conclude bool
}

func (f *fakeRun) Execution() Execution          { return f.exec }
func (f *fakeRun) DeferContext(m ContextMessage) { f.deferred = append(f.deferred, m) }
func (f *fakeRun) ConcludeTurn()                 { f.conclude = true }
func run(ctx context.Context, t *Tool, args string) (jsonv.Value, error) {
	return t.Execute(ctx, jsonv.MustParse(args), &fakeRun{})
}

func defineEdit(t *testing.T) *Tool {
	t.Helper()
	tool, err := Define(TypedTool[editArgs, editOut]{
		Name:        "edit",
		Description: "edit a file",
		Execute: func(ctx context.Context, in editArgs, _ RunContext) (editOut, error) {
			return editOut{Path: in.FilePath, After: strings.ReplaceAll("x", in.OldString, in.NewString)}, nil
		},
		Render: func(in editArgs, out editOut) ([]card.Content, error) {
			return []card.Content{card.Text("The file " + out.Path + " has been updated successfully.")}, nil
		},
		IsConcurrencySafe: func(in editArgs) bool { return in.FilePath == "/safe" },
		PresentCall:       func(in editArgs) card.CallView { return &card.Generic{Title: "Edit " + in.FilePath} },
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestDefine_DerivedSchemas(t *testing.T) {
	tool := defineEdit(t)
	wantParams := `{"type":"object","properties":{"file_path":{"type":"string","description":"absolute path"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["file_path","old_string","new_string"]}`
	if got := tool.Parameters.String(); got != wantParams {
		t.Errorf("parameters\n got  %s\n want %s", got, wantParams)
	}
	wantOut := `{"type":"object","additionalProperties":false,"properties":{"path":{"type":"string"},"before":{"oneOf":[{"type":"string"},{"type":"null"}]},"after":{"type":"string"}},"required":["path","before","after"]}`
	if got := tool.Output.Schema.String(); got != wantOut {
		t.Errorf("output\n got  %s\n want %s", got, wantOut)
	}
	if tool.Args == nil {
		t.Errorf("typed tool has no enforced Args schema")
	}
	// Every session defines its tools again: the derived schemas are
	// compiled once per type and shared.
	again := defineEdit(t)
	if again.Args != tool.Args || again.OutputSchema() != tool.OutputSchema() {
		t.Errorf("a second Define compiled the derived schemas again")
	}
	// One type as both arguments and output: two different schemas.
	echo, err := Define(TypedTool[editOut, editOut]{Name: "echo", Execute: func(_ context.Context, in editOut, _ RunContext) (editOut, error) { return in, nil }})
	if err != nil || strings.Contains(echo.Parameters.String(), "additionalProperties") || !strings.Contains(echo.Output.Schema.String(), `"additionalProperties":false`) {
		t.Errorf("arguments and output of one type: %v\n%s\n%s", err, echo.Parameters, echo.Output.Schema)
	}
	// An explicit spec is the tool's own, never the cached one.
	own, err := Define(TypedTool[editArgs, editOut]{Name: "edit2", Execute: func(context.Context, editArgs, RunContext) (editOut, error) { return editOut{}, nil },
		Params: []Property{Prop("file_path", String())}})
	if err != nil || own.Args == tool.Args || own.Parameters.String() == wantParams || own.OutputSchema() != tool.OutputSchema() {
		t.Errorf("explicit parameters: %v, %s", err, own.Parameters)
	}
}

func TestDefine_Execute(t *testing.T) {
	tool := defineEdit(t)
	for _, tc := range []struct {
		name, args, want, wantErr string
	}{
		{"valid", `{"file_path":"/a","old_string":"x","new_string":"y"}`, `{"path":"/a","before":null,"after":"y"}`, ""},
		{"missing and wrong types listed together", `{"file_path":1}`, "", `invalid arguments: missing required property "old_string"; missing required property "new_string"; "file_path" must be a string`},
		{"not an object", `[]`, "", `invalid arguments: "arguments" must be an object`},
		{"extra keys allowed at the open root", `{"file_path":"/a","old_string":"x","new_string":"y","other":1}`, `{"path":"/a","before":null,"after":"y"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := run(context.Background(), tool, tc.args)
			if tc.wantErr != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInvalidArgs || e.Name != "ToolArgsError" || e.Message != tc.wantErr {
					t.Fatalf("got %v, want INVALID_ARGS %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != tc.want {
				t.Errorf("got %s, want %s", v, tc.want)
			}
		})
	}
}

func TestDefine_SoftPresentersAndClassifier(t *testing.T) {
	tool := defineEdit(t)
	for _, tc := range []struct {
		name      string
		args      string
		wantTitle string // "" means nil view
		wantSafe  bool
	}{
		{"valid args present", `{"file_path":"/safe","old_string":"a","new_string":"b"}`, "Edit /safe", true},
		{"valid but unsafe", `{"file_path":"/x","old_string":"a","new_string":"b"}`, "Edit /x", false},
		{"invalid args fall back", `{"file_path":"/safe"}`, "", false},
		{"wrong type falls back", `{"file_path":7,"old_string":"a","new_string":"b"}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := jsonv.MustParse(tc.args)
			view := tool.PresentCall(args)
			switch {
			case tc.wantTitle == "" && view != nil:
				t.Errorf("got view %#v, want nil", view)
			case tc.wantTitle != "" && (view == nil || view.(*card.Generic).Title != tc.wantTitle):
				t.Errorf("got view %#v, want title %q", view, tc.wantTitle)
			}
			if got := tool.IsConcurrencySafe(args); got != tc.wantSafe {
				t.Errorf("IsConcurrencySafe = %v, want %v", got, tc.wantSafe)
			}
		})
	}
}

func TestDefine_RenderAndDefaults(t *testing.T) {
	tool, err := Define(TypedTool[struct{}, string]{
		Name:    "hello",
		Execute: func(context.Context, struct{}, RunContext) (string, error) { return "hi", nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.Parameters.String(); got != `{"type":"object","properties":{}}` {
		t.Errorf("empty params: %s", got)
	}
	blocks, err := tool.Output.Render(jsonv.MustParse(`{}`), jsonv.MustString("hi"))
	if err != nil || len(blocks) != 1 || blocks[0].TextValue() != "hi" {
		t.Errorf("default render of a string: %v %v", blocks, err)
	}
	obj, _ := Define(TypedTool[struct{}, map[string]int]{Name: "m", Execute: func(context.Context, struct{}, RunContext) (map[string]int, error) { return nil, nil }})
	blocks, _ = obj.Output.Render(jsonv.MustParse(`{}`), jsonv.MustParse(`{"a":1}`))
	if blocks[0].TextValue() != `{"a":1}` {
		t.Errorf("default render of an object: %q", blocks[0].TextValue())
	}
}

func TestDefine_Rejects(t *testing.T) {
	type node struct {
		Kids []node `json:"kids"`
	}
	type badEnum struct {
		N int `json:"n" enum:"one,two"`
	}
	noop := func(context.Context, struct{}, RunContext) (int, error) { return 0, nil }
	for _, tc := range []struct {
		name   string
		define func() error
		want   string
	}{
		{"negative timeout", func() error {
			_, err := Define(TypedTool[struct{}, int]{Name: "t", Timeout: -1, Execute: noop})
			return err
		}, "defineTool(t): timeoutMs must be a positive finite number"},
		{"recursive Go type", func() error {
			_, err := Define(TypedTool[node, int]{Name: "t", Execute: func(context.Context, node, RunContext) (int, error) { return 0, nil }})
			return err
		}, "unsupported JSON schema: schema.properties.kids.items is circular"},
		{"enum tag of the wrong type", func() error {
			_, err := Define(TypedTool[badEnum, int]{Name: "t", Execute: func(context.Context, badEnum, RunContext) (int, error) { return 0, nil }})
			return err
		}, "unsupported JSON schema: schema.properties.n.enum must be a non-empty array of integer values"},
		{"non-struct arguments", func() error {
			_, err := Define(TypedTool[string, int]{Name: "t", Execute: func(context.Context, string, RunContext) (int, error) { return 0, nil }})
			return err
		}, "defineTool(t): arguments type string must be a struct"},
		{"missing execute", func() error {
			_, err := Define(TypedTool[struct{}, int]{Name: "t"})
			return err
		}, "defineTool(t): execute is required"},
		{"channel output", func() error {
			_, err := Define(TypedTool[struct{}, chan int]{Name: "t", Execute: func(context.Context, struct{}, RunContext) (chan int, error) { return nil, nil }})
			return err
		}, "unsupported JSON schema: schema: Go type chan int has no JSON schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2 { // a failure is not cached as a schema
				err := tc.define()
				if err == nil || err.Error() != tc.want {
					t.Errorf("got %v, want %q", err, tc.want)
				}
			}
		})
	}
}

func TestSpecFor(t *testing.T) {
	type embedded struct {
		E string `json:"e"`
	}
	type all struct {
		embedded
		S      string         `json:"s" title:"S"`
		P      *int           `json:"p"`
		F      float64        `json:"f,omitzero"`
		B      []byte         `json:"b"`
		L      []string       `json:"l"`
		M      map[string]int `json:"m"`
		V      jsonv.Value    `json:"v"`
		A      any            `json:"a"`
		K      string         `json:"k" enum:"x,y"`
		Hidden string         `json:"-"`
		NoTag  bool
		unexp  int
		Nested struct{ X int } `json:"nested"`
	}
	s, err := SpecFor(reflect.TypeFor[all]())
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Compile()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","additionalProperties":false,"properties":{"e":{"type":"string"},"s":{"type":"string","title":"S"},"p":{"oneOf":[{"type":"integer"},{"type":"null"}]},"f":{"type":"number"},"b":{"type":"string"},"l":{"type":"array","items":{"type":"string"}},"m":{"type":"object","additionalProperties":true},"v":{},"a":{},"k":{"type":"string","enum":["x","y"]},"NoTag":{"type":"boolean"},"nested":{"type":"object","additionalProperties":false,"properties":{"X":{"type":"integer"}},"required":["X"]}},"required":["e","s","p","b","l","m","v","a","k","NoTag","nested"]}`
	if got := c.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	_ = all{}.unexp
}

// TestDefine_ValueHandedBack: Render and PresentationMeta get the very Go
// value Execute returned (no JSON round trip), and a value from anywhere
// else (a log, a post-execute replacement) decoded.
func TestDefine_ValueHandedBack(t *testing.T) {
	type out struct {
		Lines []string `json:"lines"`
	}
	lines := []string{"a", "b"}
	var rendered, meta []string
	tool, err := Define(TypedTool[struct{}, out]{
		Name:    "lines",
		Execute: func(context.Context, struct{}, RunContext) (out, error) { return out{Lines: lines}, nil },
		Render: func(_ struct{}, o out) ([]card.Content, error) {
			rendered = o.Lines
			return []card.Content{card.Text(strings.Join(o.Lines, ","))}, nil
		},
		PresentationMeta: func(_ struct{}, o out, _ jsonv.Value) (jsonv.Value, error) {
			meta = o.Lines
			return jsonv.FromGo(len(o.Lines))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	args := jsonv.MustParse(`{}`)
	v, err := tool.Execute(context.Background(), args, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		value jsonv.Value
		same  bool
	}{
		{"executed value", v, true},
		{"logged value", jsonv.MustParse(v.String()), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rendered, meta = nil, nil
			blocks, err := tool.Output.Render(args, tc.value)
			if err != nil || blocks[0].TextValue() != "a,b" {
				t.Fatalf("render: %v %v", blocks, err)
			}
			if _, err := tool.Output.PresentationMeta(args, tc.value); err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string][]string{"Render": rendered, "PresentationMeta": meta} {
				if same := len(got) == 2 && &got[0] == &lines[0]; same != tc.same {
					t.Errorf("%s got Execute's own slice: %v, want %v", name, same, tc.same)
				}
			}
		})
	}
}

// A typed tool whose output schema is replaced after Define is compiled
// again at registration: the schema Define derived must not stand in for
// the one the tool now declares.
func TestDefine_ReplacedOutputSchemaIsCompiled(t *testing.T) {
	tool := defineEdit(t)
	tool.Output.Schema = jsonv.MustParse(`{"type":"object","patternProperties":{"x":{}}}`)
	_, err := New().Register(tool, nil)
	if !errors.Is(err, ErrUnsupportedSchema) {
		t.Fatalf("got %v, want an UNSUPPORTED_SCHEMA error for the replaced schema", err)
	}
}
