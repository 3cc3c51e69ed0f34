package jsonv

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeArgs is shaped as tool arguments are.
type decodeArgs struct {
	FilePath string   `json:"file_path"`
	Offset   *float64 `json:"offset,omitempty"`
	Limit    *int     `json:"limit,omitempty"`
	All      bool     `json:"replace_all"`
	Small    int8     `json:"small"`
	Count    uint16   `json:"count"`
	Ratio    float32  `json:"ratio"`
	Note     *string  `json:"note"`
	hidden   string
	Skipped  string `json:"-"`
	Plain    string
}

// textField unmarshals itself: a struct holding one is left to
// encoding/json.
type textField struct{ s string }

func (t *textField) UnmarshalText(b []byte) error { t.s = "text:" + string(b); return nil }

type withText struct {
	Name textField `json:"name"`
}

type withSlice struct {
	Paths []string `json:"paths"`
	Name  string   `json:"name"`
}

// decodeCases are objects and values for the differential tests.
var decodeCases = []string{
	`{"file_path":"a.go"}`,
	`{"file_path":"a.go","offset":3,"limit":20}`,
	`{"file_path":"é \"q\" \n","offset":1.5e3,"replace_all":true}`,
	`{"file_path":null,"offset":null,"note":null}`,
	`{"File_Path":"case"}`,
	`{"FILE_PATH":"upper","file_path":"exact"}`,
	`{"file_path":"exact","FILE_PATH":"upper"}`,
	`{"plain":"folded","Plain":"exact"}`,
	`{"unknown":1,"other":{"x":[1,2]},"file_path":"kept"}`,
	`{"ſile_path":"a long s folds to s"}`,
	`{"hidden":"unexported","-":"dash","Skipped":"skipped"}`,
	`{"file_path":1}`,
	`{"replace_all":"true"}`,
	`{"small":127,"count":65535}`,
	`{"small":128}`,
	`{"small":-129}`,
	`{"count":-1}`,
	`{"count":1.0}`,
	`{"limit":1e2}`,
	`{"limit":9223372036854775808}`,
	`{"ratio":3.5e38}`,
	`{"ratio":1e-50}`,
	`{"file_path":["a"]}`,
	`{"file_path":{"a":1}}`,
	`[]`,
	`"text"`,
	`null`,
	`{}`,
}

// TestDecode_AsEncodingJSON: Decode leaves a target as encoding/json does,
// and fails where it fails, for every case, into targets fresh and
// already filled.
func TestDecode_AsEncodingJSON(t *testing.T) {
	filled := func() decodeArgs {
		off, lim, note := 7.0, 9, "before"
		return decodeArgs{FilePath: "before", Offset: &off, Limit: &lim, Note: &note, Small: 1, Plain: "p"}
	}
	for _, src := range decodeCases {
		for _, start := range []struct {
			name string
			make func() decodeArgs
		}{{"fresh", func() decodeArgs { return decodeArgs{} }}, {"filled", filled}} {
			t.Run(start.name+"/"+src, func(t *testing.T) {
				got, want := start.make(), start.make()
				sameDecode(t, src, &got, &want)
			})
		}
	}
	for _, tc := range []struct {
		name      string
		src       string
		got, want any
	}{
		{"a field that unmarshals itself", `{"name":"x"}`, &withText{}, &withText{}},
		{"a slice field", `{"paths":["a","b"],"name":"n"}`, &withSlice{}, &withSlice{}},
		{"a map target", `{"a":"b"}`, &map[string]string{}, &map[string]string{}},
		{"a non-pointer target", `{"file_path":"a"}`, decodeArgs{}, decodeArgs{}},
		{"a nil pointer target", `{"file_path":"a"}`, (*decodeArgs)(nil), (*decodeArgs)(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) { sameDecode(t, tc.src, tc.got, tc.want) })
	}
}

// sameDecode decodes src into got with Decode and into want with
// encoding/json, and fails unless both end the same, errors included.
func sameDecode(t *testing.T, src string, got, want any) {
	t.Helper()
	v, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", src, err)
	}
	gerr := v.Decode(got)
	werr := json.Unmarshal([]byte(src), want)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Errorf("Decode(%s): error %v, encoding/json %v", src, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode(%s):\n got %s\nwant %s", src, show(got), show(want))
	}
}

func show(x any) string {
	rv := reflect.ValueOf(x)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return fmt.Sprintf("%#v", x)
	}
	var b strings.Builder
	for i := range rv.NumField() {
		f := rv.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() && f.CanInterface() {
			fmt.Fprintf(&b, "%s:&%v ", rv.Type().Field(i).Name, f.Elem())
		} else {
			fmt.Fprintf(&b, "%s:%v ", rv.Type().Field(i).Name, f)
		}
	}
	return b.String()
}

// TestDecode_Fast: the plain cases do take the direct way (else the
// differential test would pass with every decoding left to encoding/json).
func TestDecode_Fast(t *testing.T) {
	for _, tc := range []struct {
		src  string
		fast bool
	}{
		{`{"file_path":"a.go","offset":3,"limit":20,"note":null,"unknown":[1]}`, true},
		{`{"small":128}`, false},
		{`{"File_Path":"a"}`, false},
		{`{"file_path":1}`, false},
	} {
		v := MustParse(tc.src)
		var a decodeArgs
		if got := decodeFast(v, &a); got != tc.fast {
			t.Errorf("decodeFast(%s) = %v, want %v", tc.src, got, tc.fast)
		}
		if !tc.fast && !reflect.DeepEqual(a, decodeArgs{}) {
			t.Errorf("decodeFast(%s) refused, but wrote %+v", tc.src, a)
		}
	}
	if decodeFast(MustParse(`{"name":"x"}`), &withText{}) || decodeFast(MustParse(`{"name":"x"}`), &withSlice{}) {
		t.Error("decodeFast took a struct that is not plain")
	}
}

func FuzzDecode(f *testing.F) {
	for _, src := range decodeCases {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := Parse([]byte(src)); err != nil {
			return
		}
		var got, want decodeArgs
		sameDecode(t, src, &got, &want)
	})
}

// BenchmarkDecodeArgs decodes a read's arguments, as every call does
// several times.
func BenchmarkDecodeArgs(b *testing.B) {
	v := MustParse(`{"file_path":"internal/server/handler.go","offset":120,"limit":100}`)
	b.Run("jsonv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a decodeArgs
			if err := v.Decode(&a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a decodeArgs
			if err := json.Unmarshal(v.AppendJSON(nil), &a); err != nil {
				b.Fatal(err)
			}
		}
	})
}
