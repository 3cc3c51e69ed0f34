package bridge_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// inProcessEnv lists the variables an in-process bridge honours as the
// binary does (XDG_CONFIG_HOME set for the test, t.Setenv); a test that
// sets any other one (TMPDIR, PATH, HOME, …) gets the binary.
var inProcessEnv = map[string]bool{
	"DSH_BASE_URL": true, "DSH_STATE_DIR": true, "DSH_API_KEY": true, "DEEPSEEK_API_KEY": true,
	"OPENAI_API_KEY": true, "DSH_MODEL": true, "DSH_LOG_LEVEL": true, "DSH_TOOLS_MODE": true,
	"DSH_MAX_TURN_REQUESTS": true, "DSH_STREAM_IDLE": true, "DSH_CODE_TIMEOUT": true, "XDG_CONFIG_HOME": true,
}

// placeHelpers links the helpers built beside the binary under test next
// to this test binary, where an in-process server finds them (as the
// bridge finds its own), and points the user's configuration folder at
// an empty one; it returns what undoes it.
func placeHelpers(dir string) func() {
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")) // every child's is set anew
	exe, err := os.Executable()
	if err != nil {
		return func() {}
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	var links []string
	for _, name := range []string{"dsh-highlight", "dsh-code", "dsh-markdown"} {
		link := filepath.Join(filepath.Dir(exe), name)
		if os.Symlink(filepath.Join(dir, name), link) == nil {
			links = append(links, link)
		}
	}
	return func() {
		for _, l := range links {
			os.Remove(l)
		}
	}
}

// startInProcess is startEditor with the bridge served in this process,
// over pipes, configured from env as the binary configures itself; false
// when env sets what only the binary honours.
// inProcessCount and binaryCount count the bridges the tests started
// each way (reported with -v).
var inProcessCount, binaryCount atomic.Int64

func startInProcess(t testing.TB, env []string) (*editor, bool) {
	vars := map[string]string{"DSH_API_KEY": "test-key", "DSH_LOG_LEVEL": "debug", "DSH_STATE_DIR": t.TempDir()}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !inProcessEnv[k] {
			return nil, false
		}
		vars[k] = v
	}
	if v, ok := vars["XDG_CONFIG_HOME"]; ok {
		t.Setenv("XDG_CONFIG_HOME", v) // read when a session opens
	}
	inProcessCount.Add(1)
	e := &editor{t: t, waiting: map[string]chan message{}, methods: map[string]string{}, done: make(chan struct{}), exited: make(chan struct{})}
	cfg, ok := inProcessConfig(vars, &e.stderr)
	if !ok {
		return nil, false
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e.stdin = inW
	go func() {
		defer close(e.exited)
		e.waitErr = bridge.NewServer(cfg).Serve(context.Background(), inR, outW)
		if c, ok := cfg.Tokenizer.(io.Closer); ok {
			c.Close()
		}
		inR.Close()
		outW.Close()
	}()
	go e.read(outR)
	t.Cleanup(e.close)
	return e, true
}

// inProcessConfig is the Config cmd/dsh-bridge makes of vars; false for
// a value it would refuse.
func inProcessConfig(vars map[string]string, stderr io.Writer) (bridge.Config, bool) {
	var level slog.Level
	if level.UnmarshalText([]byte(vars["DSH_LOG_LEVEL"])) != nil {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(secrets.Writer(stderr), &slog.HandlerOptions{Level: level}))
	cfg := bridge.Config{Self: binary, ToolsMode: registry.Native, MaxTurnRequests: 50, Version: "test", Log: log, StateDir: vars["DSH_STATE_DIR"],
		CodeMode: codemode.Config{Timeout: codemode.DefaultTimeout, MaxOutputBytes: codemode.DefaultMaxOutputBytes}}
	if m := vars["DSH_TOOLS_MODE"]; m != "" {
		cfg.ToolsMode = registry.Presentation(m)
	}
	if n, err := strconv.Atoi(vars["DSH_MAX_TURN_REQUESTS"]); err == nil && n > 0 {
		cfg.MaxTurnRequests = n
	}
	if v := vars["DSH_CODE_TIMEOUT"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, false
		}
		cfg.CodeMode.Timeout = d
	}
	var idle time.Duration
	if v := vars["DSH_STREAM_IDLE"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return cfg, false
		}
		if idle = d; d == 0 {
			idle = -1
		}
	}
	cfg.LoadModelSettings = func() model.Settings {
		ms, err := model.LoadSettings(filepath.Join(permission.UserConfigDir(), "settings.json"))
		if err != nil {
			log.Warn("the model settings were ignored", "err", err)
		}
		return ms
	}
	keyVar := ""
	for _, k := range []string{"DSH_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"} {
		if vars[k] != "" {
			keyVar = k
			break
		}
	}
	secrets.Remember(vars[keyVar])
	name := vars["DSH_MODEL"]
	cfg.ModelName = name
	var client model.Client
	var err error
	if path, ok := strings.CutPrefix(name, "script:"); ok {
		client, err = model.LoadScript(path)
	} else {
		base := vars["DSH_BASE_URL"]
		if base == "" {
			base = "https://api.deepseek.com"
		}
		client, err = model.NewChat(model.ChatConfig{BaseURL: base, APIKey: vars[keyVar], KeySource: keyVar, Model: name, StreamIdle: idle})
	}
	if err != nil {
		cfg.ModelErr = err
	} else {
		cfg.Model = client
	}
	if !highlight.Off() {
		cfg.Tokenizer = highlight.New(highlight.Options{Lookup: highlight.Locate, Log: log, Stderr: stderr})
	}
	return cfg, true
}
