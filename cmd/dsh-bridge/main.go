// Command dsh-bridge is an ACP agent that editors spawn over stdio.
//
// Usage:
//
//	dsh-bridge [flags]   serve ACP v1 on stdin/stdout
//	dsh-bridge login     ask for an API key (and base URL), check it, store it
//	dsh-bridge logout    remove the stored key
//	dsh-bridge tools     print the built-in tool schemas as JSON
//	dsh-bridge demo      watch a scripted agent work (no key, no network)
//
// Flags (each mirrored by an environment variable):
//
//	--base-url  DSH_BASE_URL   OpenAI-compatible API base (default https://api.deepseek.com)
//	--api-key   DSH_API_KEY    API key (falls back to DEEPSEEK_API_KEY, then OPENAI_API_KEY, then the key
//	                           `dsh-bridge login` stored in the OS keychain or the config folder's credentials.json;
//	                           DSH_KEYCHAIN=off: the file only)
//	--model     DSH_MODEL      model id (default: the Flash model under the name GET /models lists it by,
//	                           else deepseek-v4-pro, else the first listed), or script:PATH to replay a JSONL script
//	--max-turn-requests DSH_MAX_TURN_REQUESTS  model requests per prompt turn (default 50)
//	--state-dir DSH_STATE_DIR  session logs (default $XDG_STATE_HOME/dsh-bridge, i.e. ~/.local/state/dsh-bridge; macOS ~/Library/Application Support/dsh-bridge; Windows %LOCALAPPDATA%\dsh-bridge)
//	--stream-idle DSH_STREAM_IDLE  how long a model's answer may bring no byte before it is cut
//	                           (default 1m30s for DeepSeek's models, 5m0s for others; 0: never)
//
// stdout carries only protocol bytes; logs go to stderr (DSH_LOG_LEVEL:
// debug, info, warn, error). DSH_CPUPROFILE=path writes a CPU profile;
// DSH_MEMPROFILE=path writes an allocation profile (a sample per 4 KB)
// when the bridge exits.
// The collector's headroom over the sessions' histories is bounded unless
// GOGC is set.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/internal/credentials"
	"github.com/dsh-bridge/dsh-bridge/internal/folders"
	"github.com/dsh-bridge/dsh-bridge/internal/heapgoal"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

var version = "0.1.0-dev"

