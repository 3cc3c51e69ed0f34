package main

import (
	"runtime/debug"
	"strings"
)

// versionText is what `dsh-bridge version` prints for a binary built with
// settings (its build information): the version line, and a note when it
// links libc through cgo, which starts it later in every editor session
// and every supervised command.
func versionText(settings []debug.BuildSetting) string {
	var b strings.Builder
	b.WriteString("dsh-bridge " + version + " (ACP v1)\n")
	for _, s := range settings {
		if s.Key == "CGO_ENABLED" && s.Value == "1" {
			b.WriteString("built with cgo, which starts about 4 ms later than a static build: rebuild with CGO_ENABLED=0\n")
		}
	}
	return b.String()
}

// buildSettings returns this binary's build settings (none when the
// binary carries no build information).
func buildSettings() []debug.BuildSetting {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Settings
	}
	return nil
}
