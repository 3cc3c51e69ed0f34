package registry

import (
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Test-only helpers of the package.

// MustCompileSchema is CompileSchema for schemas known to be valid; it panics
// otherwise.
func MustCompileSchema(raw jsonv.Value) *Schema {
	s, err := CompileSchema(raw)
	if err != nil {
		panic(err)
	}
	return s
}
