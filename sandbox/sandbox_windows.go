package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// Windows has no kernel file sandbox comparable to Landlock in reach:
// commands run unconfined, and Enforced says nothing is enforced.

// errNoSandbox: this system has no kernel sandbox for commands.
var errNoSandbox = errors.New("no kernel sandbox on Windows: commands run unconfined")

// Unconfined says why commands run without a kernel sandbox here.
func Unconfined() string {
	return "Windows has no kernel sandbox dsh-bridge can use: commands run unconfined, limited by the permission rules alone."
}

// Enforced describes what the kernel enforces of a profile: nothing.
func Enforced(Profile) string { return "" }

// Wrap refuses: there is no sandbox to run argv in.
func Wrap(string, Profile, []string) ([]string, error) { return nil, errNoSandbox }

// SysProcAttr returns the process attributes a command under p needs:
// none of the sandbox's own.
func SysProcAttr(Profile) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// deviceDirs are the folders every sandboxed command may change besides
// its profile's: none without a sandbox.
var deviceDirs []string

func run(string, []string) error { return errNoSandbox }

func probe(string) { os.Exit(1) }

// Available reports whether commands can be confined here: never.
func Available() bool { return false }
