package registry

import (
	"errors"
	"fmt"
)

// InstallCodeMode installs t as the run_code transport (contract §2.10):
// it is visible to every scope whose effective presentation is Code or
// Both, appended after the scope's tools, never filtered by restrictions
// and never shadowable. It may be installed once; it implies
// [WithCodeMode].
func (r *Registry) InstallCodeMode(t *Tool) error {
	if t == nil || t.Name != RunCodeName {
		return invalidDef("registry: the Code Mode transport must be named run_code")
	}
	e, err := compileTool(t)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runCode != nil {
		return invalidDef("registry: run_code is already installed")
	}
	r.runCode, r.codeMode = e, true
	return nil
}

// effective is EffectivePresentation with r.mu held.
func (r *Registry) effective(scope *Scope) Presentation {
	for s := scope; s != nil; s = s.parent {
		if s.mode != "" {
			return s.mode
		}
	}
	return r.defaultMode
}

// codeTransport returns run_code when scope presents it (r.mu held).
func (r *Registry) codeTransport(scope *Scope) *Tool {
	if r.runCode == nil || r.effective(scope) == Native {
		return nil
	}
	return r.runCode
}

// ModelSchemas returns the tools scope's model is offered, by its
// presentation: Native, every visible schema; Code, only run_code; Both,
// every visible schema with run_code last. (Schemas lists everything a
// scope can dispatch, the program's bindings included.)
func (r *Registry) ModelSchemas(scope *Scope) []ToolSchema {
	all := r.Schemas(scope)
	if r.EffectivePresentation(scope) != Code {
		return all
	}
	for _, s := range all {
		if s.Name == RunCodeName {
			return []ToolSchema{s}
		}
	}
	return all
}

// routeMessage is the UNKNOWN_TOOL message of a collapsed direct call.
func routeMessage(name string) string {
	return fmt.Sprintf("unknown tool %q: only `run_code` is callable directly — call `%s` from inside a `run_code` program instead", name, name)
}

// Collapsed returns the UNKNOWN_TOOL error for a model-direct call (one
// without a parent) of a tool scope sees only through run_code: its
// presentation is Code and the name is visible and not run_code. Nil
// otherwise.
func (r *Registry) Collapsed(name string, scope *Scope) *Error {
	if name == RunCodeName || r.EffectivePresentation(scope) != Code || r.Get(name, scope) == nil {
		return nil
	}
	return &Error{Name: "ToolNotFoundError", Code: CodeUnknownTool, Message: routeMessage(name)}
}

// ErrCodeRunFailed is the sentinel of a failed run_code program.
var ErrCodeRunFailed = errors.New(CodeCodeRunFailed)

// CodeCodeRunFailed is the error code of a failed run_code program.
const CodeCodeRunFailed = "CODE_RUN_FAILED"
