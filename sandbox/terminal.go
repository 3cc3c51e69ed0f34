package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// TerminalArg is the first argument of the command dsh-bridge asks an
// editor's terminal to run (ACP's terminal/create). The editor starts the
// process, so the bridge cannot give it namespaces or a supervisor: this
// process, the bridge's binary again, starts the supervisor as the
// bridge's own LocalHost would (in the sandbox's namespaces, with the
// profile's rules) with the environment the spec leaves, passes its
// output through to the terminal, and ends as the command did. The editor
// shows the command live; it is confined all the same.
const TerminalArg = "__dsh-terminal"

// TerminalSpec is how a command in an editor's terminal runs.
type TerminalSpec struct {
	// Profile confines the command; nil runs it unconfined (the person
	// approved that), still supervised and with the environment below.
	Profile *Profile `json:"profile,omitempty"`
	// Unset are variables of the editor's environment the command never
	// sees (dsh-bridge's API keys, the settings' scrubEnv).
	Unset []string `json:"unset,omitempty"`
	// Set are KEY=VALUE entries added, each replacing the editor's.
	Set []string `json:"set,omitempty"`
}

// InTerminal returns the command and arguments an editor's terminal runs
// for argv under spec: self (this binary's path, as the editor can start
// it) TerminalArg SPEC -- argv….
func InTerminal(self string, spec TerminalSpec, argv []string) (command string, args []string, err error) {
	if len(argv) == 0 {
		return "", nil, errors.New("no command")
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return "", nil, err
	}
	return self, append([]string{TerminalArg, string(b), "--"}, argv...), nil
}

// TerminalEnv is env less spec's Unset, with spec's Set added (replacing
// what env had of each).
func TerminalEnv(env []string, spec TerminalSpec) []string {
	set := map[string]bool{}
	for _, kv := range spec.Set {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	out := make([]string, 0, len(env)+len(spec.Set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !set[k] && !slices.Contains(spec.Unset, k) {
			out = append(out, kv)
		}
	}
	return append(out, spec.Set...)
}

// runTerminal is TerminalArg's body; it never returns.
func runTerminal(args []string, stdio Stdio) {
	if err := terminal(args, stdio); err != nil {
		fmt.Fprintf(stdio.Err, "dsh-bridge terminal: %v\n", err)
		os.Exit(126)
	}
}

func terminal(args []string, stdio Stdio) error {
	// The supervisor's death signal is tied to the thread that starts it.
	runtime.LockOSThread()
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: " + TerminalArg + " SPEC -- COMMAND [ARG…]")
	}
	var spec TerminalSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("bad spec: %v", err)
	}
	self, err := Self()
	if err != nil {
		return err
	}
	argv := args[2:]
	attr := &syscall.SysProcAttr{}
	if spec.Profile != nil {
		if argv, err = Wrap(self, *spec.Profile, argv); err != nil {
			return err
		}
		attr = SysProcAttr(*spec.Profile)
	}
	argv = Supervised(self, argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = TerminalEnv(os.Environ(), spec)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, stdio.Err
	cmd.SysProcAttr = SupervisorAttr(attr)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		select {
		case <-sigs: // the editor kills the terminal: the supervisor ends the command's group
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case err := <-exited:
			mirrorExit(err)
		}
	}
}
