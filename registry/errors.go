package registry

import (
	"errors"
	"strings"
)

// Error codes of the tool system (contract §2.2). They are part of the
// public contract: models, policies and logs see them.
const (
	CodeInvalidArgs           = "INVALID_ARGS"
	CodeInvalidToolOutput     = "INVALID_TOOL_OUTPUT"
	CodeUnknownTool           = "UNKNOWN_TOOL"
	CodeUnsupportedSchema     = "UNSUPPORTED_SCHEMA"
	CodeAborted               = "ABORTED"
	CodeAbortedBeforeDispatch = "ABORTED_BEFORE_DISPATCH"
	CodeToolTimeout           = "TOOL_TIMEOUT"
)

// Sentinels, one per code, for errors.Is. A *Error with a code matches the
// sentinel of that code.
var (
	ErrInvalidArgs           = errors.New(CodeInvalidArgs)
	ErrInvalidToolOutput     = errors.New(CodeInvalidToolOutput)
	ErrUnknownTool           = errors.New(CodeUnknownTool)
	ErrUnsupportedSchema     = errors.New(CodeUnsupportedSchema)
	ErrAborted               = errors.New(CodeAborted)
	ErrAbortedBeforeDispatch = errors.New(CodeAbortedBeforeDispatch)
	ErrToolTimeout           = errors.New(CodeToolTimeout)

	// ErrInvalidDefinition wraps every rejection of a tool definition or
	// registry call that is a programming error (the reference's TypeErrors):
	// duplicates, reserved names, bad restrictions, missing output.
	ErrInvalidDefinition = errors.New("invalid tool definition")
)

var sentinelOf = map[string]error{
	CodeInvalidArgs:           ErrInvalidArgs,
	CodeInvalidToolOutput:     ErrInvalidToolOutput,
	CodeUnknownTool:           ErrUnknownTool,
	CodeUnsupportedSchema:     ErrUnsupportedSchema,
	CodeAborted:               ErrAborted,
	CodeAbortedBeforeDispatch: ErrAbortedBeforeDispatch,
	CodeToolTimeout:           ErrToolTimeout,
}

// Error is a structured tool-system error (the reference's HarnessError):
// when a tool body or policy returns one, the failed result carries its
// Name and Code as error info. Tool-owned codes (FS_NOT_FOUND, …) use it too.
type Error struct {
	Name       string   // error class, for example "ToolArgsError"
	Code       string   // machine code, for example "INVALID_ARGS"
	Message    string   // human-readable, without the "Error: " envelope
	Violations []string // individual violations, for schema and argument errors
	Err        error    // optional cause
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's code.
func (e *Error) Is(target error) bool {
	s, ok := sentinelOf[e.Code]
	return ok && s == target
}

// NewError returns a structured error with a name, code and message.
func NewError(name, code, message string) *Error {
	return &Error{Name: name, Code: code, Message: message}
}

// SchemaError returns the UNSUPPORTED_SCHEMA error for violations.
func SchemaError(violations []string) *Error {
	return &Error{
		Name:       "JsonSchemaError",
		Code:       CodeUnsupportedSchema,
		Message:    "unsupported JSON schema: " + strings.Join(violations, "; "),
		Violations: violations,
	}
}

// ArgsError returns the INVALID_ARGS error for argument violations.
func ArgsError(violations []string) *Error {
	return &Error{
		Name:       "ToolArgsError",
		Code:       CodeInvalidArgs,
		Message:    "invalid arguments: " + strings.Join(violations, "; "),
		Violations: violations,
	}
}

// OutputError returns the INVALID_TOOL_OUTPUT error of tool name.
func OutputError(name string, violations []string) *Error {
	return &Error{
		Name:       "ToolOutputError",
		Code:       CodeInvalidToolOutput,
		Message:    `tool "` + name + `" returned invalid output: ` + strings.Join(violations, "; "),
		Violations: violations,
	}
}

// UnknownToolError returns the UNKNOWN_TOOL error for name.
func UnknownToolError(name string) *Error {
	return &Error{Name: "ToolNotFoundError", Code: CodeUnknownTool, Message: `unknown tool "` + name + `"`}
}

// defError is a definition error whose message is exactly the contract's
// text and which wraps ErrInvalidDefinition.
type defError struct{ msg string }

func (e *defError) Error() string { return e.msg }
func (e *defError) Unwrap() error { return ErrInvalidDefinition }

func invalidDef(msg string) error { return &defError{msg: msg} }
