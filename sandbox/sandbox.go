package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// HelperArg is the first argument that turns a dsh-bridge process into the
// sandbox helper.
const HelperArg = "__dsh-sandbox-exec"

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

// Enforced describes what the kernel enforces of a profile, for people.
func Enforced(p Profile) string {
	v := ABI()
	if v == 0 {
		return ""
	}
	s := fmt.Sprintf("Landlock ABI %d: writes only in %s", v, strings.Join(p.Write, ", "))
	if len(p.Deny) > 0 {
		s += "; no reading " + strings.Join(p.Deny, ", ")
	}
	if len(p.Kept) > 0 {
		if userNamespaces() {
			s += "; files that run code later (git hooks and config, .dsh, .envrc, …) read-only where they exist"
		} else {
			s += "; files that run code later (git hooks and config, …) are NOT kept read-only (no user namespaces)"
		}
	}
	switch {
	case p.Network && len(p.Hidden) > 0 && userNamespaces():
		s += "; network allowed; the usual places of other programs' sockets (the editor's, tmux's, D-Bus's, Docker's) are hidden, but a socket elsewhere is reachable"
	case p.Network:
		s += "; network allowed, and with it other programs' local sockets (the editor's, tmux's, D-Bus's)"
	case v >= 4:
		s += "; no network (no TCP, no UDP) and no connecting to other programs' sockets"
	default:
		s += "; no UDP and no connecting to other programs' sockets, but TCP is NOT restricted (ABI < 4)"
	}
	if v < 6 {
		s += "; a command can kill its supervisor, and what it started outside its process group then outlives it (ABI < 6)"
	}
	return s
}

// Wrap returns the argv that runs argv under p through the helper binary
// self (normally os.Executable()).
func Wrap(self string, p Profile, argv []string) ([]string, error) {
	p.ParentNS = mountNamespace()
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]string{self, HelperArg, string(b), "--"}, argv...), nil
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

func run(profile string, rest []string) error {
	// Capabilities are a thread's: the thread that drops them must be the
	// one that execs.
	runtime.LockOSThread()
	if len(rest) < 2 || rest[0] != "--" {
		return errors.New("usage: " + HelperArg + " PROFILE -- COMMAND [ARG…]")
	}
	argv := rest[1:]
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if err := enter(profile); err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// enter puts the calling process (and so all it starts) in the sandbox a
// JSON profile describes: denied trees masked and kept paths bound
// read-only where it can, then Landlock. The caller is locked to its
// thread, which starts the command.
func enter(profile string) error {
	var p Profile
	if err := json.Unmarshal([]byte(profile), &p); err != nil {
		return fmt.Errorf("bad profile: %v", err)
	}
	if ownNamespace(p.ParentNS) { // made by SysProcAttr: needsNamespace(p)
		// Never before that check: run as root in the host's namespace,
		// this would change the host's mounts.
		if err := privateMounts(); err != nil {
			return fmt.Errorf("making the namespace's mounts private: %w", err)
		}
		// The working directory was resolved before the mounts: resolved
		// again after them, it cannot reach below a kept path's mount.
		wd, _ := os.Getwd()
		if len(p.Deny) > 0 && hide(p.Deny, p.ParentNS) == nil {
			p.Deny = nil // masked by mounts: no carving needed
		}
		if err := hide(hiddenPaths(p.Hidden, p.Write), p.ParentNS); err != nil {
			return err
		}
		if err := keep(p.Kept, p.Writable(), p.ParentNS); err != nil {
			return err
		}
		if wd != "" {
			if err := os.Chdir(wd); err != nil {
				return err
			}
		}
	}
	if err := dropAmbient(); err != nil {
		return err
	}
	if err := Apply(p); err != nil {
		return err
	}
	return filterSockets(p.Network)
}

// Apply restricts the calling process (all its threads) and its future
// children to p. Callers other than the helper restrict themselves for
// good.
func Apply(p Profile) error {
	cfg := landlock.V7.BestEffort()
	rules := Rules(p)
	if p.Network {
		if err := cfg.RestrictPaths(rules...); err != nil {
			return err
		}
		return cfg.RestrictScoped()
	}
	return cfg.Restrict(rules...)
}

// Rules returns the Landlock rules of a profile: read and execute
// everywhere but the denied trees (their ancestors may only be listed),
// read and write in the profile's directories (carved the same way), and
// the devices commands need.
func Rules(p Profile) []landlock.Rule {
	deny := make([]string, 0, len(p.Deny))
	for _, d := range p.Deny {
		deny = append(deny, filepath.Clean(d))
	}
	var rules []landlock.Rule
	rules = append(rules, carve("/", deny, landlock.RODirs, landlock.ROFiles, ll.AccessFSReadDir)...)
	for _, w := range p.Write {
		if _, err := os.Stat(w); err != nil {
			continue
		}
		rules = append(rules, carve(filepath.Clean(w), deny, rwDirs, landlock.RWFiles, carvedWrite)...)
	}
	rules = append(rules,
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs(deviceDirs...).WithIoctlDev().IgnoreIfMissing(),
	)
	return rules
}

// deviceDirs are the folders every sandboxed command may change besides
// its profile's (Rules).
var deviceDirs = []string{"/dev/pts", "/dev/shm"}

// Writable returns every folder a command under p may change: p.Write
// and deviceDirs. A kept path (Profile.Kept) in any of them is kept.
func (p Profile) Writable() []string { return append(slices.Clone(p.Write), deviceDirs...) }

func rwDirs(paths ...string) landlock.FSRule { return landlock.RWDirs(paths...).WithRefer() }

// carvedWrite is what a writable directory holding a denied tree keeps:
// every change, but no reading of files (which would reach the denied
// tree too). Commands can create, replace and remove entries in it; they
// still cannot read what the deny rules hide.
const carvedWrite = ll.AccessFSReadDir | ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSMakeFifo | ll.AccessFSMakeSock |
	ll.AccessFSTruncate | ll.AccessFSRefer

// carve grants dir whole with full, unless a denied tree lies inside it:
// then dir itself gets only dirRights, and each entry is granted the same
// way, except the denied ones. Symlinks are skipped: a rule on one would grant
// its target.
func carve(dir string, deny []string, full, files func(...string) landlock.FSRule, dirRights uint64) []landlock.Rule {
	inside := false
	for _, d := range deny {
		if d == dir || strings.HasPrefix(dir, d+"/") {
			return nil
		}
		inside = inside || dir == "/" || strings.HasPrefix(d, dir+"/")
	}
	if !inside {
		return []landlock.Rule{full(dir).IgnoreIfMissing()}
	}
	rules := []landlock.Rule{landlock.PathAccess(landlock.AccessFSSet(dirRights), dir)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return rules
	}
	for _, e := range entries {
		child := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
		case e.IsDir():
			rules = append(rules, carve(child, deny, full, files, dirRights)...)
		default:
			if !denied(child, deny) {
				rules = append(rules, files(child).IgnoreIfMissing())
			}
		}
	}
	return rules
}

func denied(p string, deny []string) bool {
	for _, d := range deny {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
