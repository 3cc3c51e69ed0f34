package tools

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// Host is how tools do I/O. Tools never touch the disk or start processes
// except through it, so the same tools run on the local machine and through
// the editor (whose unsaved buffers are what the person sees).
type Host interface {
	// ReadTextFile returns a file's text. A missing file is an error
	// wrapping fs.ErrNotExist.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile replaces a file's text, creating missing parent
	// directories.
	WriteTextFile(ctx context.Context, path, content string) error
	// Stat describes a path (following symlinks); a missing one wraps
	// fs.ErrNotExist.
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// Start runs a shell script. Its output goes to cmd.Stdout and
	// cmd.Stderr as it arrives.
	Start(ctx context.Context, cmd Command) (Process, error)
}

// TextOpener is a Host that can stream a file's text, so that a read of a
// few lines of a huge file holds only a bounded buffer in memory.
type TextOpener interface {
	// OpenText opens a file's text for reading; the caller closes it.
	OpenText(ctx context.Context, path string) (io.ReadCloser, error)
}

// regularOpener is a Host with its own openRegular (the path-rules guard
// judges the path once for the stat and the open).
type regularOpener interface {
	openRegular(ctx context.Context, path, verb string) (io.ReadCloser, error)
}

// openRegular opens a regular file's text through h for verb ("read"),
// failing with statFile's errors when it is missing or not a regular file.
func openRegular(ctx context.Context, h Host, path, verb string) (io.ReadCloser, error) {
	if o, ok := h.(regularOpener); ok {
		return o.openRegular(ctx, path, verb)
	}
	if _, err := statFile(ctx, h, path, verb); err != nil {
		return nil, err
	}
	return openText(ctx, h, path)
}

// openText streams a file's text through h: OpenText when h has it, else
// ReadTextFile.
func openText(ctx context.Context, h Host, path string) (io.ReadCloser, error) {
	if o, ok := h.(TextOpener); ok {
		return o.OpenText(ctx, path)
	}
	s, err := h.ReadTextFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

// Command is a shell script to run.
type Command struct {
	Script string
	Dir    string
	// Stdout and Stderr receive output as it arrives, possibly from other
	// goroutines (never concurrently for the same writer).
	Stdout, Stderr io.Writer
}

// Process is a started command.
type Process interface {
	// Wait blocks until the command has exited and its output is drained;
	// it may be called more than once.
	Wait() ExitStatus
	// Kill ends the command and everything it started. Idempotent.
	Kill()
	// TerminalID is the editor terminal the command runs in, or "".
	TerminalID() string
}

// ExitStatus is how a command ended: a signal name, or an exit code.
type ExitStatus struct {
	Code   int
	Signal string // "SIGKILL", …; empty when the command exited
	Err    error  // the command could not be waited for
}

// LocalHost is the Host of the local machine. Its zero value runs
// commands unsandboxed, without the API key variables of SecretEnv.
type LocalHost struct {
	// Sandbox, when set, runs every command through the sandbox helper
	// (except those started with a context from Unsandboxed).
	Sandbox *Sandbox
	// Scrub lists more environment variables commands never see.
	Scrub []string
}

// Sandbox is how a LocalHost confines commands.
type Sandbox struct {
	Helper  string // the binary that answers sandbox.HelperArg (os.Executable())
	Profile sandbox.Profile
}

// SecretEnv are the variables that hold dsh-bridge's API keys: no command
// ever inherits them.
var SecretEnv = secrets.Names

type unsandboxedKey struct{}

// Unsandboxed returns a context whose commands run outside the sandbox
// (the person approved it).
func Unsandboxed(ctx context.Context) context.Context {
	return context.WithValue(ctx, unsandboxedKey{}, true)
}

// Sandboxed reports whether a command started with ctx runs in the
// host's sandbox.
func (h LocalHost) Sandboxed(ctx context.Context) bool {
	return h.Sandbox != nil && ctx.Value(unsandboxedKey{}) == nil
}

// ScrubbedEnv is this process's environment without the API keys of
// SecretEnv and the variables in scrub: what commands and MCP servers get.
func ScrubbedEnv(scrub []string) []string { return secrets.Env(os.Environ(), scrub) }

// commandEnv is ScrubbedEnv for a command, with envAdded.
func (h LocalHost) commandEnv(sandboxed bool) []string {
	env := ScrubbedEnv(h.Scrub)
	return append(env, envAdded(env, sandboxed)...)
}

// envAdded is what a command's environment env gets: in the sandbox, Go's
// build cache moves to a folder the command may write (SandboxCache),
// when there is one and env names none.
func envAdded(env []string, sandboxed bool) []string {
	if sandboxed && !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GOCACHE=") }) {
		if dir, err := SandboxCache(os.TempDir()); err == nil {
			return []string{"GOCACHE=" + filepath.Join(dir, "go-build")}
		}
	}
	return nil
}

