package sandbox

import (
	"fmt"
	"strings"
)

// Seatbelt is macOS's kernel sandbox, entered through sandbox-exec with a
// profile in SBPL. SeatbeltArgs builds the profile as a pure function of
// a Profile, so that it is tested wherever the tests run; the darwin
// runner (sandbox_darwin.go) only puts it on the command line.
//
// Paths never enter the profile's text: each is a parameter (-D NAME=path,
// read in the profile as (param "NAME")), so no spelling of a path can
// end its string. The one exception is a kept glob, which SBPL matches as
// a regular expression: its wildcards become regex classes, and a '"' or
// '\' in it matches any one character (keeping a little more read-only,
// never less).

// SandboxExec is the program that enters a Seatbelt profile: only the
// system's own, never one found on $PATH.
const SandboxExec = "/usr/bin/sandbox-exec"

// seatbeltBase is what every command may do besides reading and writing
// files: run and fork programs (which inherit the profile), signal and
// inspect its own sandbox's processes, read system facts and preferences,
// use POSIX semaphores, shared memory and pseudo-terminals, make UNIX
// socket pairs, and look up users.
const seatbeltBase = `(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem ipc-posix-shm)
(allow pseudo-tty)
(allow system-socket (socket-domain AF_UNIX))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent"))
(allow file-read* file-write* file-ioctl
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$") (subpath "/dev/fd"))
`

// seatbeltNetwork is what network: true adds: IP in and out, the name
// and certificate services. Connecting to UNIX sockets stays limited to
// the writable folders (other programs' sockets are not reachable).
const seatbeltNetwork = `(allow network-outbound (remote ip))
(allow network-inbound (local ip))
(allow network-bind (local ip))
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SystemConfiguration.configd"))
`

// SeatbeltArgs returns the profile text for p and its parameters, as
// sandbox-exec's -D arguments ("NAME=value"), in order. p's paths must
// be resolved (Seatbelt matches the real path: /private/tmp, not /tmp).
func SeatbeltArgs(p Profile) (profile string, params []string) {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	param := func(name, value string) string {
		params = append(params, name+"="+value)
		return `(param "` + name + `")`
	}
	// Denied trees: neither read nor written, the folder itself included
	// (subpath alone would let it be made again where it is missing).
	var notDenied []string
	for i, d := range p.Deny {
		ref := param(fmt.Sprintf("DENY_%d", i), d)
		notDenied = append(notDenied, "(require-not (literal "+ref+"))", "(require-not (subpath "+ref+"))")
	}
	b.WriteString("(allow file-read*")
	writeRequireAll(&b, `(subpath "/")`, notDenied)
	b.WriteString(")\n")
	// Kept paths: read-only inside the writable folders, wherever a command
	// puts them (a path that is made again is kept again).
	var notKept []string
	for i, k := range p.Kept {
		if plain, ok := literal(k); ok {
			ref := param(fmt.Sprintf("KEPT_%d", i), plain)
			notKept = append(notKept, "(require-not (literal "+ref+"))", "(require-not (subpath "+ref+"))")
			continue
		}
		notKept = append(notKept, `(require-not (regex #"`+globRegex(k)+`"))`)
	}
	except := append(notDenied, notKept...)
	if len(p.Write) > 0 {
		b.WriteString("(allow file-write*")
		for i, w := range p.Write {
			b.WriteString("\n  ")
			writeRequireAll(&b, "(subpath "+param(fmt.Sprintf("WRITE_%d", i), w)+")", except)
		}
		b.WriteString(")\n")
	}
	if p.Network {
		b.WriteString(seatbeltNetwork)
		if len(p.Write) > 0 {
			b.WriteString("(allow network-outbound network-bind")
			for i := range p.Write {
				fmt.Fprintf(&b, "\n  (local unix-socket (subpath (param \"WRITE_%d\")))", i)
				fmt.Fprintf(&b, "\n  (remote unix-socket (subpath (param \"WRITE_%d\")))", i)
			}
			b.WriteString(")\n")
		}
	}
	return b.String(), params
}

// writeRequireAll writes filter, or (require-all filter except…) when
// there are exceptions.
func writeRequireAll(b *strings.Builder, filter string, except []string) {
	if len(except) == 0 {
		b.WriteString(" " + filter)
		return
	}
	b.WriteString(" (require-all " + filter)
	for _, e := range except {
		b.WriteString("\n    " + e)
	}
	b.WriteString(")")
}

// globRegex is the anchored regular expression of a filepath.Glob pattern
// that also matches everything below what the pattern matches. '*' and
// '?' match within one name, and so does a class ('[…]', any one
// character); every other character is literal, but '"' and '\' match
// any one character, so that the expression never holds a quote or a
// backslash of the path's own.
func globRegex(pattern string) string {
	var b strings.Builder
	b.WriteByte('^')
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			if end := strings.IndexByte(pattern[i+1:], ']'); end >= 0 {
				i += end + 1
				b.WriteString("[^/]") // a class: any one character (keeps more, never less)
				continue
			}
			regexLiteral(&b, c)
		case '\\':
			if i+1 < len(pattern) {
				i++
				c = pattern[i]
			}
			regexLiteral(&b, c)
		default:
			regexLiteral(&b, c)
		}
	}
	b.WriteString("(/.*)?$")
	return b.String()
}

// regexLiteral writes c as a regex matching it: letters, digits, '/',
// '-', '_' and bytes of multi-byte characters as they are; '"', '\' and
// control characters as any one character but '/'; other punctuation
// escaped.
func regexLiteral(b *strings.Builder, c byte) {
	switch {
	case isWordByte(c) || c == '/':
		b.WriteByte(c)
	case c == '"' || c == '\\' || c < 0x20 || c == 0x7f:
		b.WriteString("[^/]")
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 0x80
}
