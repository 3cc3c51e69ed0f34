package golex

// Type is a token's type: the subset of chroma's token types that its Go
// lexer makes. [Type.String] is chroma's name for it, which is what a
// card's spans carry.
type Type uint8

// The types, in no particular order; None is no token.
const (
	None Type = iota
	Error
	TextWhitespace
	CommentSingle
	CommentMultiline
	CommentPreproc
	Keyword
	KeywordConstant
	KeywordDeclaration
	KeywordNamespace
	KeywordType
	NameBuiltin
	NameFunction
	NameOther
	LiteralString
	LiteralStringChar
	LiteralNumber
	LiteralNumberBin
	LiteralNumberFloat
	LiteralNumberHex
	LiteralNumberInteger
	LiteralNumberOct
	Operator
	Punctuation
	numTypes
)

// NumTypes bounds the types: every token's is below it.
const NumTypes = int(numTypes)

var names = [numTypes]string{
	None:                 "None",
	Error:                "Error",
	TextWhitespace:       "TextWhitespace",
	CommentSingle:        "CommentSingle",
	CommentMultiline:     "CommentMultiline",
	CommentPreproc:       "CommentPreproc",
	Keyword:              "Keyword",
	KeywordConstant:      "KeywordConstant",
	KeywordDeclaration:   "KeywordDeclaration",
	KeywordNamespace:     "KeywordNamespace",
	KeywordType:          "KeywordType",
	NameBuiltin:          "NameBuiltin",
	NameFunction:         "NameFunction",
	NameOther:            "NameOther",
	LiteralString:        "LiteralString",
	LiteralStringChar:    "LiteralStringChar",
	LiteralNumber:        "LiteralNumber",
	LiteralNumberBin:     "LiteralNumberBin",
	LiteralNumberFloat:   "LiteralNumberFloat",
	LiteralNumberHex:     "LiteralNumberHex",
	LiteralNumberInteger: "LiteralNumberInteger",
	LiteralNumberOct:     "LiteralNumberOct",
	Operator:             "Operator",
	Punctuation:          "Punctuation",
}

// Inline reports the types whose tokens are always non-empty, ASCII, on
// one line and not white space, so that a token's length in bytes is its
// width in columns of any unit: the keywords, names, numbers, operators,
// punctuation and errors (the lexer refuses text that is not ASCII
// outside comments and literals). The tests hold the lexer to it over
// the Go tree's sources, the cases and the fuzzer's texts (sameAsChroma).
func Inline(t Type) bool {
	switch t {
	case Keyword, KeywordConstant, KeywordDeclaration, KeywordNamespace, KeywordType,
		NameBuiltin, NameFunction, NameOther,
		LiteralNumber, LiteralNumberBin, LiteralNumberFloat, LiteralNumberHex, LiteralNumberInteger, LiteralNumberOct,
		Operator, Punctuation, Error:
		return true
	}
	return false
}

// String is chroma's name of the type ("KeywordDeclaration").
func (t Type) String() string {
	if t < numTypes {
		return names[t]
	}
	return "None"
}

// keyword is the type chroma's Go rules give a word of their four keyword
// lists (disjoint, so their order does not matter), None for any other.
// Switches, not maps: nothing is built when the package initialises.
func keyword(w string) Type {
	switch w {
	case "import", "package":
		return KeywordNamespace
	case "var", "func", "struct", "map", "chan", "type", "interface", "const":
		return KeywordDeclaration
	case "break", "default", "select", "case", "defer", "go", "else", "goto", "switch", "fallthrough", "if", "range", "continue", "for", "return":
		return Keyword
	case "true", "false", "iota", "nil":
		return KeywordConstant
	}
	return None
}

// builtinCall reports a word chroma's rules call a builtin when "(" follows:
// the basic types but any, and the builtin functions.
func builtinCall(w string) bool {
	switch w {
	case "print", "println", "panic", "recover", "close", "complex", "real", "imag",
		"len", "cap", "append", "copy", "delete", "new", "make", "clear", "min", "max":
		return true
	}
	return w != "any" && basicType(w)
}

// basicType reports a word chroma's rules call a type.
func basicType(w string) bool {
	switch w {
	case "uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64",
		"float", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool",
		"error", "uintptr", "any":
		return true
	}
	return false
}
