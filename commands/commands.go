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
	docs, problems := LoadDocs(src, "commands")
	for _, d := range docs {
		if _, builtin := Find(cmds, d.Name); builtin {
			problems = append(problems, fmt.Errorf("%s: /%s is a built-in command; the file is not loaded", d.Path, d.Name))
			continue
		}
		c := fromDoc(d)
		c.Name = d.Name
		cmds = append(cmds, c)
	}
	return cmds, problems
}

// Doc is one Markdown file with an optional front matter: the shape of a
// custom command and of a custom agent (package subagent).
type Doc struct {
	Name  string            // the file's name without .md
	Path  string            // the file read, resolved
	Front map[string]string // the front matter's "key: value" lines, quotes trimmed
	Body  string            // the text after the front matter, trimmed
}

// LoadDocs returns the NAME.md files of folder (a folder name such as
// "commands" or "agents") in the user's configuration folder and, for a
// trusted workspace only, in its roots' .dsh/ folders, sorted by name: a
// workspace's file takes the place of the user's of the same name, and
// the first root's wins. Workspace files are read through the
// workspace's rules (Source.Check, the workspace bound). Each file not
// loaded is a problem.
func LoadDocs(src Source, folder string) (docs []Doc, problems []error) {
	found := map[string]Doc{}
	if src.UserDir != "" {
		problems = append(problems, loadDir(filepath.Join(src.UserDir, folder), func(string) error { return nil }, found)...)
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
		for i := len(roots) - 1; i >= 0; i-- { // the first root's files win
			problems = append(problems, loadDir(filepath.Join(roots[i], ".dsh", folder), judge, found)...)
		}
	}
	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		docs = append(docs, found[name])
	}
	return docs, problems
}

// loadDir adds dir's NAME.md files to into, replacing what it held.
func loadDir(dir string, check func(string) error, into map[string]Doc) (problems []error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no folder, no files
	}
	for _, e := range entries {
		name, isMD := strings.CutSuffix(e.Name(), ".md")
		if !isMD || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !ValidName(name) {
			problems = append(problems, fmt.Errorf("%s: %q is not a valid name (letters, digits, -, _, :)", path, name))
			continue
		}
		d, err := ReadDoc(path, check)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		d.Name = name
		into[name] = d
	}
	return problems
}

// ReadDoc reads the Markdown file path once check has judged the file it
// leads to (at most [MaxBytes]); check's error is returned and nothing is
// read. The Doc's Name is left to the caller.
func ReadDoc(path string, check func(real string) error) (Doc, error) {
	real, b, _, err := workspace.ReadJudged(path, MaxBytes, check)
	if err != nil {
		return Doc{}, err
	}
	if len(b) > MaxBytes {
		return Doc{}, fmt.Errorf("%s: larger than %d bytes; the file is not loaded", path, MaxBytes)
	}
	d := parseDoc(string(b))
	d.Path = real
	return d, nil
}

// parseDoc reads a file's front matter (a first line "---", "key: value"
// lines, a line "---") and its body.
func parseDoc(text string) Doc {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	d := Doc{Front: map[string]string{}}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if head, body, ok := strings.Cut(rest, "\n---"); ok {
			body, _ = strings.CutPrefix(body, "\n")
			for _, line := range strings.Split(head, "\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				d.Front[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
			}
			text = body
		}
	}
	d.Body = strings.TrimSpace(text)
	return d
}

// fromDoc is the command a file describes.
func fromDoc(d Doc) Command {
	c := Command{Description: d.Front["description"], Hint: d.Front["argument-hint"], Prompt: d.Body, Path: d.Path}
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
