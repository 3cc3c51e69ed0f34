package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// HelperArg is the first argument that turns a dsh-bridge process into the
// sandbox helper.
const HelperArg = "__dsh-sandbox-exec"

// ProbeArg is the first argument of the namespace probe (see
// userNamespaces); Main answers it. probeEnv marks the probe's process,
// so that a binary that does not answer it never probes in turn.
const (
	ProbeArg = "__dsh-sandbox-probe"
	probeEnv = "DSH_SANDBOX_PROBE"
)

// Profile is what a sandboxed command may do.
type Profile struct {
	Write   []string `json:"write"`   // directories it may change (absolute)
	Deny    []string `json:"deny"`    // trees it may not even read (absolute, resolved)
	Network bool     `json:"network"` // TCP connect and bind allowed
	// Kept are paths in the writable directories (absolute, resolved; globs
	// allowed) that commands may read but never change, remove or replace:
	// files that run code later, such as git hooks. Those that exist when a
	// command starts are kept (see keep); this needs user namespaces.
	Kept []string `json:"kept,omitempty"`
	// Hidden are the places of other programs' sockets (SocketPlaces;
	// globs), masked in the command's own mount namespace where they
	// exist: set when the network is allowed, as the socket filter then
	// lets connect through.
	Hidden []string `json:"hidden,omitempty"`
	// ParentNS is the mount namespace of the process that started the
	// helper (Wrap fills it in): masking happens only in another one.
	ParentNS string `json:"parentNS,omitempty"`
}

var (
	abiOnce sync.Once
	abi     int
)

// ABI returns the kernel's Landlock ABI version, 0 where Landlock is
// missing (an old kernel, another OS, or disabled).
func ABI() int {
	abiOnce.Do(func() {
		if v, err := ll.LandlockGetABIVersion(); err == nil && v > 0 {
			abi = v
		}
	})
	return abi
}

// Stdio are the standard files a helper or supervisor hands its command.
type Stdio struct{ In, Out, Err *os.File }

// Main runs the sandbox helper, the supervisor or the namespace probe when
// os.Args asks for one, and never returns then (the command replaces the
// process, or the helper exits 126 with a message; the supervisor exits
// as its command did; the probe exits 0 or 1). It returns false
// otherwise. main and TestMain call it first.
//
// stdio are the process's standard files: in these modes the process runs
// a command, and they belong to the command (the caller, main, decides);
// the server's protocol stream is never involved.
func Main(stdio Stdio) bool {
	if len(os.Args) == 3 && os.Args[1] == ProbeArg {
		probe(os.Args[2]) // never returns
	}
	if len(os.Args) >= 2 && os.Args[1] == SuperviseArg {
		runSupervisor(os.Args[2:], stdio) // never returns
	}
	if len(os.Args) >= 2 && os.Args[1] == TerminalArg {
		// The editor's environment may hold an API key: not in this
		// process's /proc entries either. Before os.Args is read: it
		// moves.
		_ = secrets.HideProcess()
		runTerminal(os.Args[2:], stdio) // never returns
	}
	if len(os.Args) < 4 || os.Args[1] != HelperArg {
		return false
	}
	if err := run(os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintf(stdio.Err, "dsh-bridge sandbox: %v\n", err)
		os.Exit(126)
	}
	return true // unreachable: run execs
}

// Writable returns every folder a command under p may change: p.Write
// and deviceDirs. A kept path (Profile.Kept) in any of them is kept.
func (p Profile) Writable() []string { return append(slices.Clone(p.Write), deviceDirs...) }

// SuperviseArg is the first argument that turns a dsh-bridge process into
// a command's supervisor: started as the leader of the command's process
// group, with a parent-death signal, it runs the command and kills the
// whole group the moment dsh-bridge is gone, however it went (kill -9
// included), so that no command or background job outlives the agent.
const SuperviseArg = "__dsh-supervise"

// Supervised returns argv run under the supervisor of binary self (which
// calls Main first). The process must be started with SupervisorAttr.
func Supervised(self string, argv []string) []string {
	return append([]string{self, SuperviseArg, strconv.Itoa(os.Getpid()), "--"}, argv...)
}

func runSupervisor(args []string, stdio Stdio) {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(stdio.Err, "usage: "+SuperviseArg+" PPID -- COMMAND [ARG…]")
		os.Exit(126)
	}
	ppid, err := strconv.Atoi(args[0])
	if err == nil {
		err = supervise(ppid, args[2:], stdio)
	}
	fmt.Fprintf(stdio.Err, "dsh-bridge supervisor: %v\n", err)
	os.Exit(126)
}
