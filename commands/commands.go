package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// MaxBytes caps a custom command's file; a larger file is not loaded.
const MaxBytes = 16 * 1024

// Command is one slash command.
type Command struct {
	Name        string // without the slash
	Description string
	Hint        string // what its text means; "" for a command that takes none
	// Prompt is the text a prompt command sends to the model, $ARGUMENTS
	// standing for its arguments; "" for a built-in action the session
	// carries out itself.
	Prompt string
	Path   string // the file a custom command came from
}

// Takes reports whether the command takes text after its name.
func (c Command) Takes() bool { return c.Hint != "" }

// Expand is the prompt c sends with args: every $ARGUMENTS replaced, or,
// when the prompt has none, args on a last line of their own.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	if strings.Contains(c.Prompt, "$ARGUMENTS") {
		return strings.TrimSpace(strings.ReplaceAll(c.Prompt, "$ARGUMENTS", args))
	}
	if args == "" {
		return c.Prompt
	}
	return c.Prompt + "\n\nARGUMENTS: " + args
}

// Split reads a prompt as a command invocation: "/name args" gives name
// and args; false when text does not start with a slash and a valid name
// ending at a space or the end ("/usr/bin" is no invocation).
func Split(text string) (name, args string, ok bool) {
	rest, found := strings.CutPrefix(text, "/")
	if !found {
		return "", "", false
	}
	end := strings.IndexAny(rest, " \t\r\n")
	if end < 0 {
		end = len(rest)
	}
	name = rest[:end]
	if !ValidName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(rest[end:]), true
}

// ValidName reports whether name can be a command's name: letters,
// digits, '-', '_' and ':', at most 64 of them, not starting with '-'.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == ':':
		default:
			return false
		}
	}
	return true
}

// Find returns the command named name in cmds.
func Find(cmds []Command, name string) (Command, bool) {
	i := slices.IndexFunc(cmds, func(c Command) bool { return c.Name == name })
	if i < 0 {
		return Command{}, false
	}
	return cmds[i], true
}

// Source is where Load looks for custom commands.
type Source struct {
	// UserDir is dsh-bridge's configuration folder ("": none); its
	// commands/ folder holds the user's commands.
	UserDir string
	// Workspace and Trusted: a trusted workspace's roots' .dsh/commands/
	// hold its commands; an untrusted workspace's are not read.
	Workspace *workspace.Workspace
	Trusted   bool
	// Check is the rules' verdict on reading a resolved workspace path
	// (nil: none; the workspace bound holds whatever it says).
	Check func(real string) error
}

// Load returns the built-in commands followed by the custom ones, sorted
// by name, and a problem for each file it did not load.
func Load(src Source) (cmds []Command, problems []error) {
	cmds = Builtins()
	custom := map[string]Command{}
	if src.UserDir != "" {
		problems = append(problems, loadDir(filepath.Join(src.UserDir, "commands"), func(string) error { return nil }, custom)...)
	}
	if src.Workspace != nil && src.Trusted {
		judge := func(real string) error {
			if !src.Workspace.ContainsResolved(real) {
				return fmt.Errorf("%s: outside the workspace", real)
			}
			if src.Check != nil {
				return src.Check(real)
			}
			return nil
		}
		roots := src.Workspace.Roots()
		for i := len(roots) - 1; i >= 0; i-- { // the first root's commands win
			problems = append(problems, loadDir(filepath.Join(roots[i], ".dsh", "commands"), judge, custom)...)
		}
	}
	var names []string
	for name := range custom {
		if _, builtin := Find(cmds, name); builtin {
			problems = append(problems, fmt.Errorf("%s: /%s is a built-in command; the file is not loaded", custom[name].Path, name))
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		cmds = append(cmds, custom[name])
	}
	return cmds, problems
}

// loadDir adds dir's NAME.md files to into, replacing what it held.
func loadDir(dir string, check func(string) error, into map[string]Command) (problems []error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no folder, no commands
	}
	for _, e := range entries {
		name, isMD := strings.CutSuffix(e.Name(), ".md")
		if !isMD || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !ValidName(name) {
			problems = append(problems, fmt.Errorf("%s: %q is not a command name (letters, digits, -, _, :)", path, name))
			continue
		}
		c, err := Read(path, check)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		c.Name = name
		into[name] = c
	}
	return problems
}

// Read reads the command file path once check has judged the file it
// leads to; check's error is returned and nothing is read. The command's
// Name is left to the caller.
func Read(path string, check func(real string) error) (Command, error) {
	real, b, _, err := workspace.ReadJudged(path, MaxBytes, check)
	if err != nil {
		return Command{}, err
	}
	if len(b) > MaxBytes {
		return Command{}, fmt.Errorf("%s: larger than %d bytes; the command is not loaded", path, MaxBytes)
	}
	c := parse(string(b))
	c.Path = real
	return c, nil
}

// parse reads a command file's front matter and prompt.
func parse(text string) Command {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var c Command
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if head, body, ok := strings.Cut(rest, "\n---"); ok {
			body, _ = strings.CutPrefix(body, "\n")
			for _, line := range strings.Split(head, "\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				v = strings.Trim(strings.TrimSpace(v), `"'`)
				switch strings.TrimSpace(k) {
				case "description":
					c.Description = v
				case "argument-hint":
					c.Hint = v
				}
			}
			text = body
		}
	}
	c.Prompt = strings.TrimSpace(text)
	if c.Description == "" {
		line, _, _ := strings.Cut(c.Prompt, "\n")
		if r := []rune(line); len(r) > 80 {
			line = string(r[:79]) + "…"
		}
		c.Description = line
	}
	if c.Hint == "" && strings.Contains(c.Prompt, "$ARGUMENTS") {
		c.Hint = "arguments"
	}
	return c
}
