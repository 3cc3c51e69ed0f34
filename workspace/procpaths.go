package workspace

import (
	"fmt"
	"strings"
)

// ProcessSecret refuses (an ErrDenied saying why) the resolved path real
// when it is a file the file tools never read, whatever the mode and the
// rules: nil for any other path. See processSecret.
func ProcessSecret(real string) error {
	if why := processSecret(real); why != "" {
		return denied{processSecretError(real, why).Error()}
	}
	return nil
}

// processSecret reports why the file tools never read the resolved path
// real, whatever the mode and the rules: a process's environment,
// arguments or memory (/proc/<pid>/environ, cmdline and mem, a task's
// too, self and thread-self included), or all of memory (/proc/kcore,
// /dev/mem, /dev/kmem, /dev/port). Those hold the bridge's API key, the
// values settings scrub, and those of the editor and the person's other
// programs. "" when real is none of them.
func processSecret(real string) string {
	switch real {
	case "/proc/kcore", "/dev/mem", "/dev/kmem", "/dev/port":
		return "it is the machine's memory"
	}
	rest, ok := strings.CutPrefix(real, "/proc/")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 2: // <pid>/environ
	case len(parts) == 4 && parts[1] == "task": // <pid>/task/<tid>/environ
	default:
		return ""
	}
	switch parts[len(parts)-1] {
	case "environ":
		return "it is a process's environment"
	case "cmdline":
		return "it is a process's command line"
	case "mem":
		return "it is a process's memory"
	}
	return ""
}

// processSecretError is the tool error for a path processSecret names.
func processSecretError(path, why string) error {
	return fmt.Errorf("%s cannot be read: %s, where API keys and other secrets are (dsh-bridge never reads it, in any mode)", path, why)
}
