//go:build linux

package sandbox

// The helper's user and mount namespace: the attributes that make one,
// the probe that says whether it can mount here, and the masks it lays.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// SysProcAttr returns the process attributes the helper needs: with
// denied trees or kept paths, a user and mount namespace of its own, in
// which the trees are masked and the paths bound read-only. The caller's
// user and group are themselves there (mapped to their own ids), so the
// command runs as the same user it would outside; a helper that is not
// root gets the one capability its mounts need and drops it before the
// command starts.
func SysProcAttr(p Profile) *syscall.SysProcAttr {
	return sysProcAttr(p, needsNamespace(p) && userNamespaces())
}

// sysProcAttr is SysProcAttr decided: namespace says whether the helper
// gets a user and mount namespace. Without one (none needed, or none to
// be had) the helper enforces the profile with Landlock alone: denied
// trees are carved out of its rules instead of masked, and nothing is
// kept.
func sysProcAttr(p Profile, namespace bool) *syscall.SysProcAttr {
	// A session of its own: the command has no controlling terminal, so it
	// can neither read the person's keys nor type into the editor's
	// terminal (/dev/tty fails).
	a := &syscall.SysProcAttr{Setsid: true}
	if namespace {
		uid, gid := os.Getuid(), os.Getgid()
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
		a.AmbientCaps = ambientCaps()
	}
	return a
}

var (
	usernsOnce sync.Once
	usernsOK   bool
)

// userNamespaces reports whether the helper can mount in a user and mount
// namespace of its own here (probed once, by the helper binary itself
// with ProbeArg). Creating one is not enough: where the kernel allows the
// namespace but not its capabilities (Ubuntu's AppArmor restriction of
// unprivileged user namespaces), every mount would fail, and so would
// every command.
func userNamespaces() bool {
	usernsOnce.Do(func() {
		self, err := Self()
		if err != nil || os.Getenv(probeEnv) != "" {
			return // a probe that its binary's main did not answer: no recursion
		}
		usernsOK = probeNamespaces(self, ambientCaps())
	})
	return usernsOK
}

// probeNamespaces runs self as the namespace probe, started as the helper
// is (its user mapped to itself, with caps as ambient capabilities), and
// reports whether it could change its mounts.
func probeNamespaces(self string, caps []uintptr) bool {
	cmd := exec.Command(self, ProbeArg, mountNamespace())
	cmd.Env = append(secrets.Env(os.Environ(), nil), probeEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
		AmbientCaps: caps}
	return cmd.Run() == nil
}

// probe is the namespace probe's body: exit 0 when this process, in a
// mount namespace other than parentNS, can make its mounts private.
func probe(parentNS string) {
	if !ownNamespace(parentNS) || privateMounts() != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// hide masks each denied path in the helper's own mount namespace: an
// empty read-only tmpfs over a directory, /dev/null over a file. Landlock
// then forbids the command to unmount them (no topology changes). It
// refuses to mount anything unless this process has a mount namespace of
// its own: run as root without one, it would mask the host's files.
func hide(deny []string, parentNS string) error {
	if !ownNamespace(parentNS) {
		return errHostNamespace
	}
	for _, d := range deny {
		info, err := os.Lstat(d)
		switch {
		case err != nil:
			continue // nothing there to hide (yet): the rules still refuse it
		case info.IsDir():
			err = syscall.Mount("tmpfs", d, "tmpfs", syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "size=4k,mode=000")
		default:
			err = syscall.Mount("/dev/null", d, "", syscall.MS_BIND, "")
		}
		if err != nil {
			return fmt.Errorf("masking %s: %w", d, err)
		}
	}
	return nil
}

// errHostNamespace: the helper shares its parent's mount namespace, and
// mounts nothing.
var errHostNamespace = errors.New("not in a mount namespace of its own")

// ownNamespace reports whether this process's mount namespace is not
// parentNS's.
func ownNamespace(parentNS string) bool {
	own := mountNamespace()
	return own != "" && parentNS != "" && own != parentNS
}

// mountNamespace names this process's mount namespace ("mnt:[…]"), or "".
func mountNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/mnt")
	return ns
}
