package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParse_Accepts(t *testing.T) {
	for _, tc := range []struct {
		name, in, canonical string
	}{
		{"null", "null", "null"},
		{"true", " true ", "true"},
		{"false", "false", "false"},
		{"zero", "0", "0"},
		{"positive zero fraction", "0.0", "0.0"},
		{"integer", "42", "42"},
		{"negative", "-17", "-17"},
		{"fraction", "3.25", "3.25"},
		{"exponent", "1e3", "1e3"},
		{"exponent upper signed", "1E+3", "1E+3"},
		{"big integer beyond 2^53 kept exactly", "12345678901234567890123", "12345678901234567890123"},
		{"max float", "1.7976931348623157e308", "1.7976931348623157e308"},
		{"underflow keeps its text", "1e-400", "1e-400"},
		{"string", `"hi"`, `"hi"`},
		{"escapes decoded and re-encoded minimally", `"a\/b\u0041\n\t\"\\"`, `"a/bA\n\t\"\\"`},
		{"control escaped as u00XX", `"\u0001"`, `"\u0001"`},
		{"surrogate pair", `"\ud83d\ude00"`, `"😀"`},
		{"raw non-ASCII", `"héllo"`, `"héllo"`},
		{"empty array", "[ ]", "[]"},
		{"empty object", "{ }", "{}"},
		{"nested", ` {"a" : [1, {"b":null}], "c":"d"} `, `{"a":[1,{"b":null}],"c":"d"}`},
		{"member order kept", `{"z":1,"a":2,"1":3}`, `{"z":1,"a":2,"1":3}`},
		{"many keys use index", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseString(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := v.String(); got != tc.canonical {
				t.Errorf("got %s, want %s", got, tc.canonical)
			}
			again, err := Parse(v.Bytes())
			if err != nil || !again.Equal(v) {
				t.Errorf("re-parse of %s: %v, equal=%v", v, err, again.Equal(v))
			}
		})
	}
}

func TestParse_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantErr string
	}{
		{"empty", "", "unexpected end"},
		{"whitespace only", "  ", "unexpected end"},
		{"duplicate key", `{"a":1,"a":2}`, `duplicate object key "a"`},
		{"duplicate key after escape", `{"a":1,"\u0061":2}`, `duplicate object key "a"`},
		{"duplicate key in large object", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k0":12}`, "duplicate object key"},
		{"negative zero", "-0", "negative zero"},
		{"negative zero fraction", "-0.0", "negative zero"},
		{"negative zero exponent", "-0e3", "negative zero"},
		{"negative zero in array", "[1,-0.000e-5]", "negative zero"},
		{"negative underflow is negative zero", "-1e-400", "negative zero"},
		{"negative underflow in an object", `{"a":-2.5e-330}`, "negative zero"},
		{"overflow", "1e309", "finite float64 range"},
		{"negative overflow", "-1.8e308", "finite float64 range"},
		{"leading zero", "01", "trailing data"},
		{"leading plus", "+1", "unexpected character"},
		{"bare dot", "1.", "invalid number"},
		{"NaN literal", "NaN", "unexpected character"},
		{"Infinity literal", "Infinity", "unexpected character"},
		{"invalid UTF-8 in string", "\"\xff\"", "not valid UTF-8"},
		{"invalid UTF-8 after escape", "\"\\n\xff\"", "not valid UTF-8"},
		{"lone high surrogate", `"\ud800"`, "lone surrogate"},
		{"lone low surrogate", `"\udc00"`, "lone surrogate"},
		{"high then non-low", `"\ud800\u0041"`, "lone surrogate"},
		{"trailing data", `{} {}`, "trailing data"},
		{"trailing comma array", `[1,]`, "unexpected character"},
		{"trailing comma object", `{"a":1,}`, "expected a string object key"},
		{"unterminated string", `"abc`, "unterminated"},
		{"raw control char", "\"a\nb\"", "control character"},
		{"bad escape", `"\x"`, "invalid escape"},
		{"bad unicode escape", `"\u12g4"`, "invalid \\u escape"},
		{"single quotes", `'a'`, "unexpected character"},
		{"missing colon", `{"a" 1}`, "expected ':'"},
		{"unclosed array", `[1,2`, "unexpected end"},
		{"wrong closer", `[1}`, "expected ',' or ']'"},
		{"bad literal", `tru`, "invalid literal"},
		{"comment", `// x`, "unexpected character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseString(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want error containing %q", tc.in, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %q, want it to contain %q", err, tc.wantErr)
			}
			if !errors.Is(err, ErrNotLossless) {
				t.Errorf("error %v does not wrap ErrNotLossless", err)
			}
		})
	}
}

