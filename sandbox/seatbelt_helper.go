package sandbox

// seatbeltHelper is the profile dsh-bridge's helpers (dsh-highlight,
// dsh-code, dsh-markdown) run under on macOS, where they cannot confine
// themselves (Landlock is Linux's, and sandbox_init needs cgo): what
// Landlock leaves them on Linux, less nothing they need. No writing and
// no network at all: deny default. Reading: the helper's own binary
// (sandbox-exec executes it once the profile holds), what dyld and
// libSystem load (the system's libraries and dyld's shared cache), the
// time zone, /dev/null and the random devices; metadata anywhere (a stat
// gives names and sizes, never content), which dyld and the Go runtime
// ask for on their way. Nothing of the person's: a flaw reached by a
// page, a file or a program the model wrote can read no key and tell it
// to nobody. The helper's path is a parameter (HELPER), never in the
// text.
const seatbeltHelper = `(version 1)
(deny default)
(allow process-exec (literal (param "HELPER")))
(allow file-read* (literal (param "HELPER")))
(allow file-read*
  (subpath "/usr/lib") (subpath "/System/Library") (subpath "/System/Cryptexes")
  (subpath "/System/Volumes/Preboot/Cryptexes") (subpath "/Library/Apple/usr/lib")
  (subpath "/private/var/db/dyld"))
(allow file-read*
  (literal "/private/etc/localtime") (subpath "/private/var/db/timezone") (subpath "/usr/share/zoneinfo"))
(allow file-read* (literal "/dev/urandom") (literal "/dev/random"))
(allow file-read* file-write-data (literal "/dev/null"))
(allow file-read-metadata)
(allow sysctl-read)
`

// WrapHelper returns the argv that runs a helper's argv under Seatbelt
// (seatbeltHelper): sandbox-exec with the profile, the helper's resolved
// path (real, as Seatbelt matches paths: /private/var, not /var) as
// HELPER, and argv with that path first. Pure: the darwin start of a
// helper (helperbin) calls it when sandbox-exec is there.
func WrapHelper(real string, argv []string) []string {
	out := []string{SandboxExec, "-p", seatbeltHelper, "-D", "HELPER=" + real, "--", real}
	return append(out, argv[1:]...)
}
