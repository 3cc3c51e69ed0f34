//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Available reports whether commands can be confined here: the kernel
// has Landlock.
func Available() bool { return ABI() > 0 }

// Unconfined says why commands run without a kernel sandbox here.
func Unconfined() string {
	return "This system has no Landlock (an older kernel, or not Linux): commands are limited by the permission rules alone."
}

// Enforced describes what the kernel enforces of a profile, for people.
func Enforced(p Profile) string {
	v := ABI()
	if v == 0 {
		return ""
	}
	s := fmt.Sprintf("Landlock ABI %d: writes only in %s", v, strings.Join(p.Write, ", "))
	if deny := listedDeny(p.Deny); len(deny) > 0 {
		s += "; no reading " + strings.Join(deny, ", ")
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
