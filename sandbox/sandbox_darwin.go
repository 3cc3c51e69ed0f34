package sandbox

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// On macOS commands run under Seatbelt: Wrap puts them under
// /usr/bin/sandbox-exec with the profile SeatbeltArgs builds.

// Available reports whether commands can be confined here: sandbox-exec
// is present.
func Available() bool {
	info, err := os.Stat(SandboxExec)
	return err == nil && info.Mode().IsRegular()
}

// Unconfined says why commands run without a kernel sandbox here.
func Unconfined() string {
	return "This Mac has no " + SandboxExec + ": commands are limited by the permission rules alone."
}

// Enforced describes what Seatbelt enforces of a profile, for people.
func Enforced(p Profile) string {
	if !Available() {
		return ""
	}
	s := "Seatbelt (sandbox-exec): writes only in " + strings.Join(p.Write, ", ")
	if deny := listedDeny(p.Deny); len(deny) > 0 {
		s += "; no reading " + strings.Join(deny, ", ")
	}
	if len(p.Kept) > 0 {
		s += "; files that run code later (git hooks and config, .dsh, .envrc, …) read-only"
	}
	if p.Network {
		s += "; network allowed (IP), but not other programs' local sockets"
	} else {
		s += "; no network and no connecting to other programs' sockets"
	}
	return s
}

// Wrap returns the argv that runs argv under p: sandbox-exec with p's
// Seatbelt profile. self is not needed (no helper of ours enters it).
func Wrap(_ string, p Profile, argv []string) ([]string, error) {
	profile, params := SeatbeltArgs(p)
	out := []string{SandboxExec, "-p", profile}
	for _, kv := range params {
		out = append(out, "-D", kv)
	}
	return append(append(out, "--"), argv...), nil
}

// SysProcAttr returns the process attributes a command under p needs: a
// session of its own, so that it has no controlling terminal.
func SysProcAttr(Profile) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// deviceDirs: the devices a command may write are in every profile
// (seatbeltBase), not folders of Profile.Writable.
var deviceDirs []string

var errNoHelper = errors.New("no sandbox helper on macOS: Seatbelt confines commands through " + SandboxExec)

func run(string, []string) error { return errNoHelper }

func probe(string) { os.Exit(1) }
