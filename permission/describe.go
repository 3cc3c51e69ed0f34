package permission

import "strings"

// describeCommandKey says what a command key (commandKey) covers: a
// program, or a program and its subcommand, with any arguments; or, for
// "=", exactly the words given.
func describeCommandKey(key string) string {
	_, rest, _ := strings.Cut(key, ":")
	if exact, ok := strings.CutPrefix(rest, "="); ok {
		return "exactly " + exact
	}
	return rest + ", with any arguments"
}

// describeKey says what a key of a call that is no command covers: a
// tool's calls on one host ("web_fetch:example.com"), or all its calls.
func describeKey(key string) string {
	tool, host, ok := strings.Cut(key, ":")
	if !ok {
		return "every " + tool + " call"
	}
	return tool + " from " + host
}