// TerminalCommand is the command and arguments an editor's terminal runs
// for script with ctx: the shell under this binary's terminal launcher
// (sandbox.InTerminal), so that it is confined exactly as Start would
// confine it and sees the same environment, less what the editor's has
// of the API keys and the scrubbed variables.
func (h LocalHost) TerminalCommand(ctx context.Context, script string) (string, []string, error) {
	self, err := os.Executable() // the editor starts it: /proc/self/exe would be the editor's
	if err != nil {
		return "", nil, err
	}
	sandboxed := h.Sandboxed(ctx)
	spec := sandbox.TerminalSpec{Unset: append(slices.Clone(SecretEnv), h.Scrub...), Set: envAdded(ScrubbedEnv(h.Scrub), sandboxed)}
	if sandboxed {
		p := h.Sandbox.Profile
		spec.Profile = &p
	}
	return sandbox.InTerminal(self, spec, Shell().Argv(script))
}

// SandboxCache is the folder of sandboxed commands' caches under tmp
// (dsh-bridge-sandbox-<uid>), made if missing: only a real folder of this
// user's that no one else may write. In a shared temp folder another user
// could make it first, and fill Go's build cache with what they want
// built; they can no longer keep commands from being sandboxed by
// putting a file in its place, as when the sandbox needed it.
func SandboxCache(tmp string) (string, error) {
	dir := filepath.Join(tmp, "dsh-bridge-sandbox-"+strconv.Itoa(os.Getuid()))
	r, err := openOwnFolder(dir, true)
	if err != nil {
		return "", err
	}
	r.Close()
	return dir, nil
}

// ReadTextFile implements Host.
func (LocalHost) ReadTextFile(_ context.Context, path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// OpenText implements TextOpener. A Host that embeds LocalHost but reads
// files elsewhere must override it too.
func (LocalHost) OpenText(_ context.Context, path string) (io.ReadCloser, error) {
	return openFile(path, path)
}

// WriteTextFile implements Host. It writes a temporary file in the same
// directory and renames it over the target, so a reader never sees half a
// file and a failed write never loses the old content. A symlink is
// followed and its target written (the link stays a link); an existing
// file keeps its mode, and a new one gets 0666 less the umask, as any
// other program's would.
func (l LocalHost) WriteTextFile(ctx context.Context, path, content string) error {
	return l.WriteChecked(ctx, path, content, func(string) error { return nil })
}

// Stat implements Host.
func (LocalHost) Stat(_ context.Context, path string) (fs.FileInfo, error) { return os.Stat(path) }

// Shell returns the shell scripts run under (chooseShell): bash when on
// PATH (outside the folders commands may write: an approved unsandboxed
// command runs under it), else sh; on Windows, Git for Windows' bash, else
// cmd.exe.
func Shell() ShellChoice {
	lookPath := safepath.LookPath
	if runtime.GOOS == "windows" {
		lookPath = exec.LookPath // no sandbox there, and no mode bits for safepath to judge
	}
	return chooseShell(shellEnv{goos: runtime.GOOS, getenv: os.Getenv, lookPath: lookPath, exists: func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}})
}
