// Package registry holds tool definitions and everything that describes them:
// the [Tool] definition and its output contract, the value-schema DSL
// ([Spec], [CompileParams]) and the typed path ([Define], [SpecFor]), the
// enforced JSON Schema subset ([CompileSchema], [Schema.Validate]), and the
// scoped [Registry] with restrictions, presentation modes, execution-mode
// classification and change notifications.
//
// # The enforced subset
//
// Schemas may use type (one of object, array, string, number, integer,
// boolean, null), oneOf (two or more branches, exactly one must match),
// properties, required, additionalProperties (a boolean), items (one
// schema), enum and const (typed scalars), and the annotations description,
// title, default and examples. Anything else is rejected with every
// violation listed, path-qualified, in one UNSUPPORTED_SCHEMA [*Error]. A
// node with neither type nor oneOf accepts any lossless JSON value. Both the
// subset check and value validation keep their own stacks.
//
// # Scopes
//
// There is one global layer and a layer per [Scope]; scopes form parent
// chains. A scope sees the global layer and its ancestors' layers (nearer
// shadows farther), filtered by every [Restriction] on its chain, and then
// its own registrations, which are never filtered and shadow inherited tools
// whatever the registration order. The name run_code is reserved for Code
// Mode and can be neither registered nor restricted.
//
// # Errors
//
// Definition mistakes (duplicates, reserved names, bad restrictions, a
// missing output contract) wrap [ErrInvalidDefinition] and carry the
// reference implementation's exact messages. Schema, argument and output
// failures are [*Error] values with the contract's Name and Code, matching
// the sentinels [ErrUnsupportedSchema], [ErrInvalidArgs] and
// [ErrInvalidToolOutput] under errors.Is.
//
// # Presentation
//
// [Presenter] asks the tool a scope sees for its pending and completed
// cards, with the generic fallbacks (a tool that is not visible, has no
// presenter, returns nil or panics) and the orphan guard (a terminal result
// only for a terminal call). Presenters are pure, so session replay
// recomputes the same cards from the log. [CallArgs] turns a call's raw
// argument text into the value presenters see.
//
// # Immutability
//
// Values ([jsonv.Value]), content blocks and compiled schemas are immutable;
// the registry keeps its own copy of each registered [Tool]; results handed
// out by the pipeline are private copies ([Result.Clone]). No consumer can
// change what another consumer sees.
package registry
