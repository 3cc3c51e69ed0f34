package registry

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The edit tool's parameters (contract §4) and a realistic argument object.
const (
	benchEditSchema = `{"type":"object","properties":{"file_path":{"type":"string","description":"absolute path of the file to edit"},"old_string":{"type":"string","description":"the exact text to replace"},"new_string":{"type":"string","description":"the replacement text"},"replace_all":{"type":"boolean","description":"replace every occurrence"}},"required":["file_path","old_string","new_string"]}`
	benchEditArgs   = `{"file_path":"/home/user/project/src/main.go","old_string":"func main() {\n\tfmt.Println(\"hello\")\n}","new_string":"func main() {\n\tfmt.Println(\"hello, world\")\n}","replace_all":false}`
)

// BenchmarkValidateEditArgs compares our subset validator with
// santhosh-tekuri/jsonschema/v6 on the same schema and value. "validate"
// measures validation of an already-decoded value; "decode+validate"
// includes turning the model's bytes into that value.
func BenchmarkValidateEditArgs(b *testing.B) {
	ours := MustCompileSchema(jsonv.MustParse(benchEditSchema))
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(benchEditSchema)))
	if err != nil {
		b.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("edit.json", doc); err != nil {
		b.Fatal(err)
	}
	theirs, err := c.Compile("edit.json")
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(benchEditArgs)
	ourValue := jsonv.MustParse(benchEditArgs)
	theirValue, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		b.Fatal(err)
	}

	b.Run("validate/dsh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v := ours.Validate(ourValue, ""); v != nil {
				b.Fatal(v)
			}
		}
	})
	b.Run("validate/jsonschema-v6", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := theirs.Validate(theirValue); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+validate/dsh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := jsonv.Parse(args)
			if err != nil {
				b.Fatal(err)
			}
			if vs := ours.Validate(v, ""); vs != nil {
				b.Fatal(vs)
			}
		}
	})
	b.Run("decode+validate/jsonschema-v6", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
			if err != nil {
				b.Fatal(err)
			}
			if err := theirs.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSchemas100 measures the model-facing projection of 100 tools, in
// the global view and in a scope with an inherited restriction.
func BenchmarkSchemas100(b *testing.B) {
	r := New()
	for i := range 100 {
		tool := rawTool("tool_" + strconv.Itoa(i))
		tool.Parameters = jsonv.MustParse(benchEditSchema)
		if _, err := r.Register(tool, nil); err != nil {
			b.Fatal(err)
		}
	}
	parent := r.NewScope("parent", nil)
	if _, err := r.Restrict(parent, Restriction{Deny: []string{"tool_7"}}); err != nil {
		b.Fatal(err)
	}
	child := r.NewScope("child", parent)
	if _, err := r.Register(rawTool("own"), child); err != nil {
		b.Fatal(err)
	}
	b.Run("global", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := len(r.Schemas(nil)); n != 100 {
				b.Fatal(n)
			}
		}
	})
	b.Run("scoped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := len(r.Schemas(child)); n != 100 {
				b.Fatal(n)
			}
		}
	})
}