func TestParse_DeepNestingIsIterative(t *testing.T) {
	const depth = 200_000
	in := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	v, err := ParseString(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Bytes(); !bytes.Equal(got, []byte(in)) {
		t.Errorf("deep array did not round-trip")
	}
	obj := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	v, err = ParseString(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Equal(v) || string(v.Bytes()) != obj {
		t.Errorf("deep object did not round-trip")
	}
}

func TestValue_Equal(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"same integer different spelling", "1", "1.0", true},
		{"exponent spelling", "1e2", "100", true},
		{"fraction spelling", "0.5", "5e-1", true},
		{"zero spellings", "0", "0e10", true},
		{"different numbers", "1", "2", false},
		{"big integers differ in last digit", "12345678901234567891", "12345678901234567890", false},
		{"object order ignored", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{"object member differs", `{"a":1}`, `{"a":2}`, false},
		{"object extra key", `{"a":1}`, `{"a":1,"b":1}`, false},
		{"array order matters", `[1,2]`, `[2,1]`, false},
		{"kinds differ", `"1"`, `1`, false},
		{"null equals null", `null`, `null`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MustParse(tc.a).Equal(MustParse(tc.b)); got != tc.want {
				t.Errorf("Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestValue_Numbers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		isInteger bool
		int64     int64
		fits      bool
	}{
		{"small", "7", true, 7, true},
		{"integral fraction", "7.0", true, 7, true},
		{"exponent integer", "1.5e1", true, 15, true},
		{"fraction", "7.5", false, 0, false},
		{"negative exponent fraction", "15e-1", false, 0, false},
		{"beyond int64 still integer", "123456789012345678901234567890", true, 0, false},
		{"max int64", "9223372036854775807", true, math.MaxInt64, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := MustParse(tc.in)
			if got := v.IsInteger(); got != tc.isInteger {
				t.Errorf("IsInteger = %v, want %v", got, tc.isInteger)
			}
			i, ok := v.Int()
			if ok != tc.fits || (ok && i != tc.int64) {
				t.Errorf("Int = %d, %v; want %d, %v", i, ok, tc.int64, tc.fits)
			}
		})
	}
}

func TestFromGo(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	cyclicSlice := []any{nil}
	cyclicSlice[0] = cyclicSlice
	shared := map[string]any{"x": 1}
	for _, tc := range []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "null", ""},
		{"bool", true, "true", ""},
		{"int", 42, "42", ""},
		{"uint64 max", uint64(math.MaxUint64), "18446744073709551615", ""},
		{"float", 1.5, "1.5", ""},
		{"large float uses exponent", 1e21, "1e+21", ""},
		{"small float uses exponent", 1e-7, "1e-7", ""},
		{"NaN rejected", math.NaN(), "", "NaN"},
		{"Inf rejected", math.Inf(1), "", "NaN and infinities"},
		{"negative zero rejected", math.Copysign(0, -1), "", "negative zero"},
		{"invalid UTF-8 rejected", "\xff", "", "not valid UTF-8"},
		{"map sorted keys", map[string]any{"b": 1, "a": []any{"x"}}, `{"a":["x"],"b":1}`, ""},
		{"shared sibling is fine", []any{shared, shared}, `[{"x":1},{"x":1}]`, ""},
		{"cyclic map rejected", cyclic, "", "cyclic object"},
		{"cyclic slice rejected", cyclicSlice, "", "cyclic array"},
		{"struct via encoding/json", inner{N: 3}, `{"n":3}`, ""},
		{"json.Number kept", json.Number("12345678901234567890"), "12345678901234567890", ""},
		{"raw message parsed strictly", json.RawMessage(`{"a":1,"a":2}`), "", "duplicate"},
		{"func rejected", func() {}, "", "not JSON"},
		{"absent Value rejected", Value{}, "", "absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := FromGo(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want error containing %q", v, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestValue_ImmutableAccessors(t *testing.T) {
	v := MustParse(`[1,2,3]`)
	items := v.Items()
	items[0] = MustParse(`"changed"`)
	if v.String() != "[1,2,3]" {
		t.Errorf("mutating Items() changed the value: %s", v)
	}
	if _, err := ObjectValue(Member{"a", IntValue(1)}, Member{"a", IntValue(2)}); err == nil {
		t.Errorf("ObjectValue accepted a duplicate key")
	}
	if _, err := ArrayValue(Value{}); err == nil {
		t.Errorf("ArrayValue accepted an absent item")
	}
}

func TestValue_JSONInterop(t *testing.T) {
	type wire struct {
		V Value `json:"v"`
		W Value `json:"w,omitzero"`
	}
	var w wire
	if err := json.Unmarshal([]byte(`{"v":{"n":12345678901234567890}}`), &w); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"v":{"n":12345678901234567890}}` {
		t.Errorf("got %s", out)
	}
	if err := json.Unmarshal([]byte(`{"v":-0}`), &w); err == nil {
		t.Errorf("UnmarshalJSON accepted negative zero")
	}
	if _, err := json.Marshal(struct{ V Value }{}); err == nil {
		t.Errorf("marshalling an absent Value without omitzero succeeded")
	}
}
