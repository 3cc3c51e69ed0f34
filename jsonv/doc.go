// Package jsonv is the lossless JSON value every layer of dsh-bridge shares:
// tool arguments, canonical values, content blocks, presentation meta and
// wire payloads.
//
// [Parse] accepts exactly lossless JSON: no duplicate object keys, no
// negative zero in any spelling, only numbers in the finite float64 range,
// valid UTF-8 without lone surrogate escapes, and no trailing data. A
// [Value] is immutable: it has no mutating methods and hands out copies of
// its containers, so one consumer can never change what another sees.
// Numbers keep their source text, so integers beyond 2^53 survive exactly
// (stricter and better than the JavaScript reference, whose numbers are
// float64). Parsing and encoding keep their own stacks, so nesting depth is
// bounded by memory, not by the goroutine stack.
//
// [FromGo] snapshots Go data (maps, slices, scalars, and anything
// encoding/json marshals) into a Value with the same rules, rejecting NaN,
// infinities, negative zero and cycles. A type that implements [Converter]
// builds its own Value, in bulk through a [Block] (a file's lines: a few
// allocations instead of several per line).
package jsonv