func main() {
	// The sandbox helper and the command supervisor: they never return when
	// asked for, and then this process runs a command on these files.
	sandbox.Main(sandbox.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	// Before anything reads the environment or the arguments: the API key
	// (a variable, or --api-key) leaves /proc/<pid>/environ and cmdline,
	// where every process of the person's could read it.
	hideErr = secrets.HideProcess()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// hideErr is why secrets.HideProcess failed, logged once there is a log.
var hideErr error

// afterTurn is what the bridge tunes when a prompt turn ends: a
// session's history only grows, and the collector's headroom over it is
// kept to a sixteenth of it instead of all of it (heapgoal). Nil when GOGC
// is set: the person's setting stands.
func afterTurn() func(historyBytes int) {
	if os.Getenv("GOGC") != "" {
		return nil
	}
	var gc heapgoal.Tuner
	return func(history int) { gc.Adjust(uint64(history)) }
}

func env(keys ...string) string {
	for _, k := range keys {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}

func logger(stderr io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(env("DSH_LOG_LEVEL"))); err != nil {
		level = slog.LevelInfo
	}
	// An error text may quote the key (an endpoint's answer, a proxy's).
	return slog.New(slog.NewTextHandler(secrets.Writer(stderr), &slog.HandlerOptions{Level: level}))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := logger(stderr)
	slog.SetDefault(log)
	if hideErr != nil {
		log.Warn("the API key may be readable in this process's /proc entries", "err", hideErr)
	}
	if len(args) > 0 && args[0] == "tools" {
		return printTools(stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version") {
		io.WriteString(stdout, versionText(buildSettings()))
		return 0
	}
	if len(args) > 0 && args[0] == "demo" {
		return runDemo(args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "login" {
		return runLogin(args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "logout" {
		return runLogout(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("dsh-bridge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", or(env("DSH_BASE_URL"), defaultBaseURL), "OpenAI-compatible API base URL")
	keyVar := firstSet("DSH_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY")
	apiKey := fs.String("api-key", env(keyVar), "API key")
	modelName := fs.String("model", env("DSH_MODEL"), "model id (default: the endpoint's preferred DeepSeek model)")
	maxReqs := fs.Int("max-turn-requests", atoi(env("DSH_MAX_TURN_REQUESTS"), 50), "model requests per prompt turn")
	toolsMode := fs.String("tools-mode", or(env("DSH_TOOLS_MODE"), "native"), "how sessions present tools to the model: native, code (one run_code program calls them) or both")
	codeTimeout := fs.Duration("code-timeout", durationEnv("DSH_CODE_TIMEOUT", codemode.DefaultTimeout), "how long one run_code program may run")
	codeOutput := fs.Int("code-max-output", atoi(env("DSH_CODE_MAX_OUTPUT"), codemode.DefaultMaxOutputBytes), "bytes of logs plus result one run_code program may produce")
	stateDir := fs.String("state-dir", or(env("DSH_STATE_DIR"), defaultStateDir()), "directory of the session logs")
	streamIdle := fs.String("stream-idle", env("DSH_STREAM_IDLE"), "how long a model's answer may bring no byte before it is cut (default 1m30s for DeepSeek's models, 5m0s for others; 0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dsh-bridge: unknown subcommand %q; available: login, logout, tools, demo, version (no arguments serves ACP on stdio)\n", fs.Arg(0))
		return 2
	}
	switch registry.Presentation(*toolsMode) {
	case registry.Native, registry.Code, registry.Both:
	default:
		fmt.Fprintf(stderr, "dsh-bridge: --tools-mode must be native, code or both (got %q)\n", *toolsMode)
		return 2
	}
	if *codeTimeout <= 0 || *codeOutput <= 0 {
		fmt.Fprintln(stderr, "dsh-bridge: --code-timeout and --code-max-output must be positive")
		return 2
	}
	idle, ok := parseStreamIdle(*streamIdle)
	if !ok {
		fmt.Fprintf(stderr, "dsh-bridge: --stream-idle must be a duration of 0 (never) or more (got %q)\n", *streamIdle)
		return 2
	}
	cfg := bridge.Config{ToolsMode: registry.Presentation(*toolsMode), CodeMode: codemode.Config{Timeout: *codeTimeout, MaxOutputBytes: *codeOutput}, ModelName: *modelName, MaxTurnRequests: *maxReqs, Version: version, Log: log, StateDir: *stateDir}
	// Read when the first session needs them: initialize does not.
	cfg.LoadModelSettings = func() model.Settings {
		ms, err := model.LoadSettings(filepath.Join(permission.UserConfigDir(), "settings.json"))
		if err != nil {
			log.Warn("the model settings were ignored", "err", err)
		}
		return ms
	}
	// Whatever reaches a tool's output, the key never goes on to the model,
	// the session log or the editor.
	secrets.Remember(*apiKey)
	secrets.RememberEnv(os.Environ(), nil)
	keySource := keyVar
	if fs.Lookup("api-key").Value.String() != env(keyVar) {
		keySource = "the --api-key flag"
	}
	var client model.Client
	var err error
	if path, ok := strings.CutPrefix(*modelName, "script:"); ok {
		client, err = model.LoadScript(path)
	} else if *apiKey == "" {
		// Read when a session needs it: the store may take a keychain's
		// round trip, and login may store a key while the bridge runs.
		baseSet := env("DSH_BASE_URL") != "" || *baseURL != defaultBaseURL
		cfg.SignIn = func() (model.Client, error) {
			return storedModel(credentials.Local(), *baseURL, baseSet, *modelName, idle)
		}
	} else {
		client, err = model.NewChat(model.ChatConfig{BaseURL: *baseURL, APIKey: *apiKey, KeySource: keySource, Model: *modelName, StreamIdle: idle})
	}
	switch {
	case err != nil:
		log.Warn("no model available; prompts will explain why", "err", err)
		cfg.ModelErr = err
	case client == nil:
		cfg.ModelErr = model.ErrNoAPIKey // until SignIn finds a stored key
	default:
		cfg.Model = client
	}
	if path := env("DSH_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	if path := env("DSH_MEMPROFILE"); path != "" {
		// One sample per 4 KB allocated, not Go's 512 KB: fine enough to
		// tell what a single read allocates.
		runtime.MemProfileRate = 4096
		defer writeAllocs(path, log)
	}
	// A client that closes its end of stdout must not kill us with SIGPIPE
	// mid-cleanup: writes fail with EPIPE instead, and the sessions close.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Syntax tokens: made by the dsh-highlight helper, started at the
	// first read card (chroma is not linked here: its lexers' registration
	// would cost every start).
	if !highlight.Off() {
		tokenizer := highlight.New(highlight.Options{Lookup: highlight.Locate, Log: log, Stderr: stderr})
		defer tokenizer.Close()
		cfg.Tokenizer = tokenizer
	}
	cfg.AfterTurn = afterTurn()
	if err := bridge.NewServer(cfg).Serve(ctx, stdin, stdout); err != nil {
		log.Error("serve failed", "err", err)
		return 1
	}
	return 0
}

// storedModel connects to the endpoint of the key login stored: base
// when baseSet (the flag or DSH_BASE_URL), else the stored base URL, else
// base. model.ErrNoAPIKey when no key is stored.
func storedModel(st *credentials.Store, base string, baseSet bool, modelName string, idle time.Duration) (model.Client, error) {
	c, src, err := st.Load()
	if errors.Is(err, credentials.ErrNone) {
		return nil, model.ErrNoAPIKey
	}
	if err != nil {
		return nil, err
	}
	secrets.Remember(c.APIKey)
	if !baseSet && c.BaseURL != "" {
		base = c.BaseURL
	}
	return model.NewChat(model.ChatConfig{BaseURL: base, APIKey: c.APIKey, KeySource: src.String(), StreamIdle: idle, Model: modelName})
}

// defaultStateDir is folders.State: $XDG_STATE_HOME/dsh-bridge, else
// ~/.local/state/dsh-bridge (macOS: ~/Library/Application Support/dsh-bridge;
// Windows: %LOCALAPPDATA%\dsh-bridge).
func defaultStateDir() string { return folders.State(folders.Local()) }

// firstSet is the first of keys set in the environment ("" when none is).
func firstSet(keys ...string) string {
	for _, k := range keys {
		if os.Getenv(k) != "" {
			return k
		}
	}
	return ""
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func atoi(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}

func printTools(stdout, stderr io.Writer) int {
	reg := registry.New()
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "dsh-bridge:", err)
		return 1
	}
	ws, err := workspace.New(cwd)
	if err != nil {
		fmt.Fprintln(stderr, "dsh-bridge:", err)
		return 1
	}
	dispose, err := tools.Register(reg, nil, tools.Options{Workspace: ws})
	if err != nil {
		fmt.Fprintln(stderr, "dsh-bridge:", err)
		return 1
	}
	defer dispose()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(reg.Schemas(nil)); err != nil {
		fmt.Fprintln(stderr, "dsh-bridge:", err)
		return 1
	}
	return 0
}

// parseStreamIdle reads --stream-idle as model.ChatConfig.StreamIdle
// wants it: "" is 0 (the models' defaults), "0" is -1 (never), a positive
// duration is itself; anything else is not ok.
func parseStreamIdle(v string) (time.Duration, bool) {
	if v == "" {
		return 0, true
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d < 0:
		return 0, false
	case d == 0:
		return -1, true
	}
	return d, true
}

// durationEnv reads a duration (for example 90s) from the environment;
// def when it is unset or unreadable.
func durationEnv(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(env(name)); err == nil {
		return d
	}
	return def
}

// writeAllocs writes the allocation profile (every allocation since the
// start, sampled at the rate the caller set in runtime.MemProfileRate) to
// path.
func writeAllocs(path string, log *slog.Logger) {
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
	}
	if err != nil {
		log.Warn("allocation profile not written", "path", path, "err", err)
	}
}
