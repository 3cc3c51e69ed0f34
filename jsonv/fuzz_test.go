package jsonv

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse checks that the parser never panics, is deterministic, that
// whatever parses re-encodes to bytes that parse to an equal value whose
// encoding is a fixed point, and that it never accepts what encoding/json
// rejects as JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`null`, `{"a":[1,2,{"b":"c"}]}`, `-0`, `1e309`, `"\ud800"`, `{"a":1,"a":2}`,
		`12345678901234567890`, `[[[[]]]]`, `"\u00e9\n"`, "\"\xff\"", `{"":""}`, `0.5e-3`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v1, err1 := Parse(data)
		v2, err2 := Parse(data)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("non-deterministic verdict: %v vs %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		enc := v1.Bytes()
		back, err := Parse(enc)
		if err != nil {
			t.Fatalf("canonical bytes %q do not parse: %v", enc, err)
		}
		if !back.Equal(v1) || !v1.Equal(v2) {
			t.Fatalf("round trip changed the value: %s vs %s", v1, back)
		}
		if again := back.Bytes(); !bytes.Equal(again, enc) {
			t.Fatalf("canonical encoding is not a fixed point: %q vs %q", enc, again)
		}
	})
}
